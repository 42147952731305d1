import { ROUTE_CONFIGURATION_TYPE } from '../model/constants.ts';
import { encodeDeltaResponse } from './responses.ts';
import type { EncodedResource, ResourceWatcher, Snapshot } from './snapshot.ts';
import { STATUS_INVALID_ARGUMENT, type DeltaRequest, type StreamDeps } from './stream-types.ts';

/**
 * Incremental xDS (DeltaRoutes) for one stream
 * (https://www.envoyproxy.io/docs/envoy/latest/api-docs/xds_protocol#incremental-xds).
 *
 * Rules:
 * - `initial_resource_versions` (first request) tells what the client already has; those are not resent if
 *   unchanged;
 * - subscribe/unsubscribe are honoured on every request, whatever its nonce;
 * - a request carrying the last nonce ACKs it, or NACKs it when `error_detail` is set (logged, counted, not
 *   resent); a request with an older nonce only changes the subscription;
 * - a response carries the subscribed resources whose version the client does not have, and `removed_resources`
 *   for subscribed names the client has but the snapshot no longer holds; nothing when there is nothing new.
 */
export class DeltaStream implements ResourceWatcher {
  private nodeId = '';
  private readonly names = new Set<string>();
  /** name -> version the client has (as far as the server knows). */
  private readonly known = new Map<string, string>();
  private nonceCounter = 0;
  private lastNonce = '';
  private sentVersion = '';
  private started = false;
  private closed = false;

  constructor(private readonly deps: StreamDeps) {
    deps.metrics.streamsOpened++;
    deps.metrics.streamsActive++;
  }

  get subscribed(): readonly string[] {
    return [...this.names].sort();
  }

  handleRequest(req: DeltaRequest): void {
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
    if (!this.started) {
      for (const [n, v] of Object.entries(req.initialResourceVersions)) this.known.set(n, v);
    }
    this.started = true;
    if (req.responseNonce !== '' && req.responseNonce === this.lastNonce) {
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
          reason: req.errorDetail.message,
        });
      } else {
        metrics.acks++;
      }
    } else if (req.responseNonce !== '') {
      metrics.staleNonces++;
    }
    for (const n of req.unsubscribe) {
      if (!this.names.delete(n)) continue;
      this.deps.cache.unwatch(n, this);
      this.known.delete(n);
    }
    const added: string[] = [];
    for (const n of req.subscribe) {
      if (this.names.has(n)) continue;
      this.names.add(n);
      this.deps.cache.watch(n, this);
      added.push(n);
    }
    if (added.length > 0) this.push(this.deps.cache.snapshot(), added);
  }

  onResourcesChanged(snapshot: Snapshot, changed: readonly string[]): void {
    if (!this.closed) this.push(snapshot, changed);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const n of this.names) this.deps.cache.unwatch(n, this);
    this.names.clear();
    this.deps.metrics.streamsActive--;
  }

  private push(snapshot: Snapshot, candidates: readonly string[]): void {
    const resources: EncodedResource[] = [];
    const removed: string[] = [];
    for (const n of [...new Set(candidates)].sort()) {
      if (!this.names.has(n)) continue;
      const r = snapshot.resources.get(n);
      if (r && this.known.get(n) !== r.version) resources.push(r);
      else if (!r && this.known.has(n)) removed.push(n);
    }
    if (resources.length === 0 && removed.length === 0) return;
    for (const r of resources) this.known.set(r.name, r.version);
    for (const n of removed) this.known.delete(n);
    const nonce = String(++this.nonceCounter);
    const bytes = encodeDeltaResponse(snapshot.version, nonce, resources, removed);
    this.lastNonce = nonce;
    this.sentVersion = snapshot.version;
    this.deps.metrics.responses++;
    this.deps.metrics.responseBytes += bytes.length;
    this.deps.logger.debug('rds: delta push', {
      proxy: this.nodeId,
      peer: this.deps.peer,
      version: snapshot.version,
      nonce,
      resources: resources.length,
      removed: removed.length,
    });
    this.deps.sink.send(bytes);
  }
}
