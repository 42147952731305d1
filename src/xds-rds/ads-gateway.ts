import { compareStrings } from '../model/order.ts';
import { LISTENER_TYPE, type ProtoJson, type ServiceContribution } from '../model/ambient/xds.ts';
import {
  assembleListener,
  encodeAdsResource,
  encodeChain,
  encodeTemplate,
  foldVersion,
  type AdsResource,
  type EncodedChain,
  type EncodedTemplate,
} from './ads-encode.ts';

/** Encoding work done (chains and other resources encoded), for tests and the benchmark. */
export interface AdsEncodeStats {
  chains: number;
  resources: number;
}

/** What one change did to a Gateway's served resources: (type URL -> names). */
export type Changed = Map<string, Set<string>>;

export function mark(changed: Changed, typeUrl: string, name: string): void {
  let set = changed.get(typeUrl);
  if (!set) changed.set(typeUrl, (set = new Set()));
  set.add(name);
}

/** One resource of a service, with the text it was encoded from (unchanged text is not encoded again). */
interface Owned {
  readonly text: string;
  readonly resource: AdsResource;
}

interface ServiceState {
  readonly chains: Map<string, EncodedChain>;
  /** `<type URL> <name>` -> resource. */
  readonly resources: Map<string, Owned & { readonly typeUrl: string }>;
}

/** Candidates of one key by service key; the first service key in string order wins (model/ambient/xds.ts). */
function winner<T>(owners: ReadonlyMap<string, T> | undefined): T | undefined {
  if (!owners || owners.size === 0) return undefined;
  let best: string | undefined;
  for (const k of owners.keys()) if (best === undefined || compareStrings(k, best) < 0) best = k;
  return owners.get(best!);
}

function setOwner<T>(
  index: Map<string, Map<string, T>>,
  key: string,
  service: string,
  v: T | undefined,
): void {
  let owners = index.get(key);
  if (v === undefined) {
    owners?.delete(service);
    if (owners?.size === 0) index.delete(key);
    return;
  }
  if (!owners) index.set(key, (owners = new Map<string, T>()));
  owners.set(service, v);
}

/** Inserts or removes `name` in the sorted `list` (binary search). */
function sortedSet(list: string[], name: string, present: boolean): void {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareStrings(list[mid]!, name) < 0) lo = mid + 1;
    else hi = mid;
  }
  const found = list[lo] === name;
  if (present && !found) list.splice(lo, 0, name);
  if (!present && found) list.splice(lo, 1);
}

/**
 * One Gateway's resources, kept per service (ServiceContribution) so that a change to one service re-encodes only
 * what that service changed: the Listener is its template plus every chain in chain-name order (assembled from
 * pre-encoded chains), the other types are the winners of their (type, name). Per type a version folds the digests
 * of its resources (as snapshot.ts does), as go-control-plane's snapshot keeps a version per type
 * (github.com/envoyproxy/go-control-plane 2b88c16, pkg/cache/v3/snapshot.go `GetVersion`).
 */
export class GatewayResources {
  template: EncodedTemplate | undefined;
  private listener: AdsResource | undefined;
  private readonly services = new Map<string, ServiceState>();
  private readonly chainOwners = new Map<string, Map<string, EncodedChain>>();
  private readonly chainOrder: string[] = [];
  private readonly owners = new Map<string, Map<string, AdsResource>>();
  /** type URL -> name -> the served resource (not the Listener). */
  private readonly served = new Map<string, Map<string, AdsResource>>();
  private readonly folds = new Map<string, bigint>();
  private chainsDirty = false;

  constructor(
    readonly key: string,
    private readonly onProblem: (service: string, message: string) => void,
    private readonly stats: AdsEncodeStats = { chains: 0, resources: 0 },
  ) {}

  /** Resources of a type (LISTENER_TYPE: the one Listener), by name. */
  resources(typeUrl: string): ReadonlyMap<string, AdsResource> {
    if (typeUrl === LISTENER_TYPE) {
      return this.listener ? new Map([[this.listener.name, this.listener]]) : new Map();
    }
    return this.served.get(typeUrl) ?? new Map();
  }

  resource(typeUrl: string, name: string): AdsResource | undefined {
    if (typeUrl === LISTENER_TYPE) return this.listener?.name === name ? this.listener : undefined;
    return this.served.get(typeUrl)?.get(name);
  }

  /** The fold of the digests of a type's resources, as a version. */
  version(typeUrl: string): string {
    if (typeUrl === LISTENER_TYPE) return this.listener?.version ?? foldVersion(0n);
    return foldVersion(this.folds.get(typeUrl) ?? 0n);
  }

  /** Every (type, name) served, for a change that makes the whole Gateway appear or disappear. */
  markAll(changed: Changed): void {
    if (this.listener) mark(changed, LISTENER_TYPE, this.listener.name);
    for (const [typeUrl, byName] of this.served)
      for (const name of byName.keys()) mark(changed, typeUrl, name);
  }

