import { ROUTE_CONFIGURATION_TYPE } from '../model/constants.ts';
import { encodeSotwResponse } from './responses.ts';
import type { EncodedResource, ResourceWatcher, Snapshot } from './snapshot.ts';
import { STATUS_INVALID_ARGUMENT, type SotwRequest, type StreamDeps } from './stream-types.ts';

/**
 * State of the world (StreamRoutes) for one stream: RDS is a non-wildcard type, so the stream gets exactly the
 * resources it names and nothing for an empty subscription
 * (https://www.envoyproxy.io/docs/envoy/latest/api-docs/xds_protocol#how-the-client-specifies-what-resources-to-return).
 *
 * Rules:
 * - a request whose `response_nonce` is not the last nonce sent is stale and ignored (after the first response);
 * - `error_detail` set: a NACK, logged and counted with the proxy id, peer and reason; nothing is resent for it;
 * - otherwise a request with the current nonce ACKs `version_info`;
 * - a response is sent when the set of (name, version) the stream should have differs from what it was last
 *   sent; names dropped from the subscription are forgotten, so unsubscribing alone sends nothing and a later
 *   re-subscription sends the resource again;
 * - the version of a response is the snapshot version; nonces are per stream, increasing.
 */
export class SotwStream implements ResourceWatcher {
  private nodeId = '';
  private names = new Set<string>();
  /** name -> version of what the client was last sent, for subscribed names only. */
  private readonly sent = new Map<string, string>();
  private nonceCounter = 0;
  private lastNonce = '';
  private sentVersion = '';
  private ackedVersion = '';
  private started = false;
  private closed = false;

  constructor(private readonly deps: StreamDeps) {
    deps.metrics.streamsOpened++;
    deps.metrics.streamsActive++;
  }

  /** What the client last ACKed ('' until the first ACK). */
  get acked(): string {
    return this.ackedVersion;
  }

  get subscribed(): readonly string[] {
    return [...this.names].sort();
  }

  handleRequest(req: SotwRequest): void {
    if (this.closed) return;
    const { metrics, logger } = this.deps;
    if (req.nodeId) this.nodeId = req.nodeId;
    if (req.typeUrl !== ROUTE_CONFIGURATION_TYPE && !(this.started && req.typeUrl === '')) {
      metrics.rejectedTypeUrls++;
      logger.warn('rds: unknown type URL', {
        proxy: this.nodeId,
        peer: this.deps.peer,
        typeUrl: req.typeUrl,
      });
      this.close();
      this.deps.sink.fail(STATUS_INVALID_ARGUMENT, `unsupported type URL "${req.typeUrl}"`);
      return;
    }
    this.started = true;
    if (req.responseNonce !== '' && req.responseNonce !== this.lastNonce) {
      metrics.staleNonces++;
      return;
    }
    if (req.responseNonce !== '') {
      if (req.errorDetail) {
        metrics.recordNack({
          proxy: this.nodeId,
          peer: this.deps.peer,
          version: this.sentVersion,
          reason: req.errorDetail.message,
        });
        logger.warn('rds: NACK', {
          proxy: this.nodeId,
          peer: this.deps.peer,
          rejectedVersion: this.sentVersion,
          keptVersion: req.versionInfo,
          reason: req.errorDetail.message,
        });
      } else {
        metrics.acks++;
        this.ackedVersion = req.versionInfo;
      }
    }
    this.setNames(req.resourceNames);
    this.maybeSend(this.deps.cache.snapshot());
  }

  onResourcesChanged(snapshot: Snapshot): void {
    if (!this.closed) this.maybeSend(snapshot);
  }

  /** Stops watching; idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const n of this.names) this.deps.cache.unwatch(n, this);
    this.names.clear();
    this.deps.metrics.streamsActive--;
  }

  private setNames(requested: readonly string[]): void {
    const next = new Set(requested);
    for (const n of this.names) {
      if (!next.has(n)) {
        this.deps.cache.unwatch(n, this);
        this.sent.delete(n);
      }
    }
    for (const n of next) if (!this.names.has(n)) this.deps.cache.watch(n, this);
    this.names = next;
  }

  private maybeSend(snapshot: Snapshot): void {
    const resources: EncodedResource[] = [];
    for (const n of [...this.names].sort()) {
      const r = snapshot.resources.get(n);
      if (r) resources.push(r);
    }
    const same =
      resources.length === this.sent.size && resources.every((r) => this.sent.get(r.name) === r.version);
    if (same) return;
    this.sent.clear();
    for (const r of resources) this.sent.set(r.name, r.version);
    const nonce = String(++this.nonceCounter);
    const bytes = encodeSotwResponse(snapshot.version, nonce, resources);
    this.lastNonce = nonce;
    this.sentVersion = snapshot.version;
    this.deps.metrics.responses++;
    this.deps.metrics.responseBytes += bytes.length;
    this.deps.logger.debug('rds: push', {
      proxy: this.nodeId,
      peer: this.deps.peer,
      version: snapshot.version,
      nonce,
      resources: resources.length,
    });
    this.deps.sink.send(bytes);
  }
}
