// An ADS client for tests, playing a waypoint proxy: raw-bytes gRPC calls on StreamAggregatedResources /
// DeltaAggregatedResources (grpc-js, mTLS on loopback), requests encoded from protobufjs object form, responses
// decoded with every resource turned back into proto3 JSON (src/xds-rds/proto-json.ts) for xdsProblems.
import * as grpc from '@grpc/grpc-js';
import { spiffeServerCheck } from '../../src/kit/certs/spiffe.ts';
import { adsRawClientDefinition } from '../../src/xds-rds/ads-service.ts';
import { decodeJson } from '../../src/xds-rds/proto-json.ts';
import { loadRdsProtos } from '../../src/xds-rds/protos.ts';
import { Inbox, type ClientTls } from './rds-client.ts';

const Client = grpc.makeGenericClientConstructor(adsRawClientDefinition, 'AggregatedDiscoveryService');

export interface AdsResourceJson {
  readonly typeUrl: string;
  readonly name: string;
  /** The resource as canonical proto3 JSON. */
  readonly json: Record<string, unknown>;
  /** Delta only: the Resource's version. */
  readonly version?: string;
}

export interface AdsSotwResponse {
  readonly versionInfo: string;
  readonly typeUrl: string;
  readonly nonce: string;
  readonly resources: readonly AdsResourceJson[];
}

export interface AdsDeltaResponse {
  readonly systemVersionInfo: string;
  readonly typeUrl: string;
  readonly nonce: string;
  readonly resources: readonly AdsResourceJson[];
  readonly removedResources: readonly string[];
}

interface RawAny {
  type_url?: string;
  value?: Uint8Array;
}

function resourceOf(any: RawAny, version?: string): AdsResourceJson {
  const typeUrl = any.type_url ?? '';
  const json = decodeJson(typeUrl, any.value ?? new Uint8Array()) as Record<string, unknown>;
  const name = json['name'] ?? json['clusterName'];
  return {
    typeUrl,
    name: typeof name === 'string' ? name : '',
    json,
    ...(version !== undefined ? { version } : {}),
  };
}

export function decodeAdsSotw(bytes: Buffer): AdsSotwResponse {
  const p = loadRdsProtos();
  const raw = p.DiscoveryResponse.toObject(p.DiscoveryResponse.decode(bytes), { arrays: true }) as {
    versionInfo?: string;
    typeUrl?: string;
    nonce?: string;
    resources: RawAny[];
  };
  return {
    versionInfo: raw.versionInfo ?? '',
    typeUrl: raw.typeUrl ?? '',
    nonce: raw.nonce ?? '',
    resources: raw.resources.map((a) => resourceOf(a)),
  };
}

export function decodeAdsDelta(bytes: Buffer): AdsDeltaResponse {
  const p = loadRdsProtos();
  const raw = p.DeltaDiscoveryResponse.toObject(p.DeltaDiscoveryResponse.decode(bytes), { arrays: true }) as {
    systemVersionInfo?: string;
    typeUrl?: string;
    nonce?: string;
    resources: { version?: string; resource?: RawAny; name?: string }[];
    removedResources: string[];
  };
  return {
    systemVersionInfo: raw.systemVersionInfo ?? '',
    typeUrl: raw.typeUrl ?? '',
    nonce: raw.nonce ?? '',
    resources: raw.resources.map((r) => resourceOf(r.resource ?? {}, r.version ?? '')),
    removedResources: raw.removedResources,
  };
}

function encodeWith(type: 'DiscoveryRequest' | 'DeltaDiscoveryRequest') {
  return (req: Record<string, unknown>): Buffer => {
    const t = loadRdsProtos()[type];
    return Buffer.from(t.encode(t.fromObject(req)).finish());
  };
}

/** One ADS stream: a queue of decoded responses, and requests in protobufjs object form (lowerCamelCase). */
export class AdsTestStream<Resp extends { readonly typeUrl: string }> {
  readonly inbox = new Inbox<Resp>();
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

export class AdsTestClient {
  private readonly client: grpc.Client;

  constructor(port: number, tls: ClientTls | 'insecure', host = 'localhost') {
    const creds =
      tls === 'insecure'
        ? grpc.credentials.createInsecure()
        : grpc.credentials.createSsl(
            Buffer.from(tls.ca),
            tls.key ? Buffer.from(tls.key) : null,
            tls.cert ? Buffer.from(tls.cert) : null,
            tls.serverSpiffeId ? { checkServerIdentity: spiffeServerCheck(tls.serverSpiffeId) } : {},
          );
    this.client = new Client(`${host}:${port}`, creds, { 'grpc.use_local_subchannel_pool': 1 });
  }

  sotw(): AdsTestStream<AdsSotwResponse> {
    return new AdsTestStream(
      this.raw('StreamAggregatedResources'),
      decodeAdsSotw,
      encodeWith('DiscoveryRequest'),
    );
  }

  delta(): AdsTestStream<AdsDeltaResponse> {
    return new AdsTestStream(
      this.raw('DeltaAggregatedResources'),
      decodeAdsDelta,
      encodeWith('DeltaDiscoveryRequest'),
    );
  }

  private raw(method: string): grpc.ClientDuplexStream<Buffer, Buffer> {
    const methods = this.client as unknown as Record<string, () => grpc.ClientDuplexStream<Buffer, Buffer>>;
    return methods[method]!.call(this.client);
  }

  close(): void {
    this.client.close();
  }
}

/** The node a waypoint proxy of Gateway `namespace/name` sends (bootstrap: node.cluster `W.N`). */
export function waypointNode(namespace: string, name: string, pod = `${name}-0`): Record<string, unknown> {
  return { id: `${pod}.${namespace}`, cluster: `${name}.${namespace}` };
}

/** An ACK of a SotW response (same names). */
export function sotwAck(resp: AdsSotwResponse, names: readonly string[] = []): Record<string, unknown> {
  return {
    typeUrl: resp.typeUrl,
    resourceNames: [...names],
    versionInfo: resp.versionInfo,
    responseNonce: resp.nonce,
  };
}
