import { encodeSotwResponse } from './responses.ts';
import type { EncodedResource, Snapshot } from './snapshot.ts';
import { RdsStreamBase } from './stream-base.ts';
import type { SotwRequest } from './stream-types.ts';

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
export class SotwStream extends RdsStreamBase {
  /** name -> version of what the client was last sent, for subscribed names only. */
  private readonly sent = new Map<string, string>();
  private ackedVersion = '';

  protected protocol(): 'sotw' {
    return 'sotw';
  }

  /** What the client last ACKed ('' until the first ACK). */
  get acked(): string {
    return this.ackedVersion;
  }

  handleRequest(req: SotwRequest): void {
    if (!this.accept(req)) return;
    this.started = true;
    if (req.responseNonce !== '' && req.responseNonce !== this.lastNonce) {
      this.deps.metrics.staleNonces++;
      return;
    }
    if (req.responseNonce !== '') {
      if (req.errorDetail) this.recordNack(req.errorDetail, req.versionInfo);
      else {
        this.deps.metrics.acks++;
        this.ackedVersion = req.versionInfo;
        this.acks?.ack(req.responseNonce);
      }
    }
    if (!this.setNames(req.resourceNames)) return;
    this.maybeSend(this.deps.cache.snapshot());
  }

  onResourcesChanged(snapshot: Snapshot): void {
    if (!this.closed) this.maybeSend(snapshot);
  }

  /**
   * Subscribes to exactly `requested`, within the budgets (false: the stream was refused). Names the stream already
   * had keep the string it first received: the cache's watcher index holds that one, and a SotW client repeats its
   * names in every request, so the stream never holds two copies of a name.
   */
  private setNames(requested: readonly string[]): boolean {
    const wanted = new Set(requested);
    const next = new Set<string>();
    const removed: string[] = [];
    for (const n of this.names) {
      if (wanted.has(n)) next.add(n);
      else removed.push(n);
    }
    const added: string[] = [];
    for (const n of wanted) {
      if (!next.has(n)) {
        added.push(n);
        next.add(n);
      }
    }
    const refusal = this.budget.change(added, removed, next.size);
    if (refusal) return this.exhausted(refusal);
    for (const n of removed) {
      this.deps.cache.unwatch(n, this);
      this.sent.delete(n);
      this.acks?.forget(n);
    }
    for (const n of added) this.deps.cache.watch(n, this);
    this.names = next;
    return true;
  }

  protected forget(): void {
    this.sent.clear();
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
    this.send(snapshot.version, resources, (nonce) => encodeSotwResponse(snapshot.version, nonce, resources));
  }
}
