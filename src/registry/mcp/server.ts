import * as grpc from '@grpc/grpc-js';
import { loadMcpProtos, type McpProtos } from '../../kit/mcp-protos.ts';
import { bindFailure, serveDuplex, shutDown, SHUTTING_DOWN, type EndStatus } from '../../util/grpc-duplex.ts';
import { systemClock, type Clock } from '../../util/clock.ts';
import {
  DEFAULT_HANDSHAKE_LIMITS,
  grpcHttp2Servers,
  HandshakeGuard,
  type HandshakeLimits,
} from '../../util/handshake-guard.ts';
import { errorFields, type Logger } from '../../util/logger.ts';
import { checkPeer, type PeerPolicy } from '../../util/peer-policy.ts';
import type { RegistryServiceEntry } from '../types.ts';
import { DEFAULT_MCP_LIMITS, type McpLimits } from './limits.ts';
import { adsServiceDefinition } from './service.ts';
import {
  buildSnapshot,
  EMPTY_SNAPSHOT,
  SERVICE_ENTRY_TYPE_URLS,
  type EncodingCache,
  type McpSnapshot,
} from './snapshot.ts';
import { McpStream, type McpRequest, type McpServerCounters } from './stream.ts';

export interface ServiceEntryMcpServerOptions {
  /** Address to bind, e.g. `0.0.0.0`. */
  readonly host: string;
  /** 0 picks a free port (see `start()`'s result). */
  readonly port: number;
  readonly logger: Logger;
  /**
   * mTLS from a CertificateProvider owned by the caller (its key pair is served, its root verifies clients, which
   * must present a certificate), or plaintext with `insecure: true` (`--mcp-server-insecure`, logged at warn).
   */
  readonly tls: { readonly provider: grpc.experimental.CertificateProvider } | { readonly insecure: true };
  /** Who may read, with TLS (default: `spiffe://cluster.local/ns/istio-system/sa/istiod`). */
  readonly peers?: PeerPolicy;
  /** Handshake timeout and cap of connections in their handshake (default DEFAULT_HANDSHAKE_LIMITS). */
  readonly handshake?: HandshakeLimits;
  /** Times handshakes (default: the system clock). */
  readonly clock?: Clock;
  /** What one client may make the server hold; unset fields take DEFAULT_MCP_LIMITS. */
  readonly limits?: Partial<McpLimits>;
}

/** istiod's identity in the default root namespace: who may read by default. */
export const DEFAULT_MCP_PEERS: PeerPolicy = {
  trustDomain: 'cluster.local',
  trustDomainAliases: [],
  allowedNamespaces: [],
  allowedIdentities: ['spiffe://cluster.local/ns/istio-system/sa/istiod'],
};

/** Identities whose refusal is logged at warn (once each); later refusals and any beyond go to debug. */
const WARNED_IDENTITIES = 100;

type Call = grpc.ServerDuplexStream<McpRequest, Buffer>;

const CONTROL_PLANE = '{"Component":"aeraki","Info":"registry ServiceEntries"}';

/**
 * The registry ServiceEntries over MCP-over-xDS, for istiod's `meshConfig.configSources` (`xds://host:port`): a SotW
 * ADS server (StreamAggregatedResources) answering `networking.istio.io/v1/ServiceEntry` and `.../v1alpha3/
 * ServiceEntry` with the complete set, each resource an Any of istio.mcp.v1alpha1.Resource (metadata.name
 * `<ns>/<name>`, version = content hash) wrapping the ServiceEntry proto. Every other type URL gets an empty answer
 * (istiod asks for every kind it knows). Response versions are content hashes.
 *
 * Contract: `update()` replaces the whole set; it pushes only to streams watching a ServiceEntry type URL whose last
 * answer differs, and does nothing when the set is unchanged. `update()` may be called before `start()`. Until the
 * first `update()` the ServiceEntry type URLs are not answered at all (requests wait): an empty answer from a
 * restarted controller whose registries have not synced yet would make istiod drop every registry ServiceEntry.
 * istiod counts a config source as synced only once it answered, so the caller should make the first `update()`
 * when the registries synced, or after a startup grace period with what it has.
 *
 * With TLS every stream is checked before it reads anything: the client certificate must chain to the provider's
 * root and carry an allowed SPIFFE identity (`peers`), else the stream ends with PERMISSION_DENIED. A client
 * without a certificate, or speaking plaintext, fails the handshake (UNAVAILABLE on its side). Connections in
 * their handshake are bounded (HandshakeGuard, listener `mcp`); what one client may make the server hold is bounded
 * by `limits` (limits.ts): a request over them ends its stream with RESOURCE_EXHAUSTED naming the limit.
 *
 * istiod reads it as a config source (Istio >= 1.24 asks for the v1 type URL, older releases for v1alpha3); stock
 * istiod dials `xds://` sources in plaintext (see the README), which needs `insecure`:
 *
 *     meshConfig:
 *       configSources:
 *         - address: k8s://                       # keep the Kubernetes API as a source
 *         - address: xds://aeraki.istio-system:15011
 */
