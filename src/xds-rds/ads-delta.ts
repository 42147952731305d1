import { isWildcardType } from '../model/ambient/xds.ts';
import type { AdsResource } from './ads-encode.ts';
import { ACK_SCOPES, AdsStreamBase, type TypeSubscription } from './ads-stream-base.ts';
import { encodeDeltaResponse } from './responses.ts';
import type { DeltaRequest } from './stream-types.ts';

/** Our versions are 16 hex characters; a client's longer one is kept as '' (differs from every version of ours). */
const MAX_KEPT_VERSION = 64;

/**
 * DeltaAggregatedResources (incremental xDS) for one waypoint proxy
 * (https://www.envoyproxy.io/docs/envoy/latest/api-docs/xds_protocol#incremental-xds), per type URL:
 * - LDS and CDS: the first request with no names, or `*` among `resource_names_subscribe`, subscribes to every
 *   resource ("wildcard"); `*` among `resource_names_unsubscribe` ends that; EDS and the routes are named;
 * - `initial_resource_versions` of the type's first request: what the client has; unchanged resources are not
 *   resent, and those the Gateway no longer serves go out as `removed_resources`;
 * - subscribe/unsubscribe are honoured on every request; a request carrying the type's last nonce ACKs or NACKs it;
 *   an older nonce settles only the resources its response carried (each delta response is answered on its own);
 * - the first request of a type is always answered; later, a response carries only the resources whose version
 *   the client does not have and `removed_resources` for those gone (go-control-plane 2b88c16,
 *   pkg/server/delta/v3/server.go and pkg/cache/v3/delta.go answer the same way).
 */
export class AdsDeltaStream extends AdsStreamBase {
  protected protocol(): 'delta' {
    return 'delta';
  }

  handleRequest(req: DeltaRequest): void {
    const sub = this.accept(req);
    if (!sub) return;
    const first = !sub.started;
    sub.started = true;
    if (req.responseNonce !== '' && req.responseNonce === sub.lastNonce) {
      this.answered(sub, req.responseNonce, req.errorDetail);
    } else if (req.responseNonce !== '') {
      this.deps.metrics.staleNonces++;
      if (req.errorDetail) this.acks?.nack(req.responseNonce, req.errorDetail.message);
      else this.acks?.ack(req.responseNonce);
    }
    const added = this.subscribe(sub, req, first);
    if (added === undefined) return;
    if (first) this.declare(sub, req.initialResourceVersions);
    const candidates = sub.wildcard && (first || added.includes('*')) ? this.everything(sub) : added;
    this.deliver(sub, candidates, first);
  }

  protected push(sub: TypeSubscription, changed: readonly string[]): void {
    this.deliver(sub, changed, false);
  }

  /** Applies the request's lists; the names added (with `*` when the wildcard was turned on), undefined if refused. */
  private subscribe(sub: TypeSubscription, req: DeltaRequest, first: boolean): string[] | undefined {
    const wildcardType = isWildcardType(sub.typeUrl);
    const on = wildcardType && (req.subscribe.includes('*') || (first && req.subscribe.length === 0));
    const off = req.unsubscribe.includes('*');
    const turnedOn = on && !sub.wildcard;
    if (on) this.setWildcard(sub, true);
    else if (off) this.setWildcard(sub, false);
    const removed = [...new Set(req.unsubscribe)].filter((n) => n !== '*' && sub.names.has(n));
    const added = [...new Set(req.subscribe)].filter((n) => n !== '*' && !sub.names.has(n));
    if ((added.length > 0 || removed.length > 0) && !this.rename(sub, added, removed)) return undefined;
    if (off && !sub.wildcard) {
      for (const n of [...sub.versions.keys()]) {
        if (sub.names.has(n)) continue;
        sub.versions.delete(n);
        this.acks?.forget(n, ACK_SCOPES[sub.typeUrl]);
      }
    }
    return turnedOn ? [...added, '*'] : added;
  }

  private declare(sub: TypeSubscription, initial: Readonly<Record<string, string>>): void {
    for (const [n, v] of Object.entries(initial)) {
      if (sub.wildcard || sub.names.has(n)) sub.versions.set(n, v.length <= MAX_KEPT_VERSION ? v : '');
    }
  }

  /** Every name the subscription may hold: the Gateway's resources of the type, and what the client has. */
  private everything(sub: TypeSubscription): string[] {
    return [
      ...new Set([...this.deps.ads.resources(this.gateway!, sub.typeUrl).keys(), ...sub.versions.keys()]),
    ];
  }

  private deliver(sub: TypeSubscription, candidates: readonly string[], force: boolean): void {
    const scope = ACK_SCOPES[sub.typeUrl];
    const resources: AdsResource[] = [];
    const removed: string[] = [];
    for (const n of [...new Set(candidates)].sort()) {
      if (n === '*' || !(sub.wildcard || sub.names.has(n))) continue;
      const r = this.lookup(sub, n);
      const has = sub.versions.get(n);
      if (r && has !== r.version) resources.push(r);
      else if (!r && has !== undefined) removed.push(n);
      else if (r) this.acks?.has(n, r.version, scope);
    }
    if (resources.length === 0 && removed.length === 0 && !force) return;
    for (const r of resources) sub.versions.set(r.name, r.version);
    for (const n of removed) {
      sub.versions.delete(n);
      this.acks?.forget(n, scope);
    }
    const version = this.deps.ads.version(this.gateway!, sub.typeUrl);
    this.send(
      sub,
      version,
      resources,
      (nonce) => encodeDeltaResponse(version, nonce, resources, removed, sub.typeUrl),
      removed.length,
    );
  }
}
