/**
 * A small RDS client (`aeraki routes`): subscribes to route names the way a MetaProtocol proxy does, over the
 * state-of-the-world stream (StreamRoutes) or, with `delta`, the incremental one (DeltaRoutes), ACKs every
 * response and hands the routes it now holds to `onAnswer` (proto3 JSON, ordered by name).
 *
 * - A stream that ends (server restart, network) is re-opened after a capped, jittered backoff (reset by the
 *   first response of a stream); `onDisconnect` says so. A delta stream resumes with the versions it holds, so
 *   nothing unchanged is sent again.
 * - A name the first answer (or any later one) lacks is reported once by `onNotServed` (again only after it was
 *   served in between). RDS answers nothing at all when none of the names exists, so `onNoAnswer` reports a
 *   stream that stayed silent for `noAnswerMs` after it opened.
 * - A client that never got an answer and sees UNAVAILABLE asks the server what it speaks (protocol-probe.ts); a
 *   plaintext client (`insecure`) facing a TLS server, or the reverse, is reported once by `onWrongProtocol`.
 */
import * as grpc from '@grpc/grpc-js';
import { spiffeServerCheck } from '../kit/certs/spiffe.ts';
import { stringify as toYaml } from 'yaml';
import { ROUTE_CONFIGURATION_TYPE } from '../model/constants.ts';
import { Backoff, type BackoffOptions } from '../util/backoff.ts';
import { probeServerProtocol } from './protocol-probe.ts';
import { systemClock, type Clock, type TimerHandle } from '../util/clock.ts';
import {
  decodeDeltaResponse,
  decodeSotwResponse,
  encodeDeltaRequest,
  encodeSotwRequest,
  rdsRawClientDefinition,
} from './rds-codec.ts';

/** The routes a watcher holds after a response. */
export interface RouteAnswer {
  /** The response's version (`version_info`, or `system_version_info` for delta). */
  readonly version: string;
  /** Every route held, ordered by name. */
  readonly routes: readonly unknown[];
}

export interface WatchRoutesOptions {
  /** `host:port` of the RDS server. */
  readonly address: string;
  /** PEM contents (not paths) of the CA, client certificate and key; or plaintext. */
  readonly tls: { readonly ca: Buffer; readonly cert: Buffer; readonly key: Buffer } | 'insecure';
  readonly names: readonly string[];
  /** Use DeltaRoutes instead of StreamRoutes. */
  readonly delta?: boolean;
  /** xDS node id sent with the first request. */
  readonly nodeId?: string;
  /** TLS server name to verify (default: the address's host; `localhost` for a loopback IP). */
  readonly serverName?: string;
  /** Verify the server by this SPIFFE URI SAN instead of its name (a certificate from `--cert-provider istiod`). */
  readonly serverSpiffeId?: string;
  readonly onAnswer: (answer: RouteAnswer) => void;
  /** Names an answer lacks (each reported once until it is served again). */
  readonly onNotServed?: (names: readonly string[]) => void;
  /** A stream opened `noAnswerMs` ago has answered nothing (reported once per stream). */
  readonly onNoAnswer?: (waitedMs: number) => void;
  /**
   * The server speaks the other protocol: TLS while this client is plaintext (`tls: 'insecure'`), or plaintext
   * while this client speaks TLS. Reported once; the watcher keeps retrying.
   */
  readonly onWrongProtocol?: (serverSpeaks: 'tls' | 'plaintext') => void;
  /** The stream ended; it is re-opened after `retryInMs`. */
  readonly onDisconnect?: (status: grpc.StatusObject, retryInMs: number) => void;
  /** Default 5 s. */
  readonly noAnswerMs?: number;
  readonly backoff?: BackoffOptions;
  /** Timers of the reconnects and the no-answer notice; the CLI passes one that keeps the process alive. */
  readonly clock?: Clock;
}

const Client = grpc.makeGenericClientConstructor(rdsRawClientDefinition, 'RouteDiscoveryService');
type RawClient = Record<string, () => grpc.ClientDuplexStream<Buffer, Buffer>>;

const DEFAULT_NODE = 'sidecar~127.0.0.1~aeraki-routes.default~default.svc.cluster.local';

function createClient(o: WatchRoutesOptions): grpc.Client {
  const creds =
    o.tls === 'insecure'
      ? grpc.credentials.createInsecure()
      : grpc.credentials.createSsl(
          o.tls.ca,
          o.tls.key,
          o.tls.cert,
          o.serverSpiffeId ? { checkServerIdentity: spiffeServerCheck(o.serverSpiffeId) } : {},
        );
  // Node refuses an IP as TLS server name (SNI); loopback addresses verify as `localhost` instead.
  const loopback = /^(127\.0\.0\.1|\[::1\]):\d+$/.test(o.address);
  const serverName = o.serverName ?? (loopback ? 'localhost' : undefined);
  const options: grpc.ClientOptions = serverName ? { 'grpc.ssl_target_name_override': serverName } : {};
  return new Client(o.address, creds, options);
}

/** Opens the stream (and re-opens it until closed); `close()` cancels it for good. */
export function watchRoutes(o: WatchRoutesOptions): { close(): void } {
  const watcher = new RouteWatcher(o);
  watcher.open();
  return { close: () => watcher.close() };
}