export class ServiceEntryMcpServer {
  readonly counters: McpServerCounters = { streams: 0, responses: 0, acks: 0, nacks: 0 };
  /** Streams refused by the peer policy, by reason, and over a limit (`limit`, limits.ts). */
  readonly refused = new Map<string, number>();
  /** Connections in their handshake (aeraki_tls_handshakes_total{listener="mcp"}). */
  readonly handshakes: HandshakeGuard;
  private readonly warned = new Set<string>();
  private readonly protos: McpProtos = loadMcpProtos();
  private readonly server: grpc.Server;
  private readonly streams = new Set<McpStream>();
  /** Ends each open call with a status (graceful stop). */
  private readonly open = new Set<(status: EndStatus) => void>();
  private readonly log: Logger;
  /** Undefined until the first update(). */
  private snapshot: McpSnapshot | undefined;
  private readonly encodings: EncodingCache = new WeakMap();
  private nextStream = 1;
  private readonly limits: McpLimits;

  constructor(private readonly options: ServiceEntryMcpServerOptions) {
    this.log = options.logger.child({ component: 'mcp-server' });
    const handshake = options.handshake ?? DEFAULT_HANDSHAKE_LIMITS;
    this.handshakes = new HandshakeGuard('mcp', handshake, this.log, options.clock ?? systemClock);
    this.limits = { ...DEFAULT_MCP_LIMITS, ...options.limits };
    this.server = new grpc.Server({
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
      'grpc.keepalive_permit_without_calls': 1,
      'grpc.http2.min_ping_interval_without_data_ms': 10_000,
      'grpc.max_send_message_length': -1,
      'grpc.max_receive_message_length': this.limits.maxReceiveBytes,
      'grpc.max_concurrent_streams': this.limits.maxStreamsPerConnection,
    });
    this.server.addService(adsServiceDefinition<McpRequest>(this.protos), {
      StreamAggregatedResources: (call: Call) => this.serve(call),
    });
  }

  /** Binds and serves; resolves with the bound port. Rejects when binding fails. */
  async start(): Promise<number> {
    const { host, tls } = this.options;
    const secure = 'provider' in tls;
    if (!secure) {
      this.log.warn(
        'mcp-server: serving WITHOUT TLS (--mcp-server-insecure); any client that reaches the port reads every registry ServiceEntry',
      );
    }
    // grpc-js passes its first argument on as the identity provider; ours serves both roles.
    const creds = secure
      ? grpc.experimental.createCertificateProviderServerCredentials(tls.provider, tls.provider, true)
      : grpc.ServerCredentials.createInsecure();
    const address = `${host.includes(':') ? `[${host}]` : host}:${this.options.port}`;
    const port = await new Promise<number>((resolve, reject) => {
      this.server.bindAsync(address, creds, (err, p) => (err ? reject(bindFailure(err)) : resolve(p)));
    });
    for (const http2Server of grpcHttp2Servers(this.server) ?? []) this.handshakes.attachHttp2(http2Server);
    const peers = secure ? (this.options.peers ?? DEFAULT_MCP_PEERS) : undefined;
    this.log.info('mcp-server: listening', {
      address,
      port,
      tls: secure,
      ...(peers ? { allowedIdentities: peers.allowedIdentities ?? [] } : {}),
    });
    return port;
  }

