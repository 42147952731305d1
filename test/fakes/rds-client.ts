// The project's own RDS client for tests and the benchmark: raw-bytes gRPC calls on StreamRoutes / DeltaRoutes,
// with a response queue per stream. Requests are given in protobufjs object form (lowerCamelCase names).
import * as grpc from '@grpc/grpc-js';
import { spiffeServerCheck } from '../../src/kit/certs/spiffe.ts';
import { ROUTE_CONFIGURATION_TYPE } from '../../src/model/constants.ts';
import {
  decodeDeltaResponse,
  decodeSotwResponse,
  encodeDeltaRequest,
  encodeSotwRequest,
  rdsRawClientDefinition,
  type DeltaResponse,
  type SotwResponse,
} from '../../src/tools/rds-codec.ts';

export interface ClientTls {
  readonly ca: string | Buffer;
  readonly cert?: string | Buffer;
  readonly key?: string | Buffer;
  /** Verify the server by this SPIFFE URI SAN instead of its host name (as Envoy does with Istio's certificates). */
  readonly serverSpiffeId?: string;
}

const Client = grpc.makeGenericClientConstructor(rdsRawClientDefinition, 'RouteDiscoveryService');

/** A queue of messages with an awaitable head; `next()` rejects when the stream ends first or after `timeoutMs`. */
export class Inbox<T> {
  private readonly items: T[] = [];
  private readonly waiters: { resolve(v: T): void; reject(e: Error): void }[] = [];
  ended: Error | undefined;
  count = 0;

  push(item: T): void {
    this.count++;
    const w = this.waiters.shift();
    if (w) w.resolve(item);
    else this.items.push(item);
  }

  end(err: Error): void {
    this.ended = err;
    for (const w of this.waiters.splice(0)) w.reject(err);
  }

  pending(): number {
    return this.items.length;
  }

  next(timeoutMs = 5000): Promise<T> {
    const item = this.items.shift();
    if (item !== undefined) return Promise.resolve(item);
    if (this.ended) return Promise.reject(this.ended);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no message within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
    });
  }
}

export class RdsTestStream<Resp> {
  readonly inbox = new Inbox<Resp>();
  /** Resolves with the final status of the call (OK or error). */
  readonly status: Promise<grpc.StatusObject>;

  constructor(
    private readonly call: grpc.ClientDuplexStream<Buffer, Buffer>,
    decode: (b: Buffer) => Resp,
    private readonly encode: (r: Record<string, unknown>) => Buffer,
  ) {
    call.on('data', (b: Buffer) => this.inbox.push(decode(b)));
    call.on('error', (e: Error) => this.inbox.end(e));
    call.on('end', () => this.inbox.end(new Error('stream ended')));
    this.status = new Promise((resolve) => call.on('status', resolve));
  }

  send(req: Record<string, unknown>): void {
    this.call.write(this.encode(req));
  }

  next(timeoutMs?: number): Promise<Resp> {
    return this.inbox.next(timeoutMs);
  }

  /** The next `n` responses. */
  async take(n: number, timeoutMs?: number): Promise<Resp[]> {
    const out: Resp[] = [];
    for (let i = 0; i < n; i++) out.push(await this.next(timeoutMs));
    return out;
  }

  close(): void {
    this.call.cancel();
  }
}

/** A raw-bytes client of `Client` to `host:port` (a subchannel pool of its own: no two test clients share one). */
export function connectTestClient(
  Client: grpc.ServiceClientConstructor,
  port: number,
  tls: ClientTls | 'insecure',
  host = 'localhost',
): grpc.Client {
  const creds =
    tls === 'insecure'
      ? grpc.credentials.createInsecure()
      : grpc.credentials.createSsl(
          Buffer.from(tls.ca),
          tls.key ? Buffer.from(tls.key) : null,
          tls.cert ? Buffer.from(tls.cert) : null,
          tls.serverSpiffeId ? { checkServerIdentity: spiffeServerCheck(tls.serverSpiffeId) } : {},
        );
  return new Client(`${host}:${port}`, creds, { 'grpc.use_local_subchannel_pool': 1 });
}

export class RdsTestClient {
  private readonly client: grpc.Client;

  constructor(port: number, tls: ClientTls | 'insecure', host = 'localhost') {
    this.client = connectTestClient(Client, port, tls, host);
  }

  sotw(): RdsTestStream<SotwResponse> {
    return new RdsTestStream(this.raw('sotw'), decodeSotwResponse, encodeSotwRequest);
  }

  delta(): RdsTestStream<DeltaResponse> {
    return new RdsTestStream(this.raw('delta'), decodeDeltaResponse, encodeDeltaRequest);
  }

  /** A call that writes and reads raw bytes (any bytes: the fuzz suites send garbage through it). */
  raw(protocol: 'sotw' | 'delta'): grpc.ClientDuplexStream<Buffer, Buffer> {
    const methods = this.client as unknown as Record<string, () => grpc.ClientDuplexStream<Buffer, Buffer>>;
    return methods[protocol === 'sotw' ? 'StreamRoutes' : 'DeltaRoutes']!.call(this.client);
  }

  close(): void {
    this.client.close();
  }
}

/** A first SotW request as a MetaProtocol proxy sends it. */
export function sotwRequest(
  names: readonly string[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    node: { id: 'sidecar~10.0.0.1~proxy-0.ns~ns.svc.cluster.local' },
    typeUrl: ROUTE_CONFIGURATION_TYPE,
    resourceNames: [...names],
    ...extra,
  };
}

export function ackOf(resp: SotwResponse, names: readonly string[]): Record<string, unknown> {
  return {
    typeUrl: ROUTE_CONFIGURATION_TYPE,
    resourceNames: [...names],
    versionInfo: resp.versionInfo,
    responseNonce: resp.nonce,
  };
}
