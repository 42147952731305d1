import { isWildcardType } from '../model/ambient/xds.ts';
import { foldVersion, type AdsResource } from './ads-encode.ts';
import { AdsStreamBase, type TypeSubscription } from './ads-stream-base.ts';
import { encodeSotwResponse } from './responses.ts';
import type { SotwRequest } from './stream-types.ts';

/**
 * StreamAggregatedResources (state of the world) for one waypoint proxy
 * (https://www.envoyproxy.io/docs/envoy/latest/api-docs/xds_protocol), per type URL:
 * - LDS and CDS are wildcard: an empty `resource_names` (or one holding `*`) means every resource of the type
 *   ("How the client specifies what resources to return"); EDS and the route types get exactly the names asked;
 * - a request whose `response_nonce` is not the type's last nonce is stale and ignored for that type only
 *   (go-control-plane 2b88c16 pkg/server/sotw/v3/ads.go does the same per type), other types are unaffected;
 * - a request carrying the type's last nonce ACKs it, or NACKs it with `error_detail` (recorded, not resent);
 * - the first request of a type is always answered (empty when the Gateway serves nothing: Envoy waits for it);
 *   later, a response goes out when the (name, version) set the stream should have changed, and carries all of
 *   them ("every response carries the full state"); `version_info` folds the digests of what it carries.
 */
export class AdsSotwStream extends AdsStreamBase {
  protected protocol(): 'sotw' {
    return 'sotw';
  }

  handleRequest(req: SotwRequest): void {
    const sub = this.accept(req);
    if (!sub) return;
    const first = !sub.started;
    sub.started = true;
    if (req.responseNonce !== '' && sub.lastNonce !== '') {
      if (req.responseNonce !== sub.lastNonce) {
        this.deps.metrics.staleNonces++;
        return;
      }
      this.answered(sub, req.responseNonce, req.errorDetail);
    }
    if (!this.subscribe(sub, req.resourceNames)) return;
    this.respond(sub, first);
  }

  protected push(sub: TypeSubscription): void {
    this.respond(sub, false);
  }

  /** Sets the type's subscription to `requested` (wildcard for LDS/CDS when empty or with `*`). */
  private subscribe(sub: TypeSubscription, requested: readonly string[]): boolean {
    const wildcard = isWildcardType(sub.typeUrl) && (requested.length === 0 || requested.includes('*'));
    this.setWildcard(sub, wildcard);
    const wanted = new Set(wildcard ? [] : requested);
    const removed = [...sub.names].filter((n) => !wanted.has(n));
    const added = [...wanted].filter((n) => !sub.names.has(n));
    if (added.length === 0 && removed.length === 0) return true;
    return this.rename(sub, added, removed);
  }

  private respond(sub: TypeSubscription, force: boolean): void {
    const resources: AdsResource[] = [];
    if (sub.wildcard) resources.push(...this.deps.ads.resources(this.gateway!, sub.typeUrl).values());
    else {
      for (const n of [...sub.names].sort()) {
        const r = this.lookup(sub, n);
        if (r) resources.push(r);
      }
    }
    const same =
      resources.length === sub.versions.size &&
      resources.every((r) => sub.versions.get(r.name) === r.version);
    if (same && !force) return;
    sub.versions.clear();
    let fold = 0n;
    for (const r of resources) {
      sub.versions.set(r.name, r.version);
      fold ^= r.digest;
    }
    const version = foldVersion(fold);
    this.send(sub, version, resources, (nonce) => encodeSotwResponse(version, nonce, resources, sub.typeUrl));
  }
}
