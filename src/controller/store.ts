/**
 * The single place that knows what exists: typed config objects by kind and namespace/name, with host, gateway
 * and codec indexes, and the plugins' lookup indexes (model/kinds.ts, built on first use), maintained incrementally
 * on every change, so every ConfigView lookup is O(1) in the number of objects. Events are delivered
 * synchronously to subscribers after the change is applied.
 * Kubernetes Services (converted, kind `Service`) are a kind of their own, so a Service and a ServiceEntry of the
 * same namespace/name never replace each other; serviceEntries() returns both.
 *
 * Last known good (DESIGN habit 2): a rejection never removes a valid version. `reject` records it beside the
 * stored object, and `replaceKind` (and `applyKindChanges`, its keyed counterpart) keeps the stored version of
 * every object it is given as rejected, so routes, rate limits and filters derived from it do not change until a
 * valid version arrives or the object is deleted.
 * Holding stays inside its owner's reach (DESIGN habit 17: an invalid object holds only what it contributes). A
 * rejected VirtualService or DestinationRule with no valid version holds the hosts it binds (heldHosts), but only
 * for the ServiceEntries of its own namespace (isHostHeld, hostHolders): their Dubbo and Thrift filters embed its
 * routes and subsets, whose last good version only the output written before knows, so generation keeps that
 * output; so does an object of another kind rejected with the hosts it configures (`reject` given `hosts`, e.g. a
 * Redis object whose Secret cannot serve it), for its own namespace too. A rejected MetaRouter with no valid version
 * holds the Gateways it binds in its own namespace (isGatewayHeld, heldGateways), whose output is its gateway
 * filter, and a Gateway of another namespace only while no valid MetaRouter binds that Gateway (its output is then
 * the invalid ones' contribution alone, so keeping it freezes nobody else's; the first valid MetaRouter bound to it
 * ends that hold). It never holds a host: what it contributes to a ServiceEntry is its RDS routes, and with no
 * valid version this process never served any of them (see xds-rds/routes.ts), so the ServiceEntry is rendered and
 * routed as if it were absent. Apart from such a Gateway, nothing rejected in one namespace holds anything of
 * another.
 *
 * Owned objects (`applyOwned`): a source of its own (the registry bridges) owns the keys it puts in; while a key is
 * owned, upsert, delete, reject, replaceKind and applyKindChanges from every other source leave it alone. So a
 * registry ServiceEntry that also comes back through the Kubernetes or MCP source (written by this controller,
 * served to istiod) is neither doubled nor replaced by its echo: the bridge's version is the one in effect until the
 * bridge removes it (releases() counts those removals).
 */
import { BUILTIN_CODECS, CLUSTER_DOMAIN } from '../model/constants.ts';
import { DEFAULT_MESH_CONFIG } from '../model/mesh.ts';
import { normalizeHost } from '../model/names.ts';
import type {
  ApplicationProtocol,
  ConfigKind,
  ConfigObject,
  Gateway,
  MeshConfig,
  MetaRouter,
  ServiceEntry,
} from '../model/objects.ts';
import { configKinds } from '../model/objects.ts';
import { bindsHosts } from '../model/bound-hosts.ts';
import type { RejectedObject } from '../model/parse/objects.ts';
import type { ConfigIssue, ObjectRef } from '../model/result.ts';
import type { KindIndex, KindSpec, ObjectOfKind } from '../model/kinds.ts';
import type { ConfigEvent, ConfigView, HostConfig } from '../model/view.ts';
import type { AmbientNamespace } from '../model/ambient/binding.ts';
import type { AmbientView } from '../model/ambient/view.ts';
import type { WaypointIndex } from '../model/ambient/waypoint.ts';
import { AmbientState, NO_WAYPOINTS, type AmbientTarget, type AmbientWrites } from './store-ambient.ts';
import { stableStringify } from '../util/json.ts';
import { fingerprint, gatewaysMoved } from './store-compare.ts';
import { EndpointPortIndex, type SlicePorts } from './endpoint-ports.ts';
import { applyKeyChanges, type KeyChange } from './store-changes.ts';
import { Rejections, rejectKey } from './store-rejections.ts';
import {
  compareByName,
  compareOldestFirst,
  HostIndex,
  MultiIndex,
  objectKey,
  type KeyedIndex,
} from './store-index.ts';

type ObjectOf<K extends ConfigKind> = Extract<ConfigObject, { kind: K }>;

