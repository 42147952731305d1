import * as grpc from '@grpc/grpc-js';
import { loadMcpProtos, type McpProtos } from '../../model/mcp-protos.ts';
import { bindFailure, serveDuplex, shutDown, SHUTTING_DOWN, type EndStatus } from '../../util/grpc-duplex.ts';
import { errorFields, type Logger } from '../../util/logger.ts';
import type { RegistryServiceEntry } from '../types.ts';
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
  /** Serve TLS with this key pair; with `ca`, clients must present a certificate it signed. Plaintext when absent. */
  readonly tls?: { readonly key: Buffer; readonly cert: Buffer; readonly ca?: Buffer };
}

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
 * istiod reads it as a config source (Istio >= 1.24 asks for the v1 type URL, older releases for v1alpha3):
 *
 *     meshConfig:
 *       configSources:
 *         - address: k8s://                       # keep the Kubernetes API as a source
 *         - address: xds://aeraki.istio-system:15011
 */
export class ServiceEntryMcpServer {
  readonly counters: McpServerCounters = { streams: 0, responses: 0, acks: 0, nacks: 0 };
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

  constructor(private readonly options: ServiceEntryMcpServerOptions) {
    this.log = options.logger.child({ component: 'mcp-server' });
    this.server = new grpc.Server({
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
      'grpc.keepalive_permit_without_calls': 1,
      'grpc.http2.min_ping_interval_without_data_ms': 10_000,
      'grpc.max_send_message_length': -1,
    });
    this.server.addService(adsServiceDefinition<McpRequest>(this.protos), {
      StreamAggregatedResources: (call: Call) => this.serve(call),
    });
  }

  /** Binds and serves; resolves with the bound port. Rejects when binding fails. */
  async start(): Promise<number> {
    const { host, tls } = this.options;
    const creds = tls
      ? grpc.ServerCredentials.createSsl(
          tls.ca ?? null,
          [{ private_key: tls.key, cert_chain: tls.cert }],
          tls.ca !== undefined,
        )
      : grpc.ServerCredentials.createInsecure();
    const address = `${host.includes(':') ? `[${host}]` : host}:${this.options.port}`;
    const port = await new Promise<number>((resolve, reject) => {
      this.server.bindAsync(address, creds, (err, p) => (err ? reject(bindFailure(err)) : resolve(p)));
    });
    this.log.info('mcp-server: listening', { address, port, tls: tls !== undefined });
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

  private serve(call: Call): void {
    const id = this.nextStream++;
    const stream = new McpStream({
      id,
      logger: this.log,
      counters: this.counters,
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
      request: (req: McpRequest) => stream.handle(req),
      end,
      failed: (err) => this.log.error('mcp-server: request failed', { stream: id, ...errorFields(err) }),
      errored: (err) => this.log.debug('mcp-server: stream error', { stream: id, ...errorFields(err) }),
    });
  }
}