class RouteWatcher {
  private readonly client: grpc.Client;
  private readonly clock: Clock;
  private readonly backoff: Backoff;
  /** name -> [version, route JSON] of what is held now. */
  private readonly held = new Map<string, { version: string; json: unknown }>();
  private readonly notServed = new Set<string>();
  private call: grpc.ClientDuplexStream<Buffer, Buffer> | undefined;
  private timer: TimerHandle | undefined;
  private closed = false;
  private answeredOnce = false;
  /** 'asking' while a probe runs; 'known' once the server's protocol was learnt. */
  private probe: 'none' | 'asking' | 'known' = 'none';

  constructor(private readonly o: WatchRoutesOptions) {
    this.client = createClient(o);
    this.clock = o.clock ?? systemClock;
    this.backoff = new Backoff({ initialMs: 500, maxMs: 30_000, ...o.backoff });
  }

  open(): void {
    if (this.closed) return;
    const method = (this.client as unknown as RawClient)[this.o.delta ? 'DeltaRoutes' : 'StreamRoutes'];
    if (!method) throw new Error('the RDS client definition lacks its methods');
    const call = method.call(this.client);
    this.call = call;
    let answered = false;
    let ended = false;
    const waited = this.o.noAnswerMs ?? 5000;
    this.arm(waited, () => {
      if (!answered && !ended) this.o.onNoAnswer?.(waited);
    });
    call.on('data', (bytes: Buffer) => {
      if (!answered) this.backoff.reset();
      answered = true;
      this.answeredOnce = true;
      this.receive(call, bytes);
    });
    call.on('error', () => {}); // 'status' carries the same information
    call.on('status', (status: grpc.StatusObject) => {
      if (ended) return;
      ended = true;
      this.ended(status);
    });
    call.write(this.firstRequest());
  }

  close(): void {
    this.closed = true;
    this.disarm();
    this.call?.cancel();
    this.client.close();
  }

  private ended(status: grpc.StatusObject): void {
    this.disarm();
    if (this.closed) return;
    if (status.code === grpc.status.UNAVAILABLE && !this.answeredOnce) this.askProtocol();
    const delay = this.backoff.next();
    this.o.onDisconnect?.(status, delay);
    this.arm(delay, () => this.open());
  }

  /** Learns what the server speaks (once it answers either way) and reports a mismatch. */
  private askProtocol(): void {
    if (this.probe !== 'none' || !this.o.onWrongProtocol) return;
    this.probe = 'asking';
    void probeServerProtocol(this.o.address).then((speaks) => {
      this.probe = speaks === 'unknown' ? 'none' : 'known';
      if (this.closed || this.answeredOnce || speaks === 'unknown') return;
      const plaintextClient = this.o.tls === 'insecure';
      if ((speaks === 'tls') === plaintextClient) this.o.onWrongProtocol?.(speaks);
    });
  }

  private firstRequest(): Buffer {
    const node = { id: this.o.nodeId ?? DEFAULT_NODE };
    if (!this.o.delta) {
      return encodeSotwRequest({ node, typeUrl: ROUTE_CONFIGURATION_TYPE, resourceNames: [...this.o.names] });
    }
    const initialResourceVersions: Record<string, string> = {};
    for (const [name, r] of this.held) initialResourceVersions[name] = r.version;
    return encodeDeltaRequest({
      node,
      typeUrl: ROUTE_CONFIGURATION_TYPE,
      resourceNamesSubscribe: [...this.o.names],
      initialResourceVersions,
    });
  }

  private receive(call: grpc.ClientDuplexStream<Buffer, Buffer>, bytes: Buffer): void {
    let version: string;
    if (this.o.delta) {
      const r = decodeDeltaResponse(bytes);
      for (const res of r.resources) this.held.set(res.name, { version: res.version, json: res.json });
      for (const name of r.removedResources) this.held.delete(name);
      version = r.systemVersionInfo;
      call.write(encodeDeltaRequest({ typeUrl: ROUTE_CONFIGURATION_TYPE, responseNonce: r.nonce }));
    } else {
      const r = decodeSotwResponse(bytes);
      this.held.clear(); // a state-of-the-world answer holds every subscribed route the server has
      for (const res of r.resources)
        this.held.set(routeName(res.json), { version: r.versionInfo, json: res.json });
      version = r.versionInfo;
      call.write(
        encodeSotwRequest({
          typeUrl: ROUTE_CONFIGURATION_TYPE,
          resourceNames: [...this.o.names],
          versionInfo: r.versionInfo,
          responseNonce: r.nonce,
        }),
      );
    }
    this.reportMissing();
    const routes = [...this.held.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    this.o.onAnswer({ version, routes: routes.map(([, r]) => r.json) });
  }

  private reportMissing(): void {
    const missing: string[] = [];
    for (const name of this.o.names) {
      if (this.held.has(name)) this.notServed.delete(name);
      else if (!this.notServed.has(name)) {
        this.notServed.add(name);
        missing.push(name);
      }
    }
    if (missing.length > 0) this.o.onNotServed?.(missing);
  }

  private arm(ms: number, fn: () => void): void {
    this.disarm();
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      fn();
    }, ms);
  }

  private disarm(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }
}

function routeName(json: unknown): string {
  const name = (json as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? name : '';
}

/** One answer as `aeraki routes` prints it: pretty JSON, or a YAML document (`---` first). */
export function formatAnswer(answer: RouteAnswer, format: 'json' | 'yaml'): string {
  const doc = { version: answer.version, routes: answer.routes };
  return format === 'json' ? `${JSON.stringify(doc, null, 2)}\n` : `---\n${toYaml(doc, { lineWidth: 0 })}`;
}