export type { RejectedObject } from '../model/parse/objects.ts';
export type { KeyChange } from './store-changes.ts';

export class ConfigStore implements ConfigView, AmbientView, AmbientTarget {
  readonly rootNamespace: string;
  /** The domain short hosts are completed with (`--cluster-domain`). */
  readonly clusterDomain: string;
  /** The plugins' kinds (plugins/registry.ts), which the sources filling the store read besides the core's. */
  readonly kinds: readonly KindSpec[];
  /** Every kind read: the core's and the plugins' (model/objects.ts configKinds). */
  readonly configKinds: readonly ConfigKind[];
  private meshConfig: MeshConfig;
  private readonly byKind = new Map<ConfigKind, Map<string, ConfigObject>>();
  private readonly sorted = new Map<ConfigKind, readonly ConfigObject[]>();
  private entries: readonly ServiceEntry[] | undefined;
  private readonly hosts = new HostIndex();
  private readonly vsByHost = this.hosts.of('virtualServices');
  private readonly drByHost = this.hosts.of('destinationRules');
  private readonly mrByHost = this.hosts.of('metaRouters');
  private readonly mrByGateway = new MultiIndex<MetaRouter>(compareByName);
  private readonly apByProtocol = new MultiIndex<ApplicationProtocol>(compareOldestFirst);
  /** The plugins' lookup indexes asked for so far (ConfigView.indexed), by index name and by kind. */
  private readonly kindIndexes = new Map<string, BuiltIndex>();
  private readonly kindIndexesOf = new Map<string, BuiltIndex[]>();
  /** The rejections recorded and what they hold (store-rejections.ts). */
  private readonly rejects = new Rejections({
    hasValid: (r) => this.get(r.kind as ConfigKind, r.namespace, r.name) !== undefined,
    gatewayBound: (g) => this.mrByGateway.all(g).length > 0,
    hostKey: (h, namespace) => normalizeHost(h, namespace, this.clusterDomain),
  });
  private readonly listeners = new Set<(e: ConfigEvent) => void>();
  /** `<kind>/<namespace>/<name>` → the source owning that key (applyOwned). */
  private readonly owners = new Map<string, string>();
  /** Per kind, how many owned keys were released (applyOwned removals). */
  private readonly released = new Map<string, number>();
  /** The EndpointSlices' ports, once a source reads them (readsEndpointPorts); undefined: not read here. */
  private endpointIndex: EndpointPortIndex | undefined;
  /** Ambient inputs, once a source reads them (readsAmbient, store-ambient.ts); undefined: not read here. */
  private ambient: AmbientState | undefined;

  /** Stamps every event's `at` (convergence metrics); without it events carry no time. */
  private readonly now: (() => number) | undefined;

  constructor(opts: {
    rootNamespace: string;
    mesh?: MeshConfig;
    clusterDomain?: string;
    /** The plugins' kinds (default none: objects of other kinds are stored, but sources do not read them). */
    kinds?: readonly KindSpec[];
    /** The clock stamping events' `at` (default: not stamped). */
    now?: () => number;
  }) {
    this.rootNamespace = opts.rootNamespace;
    this.now = opts.now;
    this.clusterDomain = opts.clusterDomain ?? CLUSTER_DOMAIN;
    this.meshConfig = opts.mesh ?? { ...DEFAULT_MESH_CONFIG, rootNamespace: opts.rootNamespace };
    this.kinds = opts.kinds ?? [];
    this.configKinds = configKinds(this.kinds);
    for (const kind of this.configKinds) this.byKind.set(kind, new Map());
  }

  // ------------------------------------------------------------------ writes

  /**
   * Adds or replaces an object. Returns true (and emits added/updated) unless an identical object is stored or
   * another source owns its key (applyOwned).
   */
  upsert(obj: ConfigObject): boolean {
    if (this.isOwned(obj.kind, obj.metadata.namespace, obj.metadata.name)) return false;
    return this.put(obj);
  }

  /**
   * The objects of a source of its own: `upserts` are stored and owned by `source`, `removals` (owned by `source`)
   * are deleted and released. A key owned by another source is left alone. Events as for upsert and delete.
   */
  applyOwned(source: string, upserts: readonly ConfigObject[], removals: readonly ObjectRef[]): void {
    for (const r of removals) {
      const key = rejectKey(r.kind, r.namespace, r.name);
      if (this.owners.get(key) !== source) continue;
      this.owners.delete(key);
      this.released.set(r.kind, this.releases(r.kind) + 1);
      this.remove(r.kind as ConfigKind, r.namespace, r.name);
    }
    for (const o of upserts) {
      const key = rejectKey(o.kind, o.metadata.namespace, o.metadata.name);
      const owner = this.owners.get(key);
      if (owner !== undefined && owner !== source) continue;
      this.owners.set(key, source);
      this.put(o);
    }
  }

