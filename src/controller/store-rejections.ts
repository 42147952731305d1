/**
 * The rejections the ConfigStore records (store.ts `reject`) and what they hold: the normalised hosts and the
 * Gateways (`<namespace>/<name>`) whose output generation keeps while an object binding them is invalid with no
 * valid version. store.ts's header says which rejection holds what, and why; this is its bookkeeping: the
 * rejections by key and the held index, rebuilt lazily after a change (`invalidate`).
 */
import { compareStrings } from '../model/order.ts';
import { bindsHosts } from '../model/bound-hosts.ts';
import type { RejectedObject } from '../model/parse/objects.ts';
import type { ObjectRef } from '../model/result.ts';

/** What the rejections read of the store. */
export interface RejectionsView {
  /** The object has a valid version stored. */
  hasValid(ref: ObjectRef): boolean;
  /** Some valid MetaRouter binds the Gateway `<namespace>/<name>`. */
  gatewayBound(gateway: string): boolean;
  /** The normalised host of `host` written in `namespace`. */
  hostKey(host: string, namespace: string): string;
}

/** The key of an object's rejection (and of its owner, store.ts applyOwned): `<kind>/<namespace>/<name>`. */
export function rejectKey(kind: string, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

export class Rejections {
  private readonly byKey = new Map<string, RejectedObject>();
  /** Held host or Gateway → the rejections holding it; undefined = stale. */
  private held: HeldIndex | undefined;

  constructor(private readonly view: RejectionsView) {}

  get size(): number {
    return this.byKey.size;
  }

  /** What is held may have changed (a valid version appeared or left, or the Gateways valid MetaRouters bind moved). */
  invalidate(): void {
    this.held = undefined;
  }

  /** Records `rejection` under its key; true when that changed what it holds (the store then emits `held`). */
  record(rejection: RejectedObject): boolean {
    const { kind, namespace, name } = rejection.ref;
    const key = rejectKey(kind, namespace, name);
    const before = this.holdingKeys(this.byKey.get(key));
    this.byKey.set(key, rejection);
    const after = this.holdingKeys(rejection);
    if (before.join('\n') === after.join('\n')) return false;
    this.held = undefined;
    return true;
  }

  /** Drops a rejection; returns true when it was binding hosts or Gateways with no valid version (holdingKeys). */
  clear(key: string): boolean {
    const r = this.byKey.get(key);
    if (r === undefined) return false;
    const holding = this.holdingKeys(r).length > 0;
    this.byKey.delete(key);
    if (holding) this.held = undefined;
    return holding;
  }

  /** The keys and rejections recorded now (a copy: `clear` may be called while iterating). */
  entries(): [string, RejectedObject][] {
    return [...this.byKey];
  }

  /** Rejected objects, ordered by kind, namespace, name. */
  sorted(): RejectedObject[] {
    return [...this.byKey.entries()].sort(([a], [b]) => compareStrings(a, b)).map(([, r]) => r);
  }

  heldHosts(): readonly { readonly host: string; readonly by: readonly ObjectRef[] }[] {
    return [...this.heldIndex().hosts]
      .sort(([a], [b]) => compareStrings(a, b))
      .map(([host, by]) => ({ host, by }));
  }

  heldGateways(): readonly { readonly gateway: string; readonly by: readonly ObjectRef[] }[] {
    return [...this.heldIndex().gateways]
      .sort(([a], [b]) => compareStrings(a, b))
      .map(([gateway, by]) => ({ gateway, by }));
  }

  /** The rejections holding the normalised host `key`, for the ServiceEntries of `namespace` (their own only). */
  hostHolders(key: string, namespace: string): readonly ObjectRef[] {
    if (this.byKey.size === 0) return NO_REFS;
    const own = this.heldIndex()
      .hosts.get(key)
      ?.filter((r) => r.namespace === namespace);
    return own !== undefined && own.length > 0 ? own : NO_REFS;
  }

  /** The rejections holding the Gateway `<namespace>/<name>`. */
  gatewayHolders(gateway: string): readonly ObjectRef[] {
    if (this.byKey.size === 0) return NO_REFS;
    return this.heldIndex().gateways.get(gateway) ?? NO_REFS;
  }

  /**
   * True when `r` can hold anything: it binds hosts (its kind does, or it was rejected with the hosts its kind
   * configures: a Secret it names cannot serve it, controller/kube/secrets.ts) and its object has no valid version.
   */
  private isHolding(r: RejectedObject | undefined): r is RejectedObject {
    if (r === undefined || (!bindsHosts(r.ref.kind) && !r.hosts?.length)) return false;
    return !this.view.hasValid(r.ref);
  }

  /**
   * The normalised hosts a rejection holds (for the ServiceEntries of its own namespace: hostHolders): none when it
   * binds none, its object has a valid version, or it is a MetaRouter (its contribution is its routes).
   */
  private holdingHosts(r: RejectedObject | undefined): string[] {
    if (!this.isHolding(r) || r.ref.kind === 'MetaRouter' || !r.hosts || r.hosts.length === 0) return [];
    return this.hostKeys(r.hosts, r.ref.namespace);
  }

  /**
   * The Gateways a rejection holds (`<namespace>/<name>`): those it binds in its own namespace, and those of another
   * namespace that no valid MetaRouter binds (the store invalidates the held index when that changes).
   */
  private holdingGateways(r: RejectedObject | undefined): readonly string[] {
    if (!this.isHolding(r) || !r.gateways) return [];
    const own = `${r.ref.namespace}/`;
    return r.gateways.filter((g) => g.startsWith(own) || !this.view.gatewayBound(g));
  }

  /**
   * What a rejection with no valid version binds, for change detection: its hosts, then its Gateways, whether it
   * holds them or not (a MetaRouter's `held` event still tells status and routes that it appeared or left).
   */
  private holdingKeys(r: RejectedObject | undefined): string[] {
    if (!this.isHolding(r)) return [];
    const hosts = r.hosts && r.hosts.length > 0 ? this.hostKeys(r.hosts, r.ref.namespace) : [];
    return [...hosts, ...(r.gateways ?? []).map((g) => `gateway ${g}`)];
  }

  private hostKeys(hosts: readonly string[], namespace: string): string[] {
    return hosts.map((h) => this.view.hostKey(h, namespace));
  }

  private heldIndex(): HeldIndex {
    if (this.held) return this.held;
    const held: HeldIndex = { hosts: new Map(), gateways: new Map() };
    for (const r of this.sorted()) {
      addHolder(held.hosts, this.holdingHosts(r), r.ref);
      addHolder(held.gateways, this.holdingGateways(r), r.ref);
    }
    this.held = held;
    return held;
  }
}

const NO_REFS: readonly ObjectRef[] = Object.freeze([]);

/** What rejections hold: normalised hosts and Gateways (`<namespace>/<name>`), each with the rejections holding it. */
interface HeldIndex {
  readonly hosts: Map<string, ObjectRef[]>;
  readonly gateways: Map<string, ObjectRef[]>;
}

function addHolder(index: Map<string, ObjectRef[]>, keys: readonly string[], ref: ObjectRef): void {
  for (const key of new Set(keys)) {
    const by = index.get(key);
    if (by) by.push(ref);
    else index.set(key, [ref]);
  }
}
