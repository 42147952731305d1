import { ROUTE_CONFIGURATION_TYPE } from '../model/constants.ts';
import type { EncodedResource, ResourceWatcher, Snapshot } from './snapshot.ts';
import { STATUS_INVALID_ARGUMENT, type ErrorDetail, type StreamDeps } from './stream-types.ts';

/**
 * What SotW and delta RDS streams share: the subscribed names and their watches on the cache, the node id,
 * nonces, the type URL check, NACK accounting and sending. Subclasses implement the protocol rules.
 */
export abstract class RdsStreamBase implements ResourceWatcher {
  protected nodeId = '';
  protected names = new Set<string>();
  protected lastNonce = '';
  protected sentVersion = '';
  protected started = false;
  protected closed = false;
  private nonceCounter = 0;

  constructor(protected readonly deps: StreamDeps) {
    deps.metrics.streamsOpened++;
    deps.metrics.streamsActive++;
  }

  get subscribed(): readonly string[] {
    return [...this.names].sort();
  }

  abstract onResourcesChanged(snapshot: Snapshot, changed: readonly string[]): void;

  /** Stops watching; idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const n of this.names) this.deps.cache.unwatch(n, this);
    this.names.clear();
    this.deps.metrics.streamsActive--;
  }

  /**
   * Records the node id and checks the type URL (only RouteConfiguration; later requests may leave it empty).
   * An unknown type URL ends the stream with INVALID_ARGUMENT; returns false then.
   */
  protected accept(req: { readonly nodeId: string; readonly typeUrl: string }): boolean {
    if (this.closed) return false;
    if (req.nodeId) this.nodeId = req.nodeId;
    if (req.typeUrl === ROUTE_CONFIGURATION_TYPE || (this.started && req.typeUrl === '')) return true;
    this.deps.metrics.rejectedTypeUrls++;
    this.deps.logger.warn('rds: unknown type URL', {
      proxy: this.nodeId,
      peer: this.deps.peer,
      typeUrl: req.typeUrl,
    });
    this.close();
    this.deps.sink.fail(STATUS_INVALID_ARGUMENT, `unsupported type URL "${req.typeUrl}"`);
    return false;
  }

  /** A NACK of the last response: logged and counted with the proxy, peer and reason; nothing is resent. */
  protected recordNack(detail: ErrorDetail, keptVersion?: string): void {
    this.deps.metrics.recordNack({
      proxy: this.nodeId,
      peer: this.deps.peer,
      version: this.sentVersion,
      reason: detail.message,
    });
    this.deps.logger.warn('rds: NACK', {
      proxy: this.nodeId,
      peer: this.deps.peer,
      rejectedVersion: this.sentVersion,
      ...(keptVersion !== undefined ? { keptVersion } : {}),
      reason: detail.message,
    });
  }

  /** Sends one response built for the next nonce and records it as the last one sent. */
  protected send(
    version: string,
    resources: readonly EncodedResource[],
    encode: (nonce: string) => Buffer,
    extra: Record<string, unknown> = {},
  ): void {
    const nonce = String(++this.nonceCounter);
    const bytes = encode(nonce);
    this.lastNonce = nonce;
    this.sentVersion = version;
    this.deps.metrics.responses++;
    this.deps.metrics.responseBytes += bytes.length;
    this.deps.logger.debug('rds: push', {
      proxy: this.nodeId,
      peer: this.deps.peer,
      version,
      nonce,
      resources: resources.length,
      ...extra,
    });
    this.deps.sink.send(bytes);
  }
}