  /**
   * How many owned keys of `kind` were released so far (a count that only grows). A full-state source applying
   * keyed changes (applyKindChanges) replaces the kind in full when it moved: a released key leaves the store,
   * and only a full replacement would bring back that source's own version of it.
   */
  releases(kind: string): number {
    return this.released.get(kind) ?? 0;
  }

  private isOwned(kind: string, namespace: string, name: string): boolean {
    return this.owners.size > 0 && this.owners.has(rejectKey(kind, namespace, name));
  }

  private put(obj: ConfigObject): boolean {
    const key = objectKey(obj.metadata.namespace, obj.metadata.name);
    const released =
      this.rejects.size > 0 &&
      this.rejects.clear(rejectKey(obj.kind, obj.metadata.namespace, obj.metadata.name));
    const objects = this.objectsOf(obj.kind);
    const old = objects.get(key);
    if (old !== undefined && (old === obj || fingerprint(old) === fingerprint(obj))) return false;
    if (old !== undefined) this.unindex(old);
    objects.set(key, obj);
    this.index(obj);
    this.changed(obj.kind);
    // A valid version appeared (its rejection holds no more), or the Gateways valid MetaRouters bind moved.
    if ((old === undefined && bindsHosts(obj.kind)) || gatewaysMoved(old, obj)) this.rejects.invalidate();
    // A kind that binds no host held the hosts it configures (reject given hosts): say that they are released.
    if (released && !bindsHosts(obj.kind)) {
      this.emit({ type: 'held', kind: obj.kind, namespace: obj.metadata.namespace, name: obj.metadata.name });
    }
    if (this.listeners.size === 0) return true; // nobody to tell: skip building the event
    const { namespace, name } = obj.metadata;
    this.emit(
      old === undefined
        ? { type: 'added', kind: obj.kind, namespace, name, object: obj }
        : { type: 'updated', kind: obj.kind, namespace, name, old, object: obj },
    );
    return true;
  }

  /**
   * Removes an object (and any rejection recorded for it). Returns true (and emits deleted) if it was stored;
   * when only a rejection holding hosts was recorded, emits `held` (the hosts are released) and returns false.
   * An owned key (applyOwned) is left alone.
   */
  delete(kind: ConfigKind, namespace: string, name: string): boolean {
    if (this.isOwned(kind, namespace, name)) return false;
    return this.remove(kind, namespace, name);
  }

  private remove(kind: ConfigKind, namespace: string, name: string): boolean {
    const released = this.rejects.clear(rejectKey(kind, namespace, name));
    const objects = this.objectsOf(kind);
    const key = objectKey(namespace, name);
    const old = objects.get(key);
    if (old === undefined) {
      if (released) this.emit({ type: 'held', kind, namespace, name });
      return false;
    }
    objects.delete(key);
    this.unindex(old);
    this.changed(kind);
    if (bindsHosts(kind)) this.rejects.invalidate();
    this.emit({ type: 'deleted', kind, namespace, name, old });
    return true;
  }

  /**
   * Full-state replacement of one kind: objects neither in `objects` nor in `rejected` are deleted, the others
   * upserted; events only for real changes. When `rejected` is given it replaces the recorded rejections of that
   * kind, and the stored (last valid) version of a rejected object is kept.
   */
  replaceKind(
    kind: ConfigKind,
    objects: readonly ConfigObject[],
    rejected?: readonly RejectedObject[],
  ): void {
    const stored = this.objectsOf(kind);
    for (const o of objects) {
      if (o.kind !== kind) throw new Error(`replaceKind(${kind}) given a ${o.kind}`);
    }
    // Nothing stored yet (the first full answer): nothing to delete, no keys to collect.
    if (stored.size > 0) {
      const keep = new Set<string>();
      for (const o of objects) keep.add(objectKey(o.metadata.namespace, o.metadata.name));
      for (const r of rejected ?? []) keep.add(objectKey(r.ref.namespace, r.ref.name));
      for (const old of [...stored.values()]) {
        if (!keep.has(objectKey(old.metadata.namespace, old.metadata.name))) {
          this.delete(kind, old.metadata.namespace, old.metadata.name);
        }
      }
    }
    for (const o of objects) this.upsert(o);
    if (rejected) {
      const now = new Set(rejected.map((r) => rejectKey(r.ref.kind, r.ref.namespace, r.ref.name)));
      for (const [k, r] of this.rejects.entries()) {
        if (r.ref.kind === kind && !now.has(k) && this.rejects.clear(k))
          this.emit({ type: 'held', kind, namespace: r.ref.namespace, name: r.ref.name });
      }
      for (const r of rejected) this.reject(r.ref, r.issues, r.hosts, r.gateways);
    }
  }