  setTemplate(json: ProtoJson): void {
    const text = JSON.stringify(json);
    if (this.template?.text === text) return;
    try {
      this.template = encodeTemplate(json, text, `gateway ${this.key} listener`);
    } catch (err) {
      this.onProblem('listener', (err as Error).message);
      return;
    }
    this.chainsDirty = true;
  }

  /** Replaces one service's contribution (undefined: removes it), marking what changed. */
  setService(service: string, contribution: ServiceContribution | undefined, changed: Changed): void {
    const old = this.services.get(service);
    const next: ServiceState = { chains: new Map(), resources: new Map() };
    for (const [i, json] of (contribution?.chains ?? []).entries()) {
      const at = `gateway ${this.key} service ${service} chains[${i}]`;
      const text = JSON.stringify(json);
      const name = typeof json['name'] === 'string' ? json['name'] : '';
      const previous = old?.chains.get(name);
      if (previous?.text === text) next.chains.set(name, previous);
      else {
        this.stats.chains++;
        this.tryEncode(service, () => next.chains.set(name, encodeChain(json, text, at)));
      }
    }
    for (const [i, r] of (contribution?.resources ?? []).entries()) {
      const key = `${r.typeUrl} ${r.name}`;
      const text = JSON.stringify(r.json);
      const previous = old?.resources.get(key);
      if (previous?.text === text) next.resources.set(key, previous);
      else {
        const at = `gateway ${this.key} service ${service} resources[${i}]`;
        this.stats.resources++;
        this.tryEncode(service, () =>
          next.resources.set(key, {
            typeUrl: r.typeUrl,
            text,
            resource: encodeAdsResource(r.typeUrl, r.name, r.json, at),
          }),
        );
      }
    }
    if (contribution) this.services.set(service, next);
    else this.services.delete(service);
    this.updateChains(service, old?.chains, next.chains);
    this.updateResources(service, old?.resources, next.resources, changed);
  }

  /** Rebuilds the Listener when a template or chain changed; marks it when it did. */
  finish(changed: Changed): void {
    if (!this.chainsDirty) return;
    this.chainsDirty = false;
    const before = this.listener;
    if (!this.template) this.listener = undefined;
    else {
      const chains = this.chainOrder.map((n) => winner(this.chainOwners.get(n))!);
      this.listener = assembleListener(this.template, chains);
    }
    if (before && before.name !== this.listener?.name) mark(changed, LISTENER_TYPE, before.name);
    if (this.listener && before?.version !== this.listener.version)
      mark(changed, LISTENER_TYPE, this.listener.name);
  }

  private tryEncode(service: string, encode: () => void): void {
    try {
      encode();
    } catch (err) {
      this.onProblem(service, (err as Error).message);
    }
  }

  private updateChains(
    service: string,
    old: ReadonlyMap<string, EncodedChain> | undefined,
    next: ReadonlyMap<string, EncodedChain>,
  ): void {
    const names = new Set([...(old?.keys() ?? []), ...next.keys()]);
    for (const name of names) {
      const before = old?.get(name);
      const after = next.get(name);
      if (before === after) continue;
      const owners = this.chainOwners.get(name);
      const was = winner(owners);
      setOwner(this.chainOwners, name, service, after);
      const now = winner(this.chainOwners.get(name));
      if (was === now) continue;
      this.chainsDirty = true;
      sortedSet(this.chainOrder, name, now !== undefined);
    }
  }

  private updateResources(
    service: string,
    old: ReadonlyMap<string, Owned & { typeUrl: string }> | undefined,
    next: ReadonlyMap<string, Owned & { typeUrl: string }>,
    changed: Changed,
  ): void {
    const keys = new Set([...(old?.keys() ?? []), ...next.keys()]);
    for (const key of keys) {
      const before = old?.get(key);
      const after = next.get(key);
      if (before === after) continue;
      const typeUrl = (before ?? after)!.typeUrl;
      const name = (before ?? after)!.resource.name;
      const was = winner(this.owners.get(key));
      setOwner(this.owners, key, service, after?.resource);
      const now = winner(this.owners.get(key));
      if (was === now) continue;
      let byName = this.served.get(typeUrl);
      if (!byName) this.served.set(typeUrl, (byName = new Map<string, AdsResource>()));
      if (now) byName.set(name, now);
      else byName.delete(name);
      if (byName.size === 0) this.served.delete(typeUrl);
      this.folds.set(typeUrl, (this.folds.get(typeUrl) ?? 0n) ^ (was?.digest ?? 0n) ^ (now?.digest ?? 0n));
      if (was?.version !== now?.version) mark(changed, typeUrl, name);
    }
  }
}