  /** Replaces the complete set served; pushes to the streams whose answer changed. */
  update(entries: readonly RegistryServiceEntry[]): void {
    const next = buildSnapshot(this.protos, entries, this.encodings);
    if (next.version === this.snapshot?.version) return;
    this.snapshot = next;
    this.log.debug('mcp-server: new ServiceEntry set', { version: next.version, count: next.count });
    for (const s of this.streams) s.push();
  }

  /** The version of the set now served ('empty' for none; undefined before the first update). */
  get version(): string | undefined {
    return this.snapshot?.version;
  }

  /**
   * Graceful stop: ends every open stream with UNAVAILABLE "server shutting down" (istiod reconnects), then closes
   * the listener and the connections, cutting off what is left after a grace period (shutDown). Idempotent.
   */
  async stop(): Promise<void> {
    for (const end of [...this.open]) end(SHUTTING_DOWN);
    this.open.clear();
    this.streams.clear();
    this.handshakes.close();
    await shutDown(this.server);
  }

  private snapshotFor(typeUrl: string): McpSnapshot | undefined {
    return SERVICE_ENTRY_TYPE_URLS.has(typeUrl) ? this.snapshot : EMPTY_SNAPSHOT;
  }

  private encode(typeUrl: string, snapshot: McpSnapshot, nonce: string): Buffer {
    const { DiscoveryResponse } = this.protos;
    const header = DiscoveryResponse.encode(
      DiscoveryResponse.fromObject({
        versionInfo: snapshot.version,
        typeUrl,
        nonce,
        controlPlane: { identifier: CONTROL_PLANE },
      }),
    ).finish();
    // Field order does not matter on the wire: the header's fields and the pre-encoded resources concatenate.
    return Buffer.concat([header, snapshot.resources]);
  }

  /** With TLS, whether the client may read; refuses the call with PERMISSION_DENIED when not. */
  private admit(call: Call): boolean {
    if (!('provider' in this.options.tls)) return true;
    const verdict = checkPeer(
      call.getAuthContext().sslPeerCertificate,
      this.options.peers ?? DEFAULT_MCP_PEERS,
    );
    if (verdict.ok) return true;
    this.refused.set(verdict.reason, (this.refused.get(verdict.reason) ?? 0) + 1);
    const fields = { identity: verdict.identity, reason: verdict.reason, peer: call.getPeer() };
    const first = !this.warned.has(verdict.identity) && this.warned.size < WARNED_IDENTITIES;
    if (first) this.warned.add(verdict.identity);
    this.log[first ? 'warn' : 'debug'](`mcp-server: refused a client: ${verdict.message}`, fields);
    call.on('error', () => {});
    call.emit('error', { code: grpc.status.PERMISSION_DENIED, details: verdict.message });
    return false;
  }

  private serve(call: Call): void {
    if (!this.admit(call)) return;
    const id = this.nextStream++;
    const stream = new McpStream({
      id,
      logger: this.log,
      counters: this.counters,
      limits: this.limits,
      snapshotFor: (url) => this.snapshotFor(url),
      send: (typeUrl, snapshot, nonce) => {
        call.write(this.encode(typeUrl, snapshot, nonce));
      },
    });
    this.streams.add(stream);
    this.counters.streams++;
    this.log.debug('mcp-server: stream opened', { stream: id, peer: call.getPeer() });
    let open = true;
    const end = (): void => {
      if (!open) return;
      open = false;
      this.streams.delete(stream);
      this.open.delete(shutdown);
      this.counters.streams--;
    };
    const shutdown = (status: EndStatus): void => {
      end();
      call.emit('error', status);
    };
    this.open.add(shutdown);
    serveDuplex(call, {
      request: (req: McpRequest) => {
        const problem = open ? stream.handle(req) : undefined;
        if (!problem) return;
        this.refused.set('limit', (this.refused.get('limit') ?? 0) + 1);
        const first = this.refused.get('limit') === 1;
        this.log[first ? 'warn' : 'debug'](`mcp-server: stream refused: ${problem}`, {
          stream: id,
          peer: call.getPeer(),
        });
        end();
        call.emit('error', { code: grpc.status.RESOURCE_EXHAUSTED, details: problem });
      },
      end,
      failed: (err) => this.log.error('mcp-server: request failed', { stream: id, ...errorFields(err) }),
      errored: (err) => this.log.debug('mcp-server: stream error', { stream: id, ...errorFields(err) }),
    });
  }
}