  /**
   * The keyed counterpart of replaceKind (store-changes.ts): each change is what one namespace/name of `kind` now
   * is at a full-state source, with the effect a replaceKind of that whole state has on that key. Keys not named
   * are left as they are. Owned keys are left alone.
   */
  applyKindChanges(kind: ConfigKind, changes: readonly KeyChange[]): void {
    applyKeyChanges(this, kind, changes);
  }

  /** Replaces the mesh config; emits `updated` (kind MeshConfig) when it changed. */
  setMesh(mesh: MeshConfig): void {
    if (stableStringify(mesh) === stableStringify(this.meshConfig)) return;
    const old = this.meshConfig;
    this.meshConfig = mesh;
    this.emit({
      type: 'updated',
      kind: 'MeshConfig',
      namespace: this.rootNamespace,
      name: 'istio',
      old,
      object: mesh,
    });
  }

  /**
   * Declares that a source reads EndpointSlices: from now on endpointPorts answers (empty until slices arrive)
   * instead of undefined. Called once by that source before its first slice.
   */
  readsEndpointPorts(): void {
    this.endpointIndex ??= new EndpointPortIndex();
  }

  /**
   * Records what EndpointSlice `namespace/slice` contributes (undefined: deleted); emits `updated` (kind
   * EndpointPorts, per Service) for each Service whose endpointPorts changed.
   */
  setSlicePorts(namespace: string, slice: string, value: SlicePorts | undefined): void {
    this.readsEndpointPorts();
    for (const service of this.endpointIndex!.set(namespace, slice, value)) {
      this.emit({ type: 'updated', kind: 'EndpointPorts', namespace, name: service });
    }
  }

  /**
   * Declares that a source reads ambient inputs (Namespaces, Gateway API Gateways and GatewayClasses,
   * store-ambient.ts) and returns where they go; AmbientView answers from them from now on. Events: store-ambient.ts.
   */
  readsAmbient(): AmbientWrites {
    this.ambient ??= new AmbientState((e) => this.emit(e));
    return this.ambient;
  }

  /**
   * Records that an object exists at the source but is invalid, with the hosts and Gateways it binds as written
   * (model/bound-hosts.ts). The stored valid version (if any) stays in effect and no event is emitted for it.
   * Without a valid version, a MetaRouter, VirtualService or DestinationRule holds its hosts (a MetaRouter its
   * Gateways too): emits `held` when that changes what is held. Cleared by a later upsert or delete of the same
   * object.
   */
  reject(
    ref: ObjectRef,
    issues: readonly ConfigIssue[],
    hosts: readonly string[] = [],
    gateways: readonly string[] = [],
  ): void {
    if (this.isOwned(ref.kind, ref.namespace, ref.name)) return;
    const rejection: RejectedObject = {
      ref,
      issues,
      ...(hosts.length > 0 ? { hosts } : {}),
      ...(gateways.length > 0 ? { gateways } : {}),
    };
    if (!this.rejects.record(rejection)) return;
    this.emit({ type: 'held', kind: ref.kind as ConfigKind, namespace: ref.namespace, name: ref.name });
  }

  /** Rejected objects, ordered by kind, namespace, name. */
  rejected(): readonly RejectedObject[] {
    return this.rejects.sorted();
  }

  /**
   * The held hosts (normalised), sorted, each with the rejected objects holding it (kind, namespace, name order);
   * each holds the host for the ServiceEntries of its own namespace only (hostHolders).
   */
  heldHosts(): readonly { readonly host: string; readonly by: readonly ObjectRef[] }[] {
    return this.rejects.heldHosts();
  }

