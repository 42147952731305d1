import { encodeDeltaResponse } from './responses.ts';
import type { EncodedResource, Snapshot } from './snapshot.ts';
import { RdsStreamBase } from './stream-base.ts';
import type { DeltaRequest } from './stream-types.ts';

/** Our versions are 16 hex characters; a client's longer one is kept as '' (differs from every version of ours). */
const MAX_KEPT_VERSION = 64;

/**
 * Incremental xDS (DeltaRoutes) for one stream
 * (https://www.envoyproxy.io/docs/envoy/latest/api-docs/xds_protocol#incremental-xds).
 *
 * Rules:
 * - `initial_resource_versions` (first request) tells what the client already has; those are not resent if
 *   unchanged (only names the request subscribes to are kept, and a version longer than ours only as "some
 *   other version");
 * - subscribe/unsubscribe are honoured on every request, whatever its nonce;
 * - a request carrying the last nonce ACKs it, or NACKs it when `error_detail` is set (logged, counted, not
 *   resent); a request with an older nonce only changes the subscription;
 * - a response carries the subscribed resources whose version the client does not have, and `removed_resources`
 *   for subscribed names the client has but the snapshot no longer holds; nothing when there is nothing new.
 */
export class DeltaStream extends RdsStreamBase {
  /** name -> version the client has (as far as the server knows). */
  private readonly known = new Map<string, string>();

  protected protocol(): 'delta' {
    return 'delta';
  }

  handleRequest(req: DeltaRequest): void {
    if (!this.accept(req)) return;
    const first = !this.started;
    this.started = true;
    if (req.responseNonce !== '' && req.responseNonce === this.lastNonce) {
      if (req.errorDetail) this.recordNack(req.errorDetail);
      else {
        this.deps.metrics.acks++;
        this.acks?.ack(req.responseNonce);
      }
    } else if (req.responseNonce !== '') {
      this.deps.metrics.staleNonces++;
      // Each delta response is answered on its own: an answer to an older one still settles the routes it carried.
      if (req.errorDetail) this.acks?.nack(req.responseNonce, req.errorDetail.message);
      else this.acks?.ack(req.responseNonce);
    }
    const added = this.subscribe(req);
    if (added === undefined) return;
    if (first) this.declare(added, req.initialResourceVersions);
    if (added.length > 0) this.push(this.deps.cache.snapshot(), added);
  }

  /** Applies the request's unsubscribe and subscribe lists within the budgets; the names added (undefined: refused). */
  private subscribe(req: DeltaRequest): string[] | undefined {
    const removed = new Set(req.unsubscribe.filter((n) => this.names.has(n)));
    const added = [...new Set(req.subscribe)].filter((n) => !this.names.has(n) || removed.has(n));
    const refusal = this.budget.change(added, removed, this.names.size - removed.size + added.length);
    if (refusal) {
      this.exhausted(refusal);
      return undefined;
    }
    for (const n of removed) {
      this.names.delete(n);
      this.deps.cache.unwatch(n, this);
      this.known.delete(n);
      this.acks?.forget(n);
    }
    for (const n of added) {
      this.names.add(n);
      this.deps.cache.watch(n, this);
    }
    return added;
  }

  /** The versions the client says it has of the names it just subscribed to (first request only). */
  private declare(added: readonly string[], initial: Readonly<Record<string, string>>): void {
    for (const n of added) {
      if (!Object.hasOwn(initial, n)) continue;
      const v = initial[n]!;
      this.known.set(n, v.length <= MAX_KEPT_VERSION ? v : '');
    }
  }

  onResourcesChanged(snapshot: Snapshot, changed: readonly string[]): void {
    if (!this.closed) this.push(snapshot, changed);
  }

  protected forget(): void {
    this.known.clear();
  }

  private push(snapshot: Snapshot, candidates: readonly string[]): void {
    const resources: EncodedResource[] = [];
    const removed: string[] = [];
    for (const n of [...new Set(candidates)].sort()) {
      if (!this.names.has(n)) continue;
      const r = snapshot.resources.get(n);
      if (r && this.known.get(n) !== r.version) resources.push(r);
      else if (!r && this.known.has(n)) removed.push(n);
      else if (r) this.acks?.has(n, r.version);
    }
    if (resources.length === 0 && removed.length === 0) return;
    for (const r of resources) this.known.set(r.name, r.version);
    for (const n of removed) {
      this.known.delete(n);
      this.acks?.forget(n);
    }
    this.send(
      snapshot.version,
      resources,
      (nonce) => encodeDeltaResponse(snapshot.version, nonce, resources, removed),
      { delta: true, removed: removed.length },
    );
  }
}