  /** The held Gateways (`<namespace>/<name>`), sorted, each with the rejected MetaRouters holding it. */
  heldGateways(): readonly { readonly gateway: string; readonly by: readonly ObjectRef[] }[] {
    return this.rejects.heldGateways();
  }

  /** Subscribes to changes; events arrive synchronously after each change. Returns the unsubscribe function. */
  subscribe(listener: (e: ConfigEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  // ------------------------------------------------------------------ ConfigView

  mesh(): MeshConfig {
    return this.meshConfig;
  }

  endpointPorts(namespace: string, service: string): ReadonlyMap<string, readonly number[]> | undefined {
    return this.endpointIndex?.get(namespace, service);
  }

  ambientNamespace(name: string): AmbientNamespace | undefined {
    return this.ambient?.ambientNamespace(name);
  }

  /** The Gateways and GatewayClasses read (empty where ambient inputs are not read). */
  waypoints(): WaypointIndex {
    return this.ambient?.waypoints() ?? NO_WAYPOINTS;
  }

  list<K extends ConfigKind>(kind: K): readonly ObjectOf<K>[] {
    let out = this.sorted.get(kind);
    if (!out) {
      out = [...this.storedOf(kind).values()].sort(compareByName);
      this.sorted.set(kind, out);
    }
    return out as readonly ObjectOf<K>[];
  }

  get<K extends ConfigKind>(kind: K, namespace: string, name: string): ObjectOf<K> | undefined {
    return this.storedOf(kind).get(objectKey(namespace, name)) as ObjectOf<K> | undefined;
  }

  /** ServiceEntries and converted Kubernetes Services, by namespace, then name (a ServiceEntry before a Service). */
  serviceEntries(): readonly ServiceEntry[] {
    this.entries ??= [...this.list('ServiceEntry'), ...this.list('Service')].sort(compareByName);
    return this.entries;
  }

  gateways(): readonly Gateway[] {
    return this.list('Gateway');
  }

  configForHost(host: string, namespace: string): HostConfig {
    const entry = this.hosts.get(normalizeHost(host, namespace, this.clusterDomain));
    if (entry === undefined) return NOTHING_FOR_HOST;
    return {
      virtualService: entry.virtualServices[0],
      destinationRule: entry.destinationRules[0],
      metaRouter: entry.metaRouters[0],
    };
  }

  metaRoutersForGateway(gatewayNamespace: string, gatewayName: string): readonly MetaRouter[] {
    return this.mrByGateway.all(objectKey(gatewayNamespace, gatewayName));
  }

  indexed<K extends ConfigKind>(index: KindIndex<K>, key: string): readonly ObjectOfKind<K>[] {
    const built = this.kindIndexes.get(index.name) ?? this.buildIndex(index as unknown as KindIndex);
    return built.buckets.all(key) as readonly ObjectOfKind<K>[];
  }

  /**
   * The keys `o` is filed under in the lookup indexes built so far, each as `[index name, key]`: what a change of
   * `o` changes for incremental generation (kit/incremental/dependencies.ts).
   */
  indexKeysOf(o: ConfigObject): readonly (readonly [string, string])[] {
    const built = this.kindIndexesOf.get(o.kind);
    if (built === undefined) return NO_INDEX_KEYS;
    const out: [string, string][] = [];
    for (const b of built) for (const key of b.index.keysOf(o)) out.push([b.index.name, key]);
    return out;
  }

  codecFor(applicationProtocol: string): string | undefined {
    if (Object.hasOwn(BUILTIN_CODECS, applicationProtocol)) return BUILTIN_CODECS[applicationProtocol];
    return this.apByProtocol.first(applicationProtocol)?.spec.codec;
  }

  applicationProtocols(): readonly ApplicationProtocol[] {
    return this.list('ApplicationProtocol');
  }

  isHostHeld(host: string, namespace: string): boolean {
    return this.hostHolders(host, namespace).length > 0;
  }

  isGatewayHeld(namespace: string, name: string): boolean {
    return this.gatewayHolders(namespace, name).length > 0;
  }

  hostHolders(host: string, namespace: string): readonly ObjectRef[] {
    if (this.rejects.size === 0) return NO_REFS;
    // A holder holds the ServiceEntries of its own namespace only: never another owner's.
    return this.rejects.hostHolders(normalizeHost(host, namespace, this.clusterDomain), namespace);
  }

  gatewayHolders(namespace: string, name: string): readonly ObjectRef[] {
    return this.rejects.gatewayHolders(`${namespace}/${name}`);
  }

  // ------------------------------------------------------------------ internals

  /** Drops the sorted lists that depend on `kind`. */
  private changed(kind: ConfigKind): void {
    this.sorted.delete(kind);
    if (kind === 'ServiceEntry' || kind === 'Service') this.entries = undefined;
  }

  /** The objects of `kind` by namespace/name, to change them (a kind no plugin declared gets its map then). */
  private objectsOf(kind: ConfigKind): Map<string, ConfigObject> {
    let m = this.byKind.get(kind);
    if (!m) this.byKind.set(kind, (m = new Map<string, ConfigObject>()));
    return m;
  }

  /** The objects of `kind` by namespace/name, to read them (empty for a kind never stored). */
  private storedOf(kind: string): ReadonlyMap<string, ConfigObject> {
    return this.byKind.get(kind as ConfigKind) ?? NO_OBJECTS;
  }

  /** Builds `index` over the objects of its kind (first use) and keeps it up to date from now on. */
  private buildIndex(index: KindIndex): BuiltIndex {
    const built: BuiltIndex = { index, buckets: new MultiIndex<ConfigObject>(compareByName) };
    for (const obj of this.storedOf(index.kind).values()) update(built.buckets, index.keysOf(obj), obj, true);
    this.kindIndexes.set(index.name, built);
    const ofKind = this.kindIndexesOf.get(index.kind);
    if (ofKind) ofKind.push(built);
    else this.kindIndexesOf.set(index.kind, [built]);
    return built;
  }

  private index(obj: ConfigObject): void {
    this.indexAll(obj, true);
  }

  private unindex(obj: ConfigObject): void {
    this.indexAll(obj, false);
  }

  /** Adds (or removes) an object once per distinct (index, key) it belongs to. */
  private indexAll(obj: ConfigObject, add: boolean): void {
    const ns = obj.metadata.namespace;
    if (this.kindIndexesOf.size > 0) {
      for (const b of this.kindIndexesOf.get(obj.kind) ?? [])
        update(b.buckets, b.index.keysOf(obj), obj, add);
    }
    switch (obj.kind) {
      case 'VirtualService':
        update(this.vsByHost, this.hostKeys(obj.spec.hosts, ns), obj, add);
        break;
      case 'DestinationRule':
        if (obj.spec.host !== '') {
          update(this.drByHost, [normalizeHost(obj.spec.host, ns, this.clusterDomain)], obj, add);
        }
        break;
      case 'MetaRouter': {
        update(this.mrByHost, this.hostKeys(obj.spec.hosts, ns), obj, add);
        const gateways: string[] = [];
        for (const g of obj.spec.gateways) gateways.push(g.includes('/') ? g : objectKey(ns, g));
        update(this.mrByGateway, gateways, obj, add);
        break;
      }
      case 'ApplicationProtocol':
        if (obj.spec.protocol !== '') {
          update(this.apByProtocol, [obj.spec.protocol], obj, add);
        }
        break;
      default:
        break;
    }
  }

  private emit(e: ConfigEvent): void {
    const stamped: ConfigEvent = this.now ? { ...e, at: this.now() } : e;
    for (const l of [...this.listeners]) l(stamped);
  }

  private hostKeys(hosts: readonly string[], namespace: string): string[] {
    const out: string[] = [];
    for (const h of hosts) out.push(normalizeHost(h, namespace, this.clusterDomain));
    return out;
  }
}

/** A plugin's lookup index as the store keeps it. */
interface BuiltIndex {
  readonly index: KindIndex;
  readonly buckets: MultiIndex<ConfigObject>;
}

const NO_OBJECTS: ReadonlyMap<string, ConfigObject> = new Map();

const NO_INDEX_KEYS: readonly (readonly [string, string])[] = Object.freeze([]);

const NOTHING_FOR_HOST: HostConfig = Object.freeze({
  virtualService: undefined,
  destinationRule: undefined,
  metaRouter: undefined,
});

/** Adds or removes `obj` under each distinct key (in first-seen order, as before). */
function update(idx: KeyedIndex, keys: readonly string[], obj: ConfigObject, add: boolean): void {
  for (const k of keys.length > 1 ? new Set(keys) : keys) {
    if (add) idx.add(k, obj);
    else idx.remove(k, obj);
  }
}

const NO_REFS: readonly ObjectRef[] = Object.freeze([]);
