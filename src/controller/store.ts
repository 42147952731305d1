/**
 * The single place that knows what exists: typed config objects by kind and namespace/name, with host,
 * gateway and codec indexes maintained incrementally on every change, so every ConfigView lookup is O(1) in
 * the number of objects. Events are delivered synchronously to subscribers after the change is applied.
 */
import { BUILTIN_CODECS } from '../model/constants.ts';
import { DEFAULT_MESH_CONFIG } from '../model/mesh.ts';
import { normalizeHost } from '../model/names.ts';
import type {
  ApplicationProtocol,
  ConfigKind,
  ConfigObject,
  DestinationRule,
  Gateway,
  MeshConfig,
  MetaRouter,
  ServiceEntry,
  VirtualService,
} from '../model/objects.ts';
import { CONFIG_KINDS } from '../model/objects.ts';
import type { ConfigIssue, ObjectRef } from '../model/result.ts';
import type { ConfigEvent, ConfigView } from '../model/view.ts';
import { stableStringify } from '../util/json.ts';
import { compareByName, compareOldestFirst, MultiIndex, objectKey } from './store-index.ts';

type ObjectOf<K extends ConfigKind> = Extract<ConfigObject, { kind: K }>;

/** An object a source saw but could not accept, with the reasons. */
export interface RejectedObject {
  readonly ref: ObjectRef;
  readonly issues: readonly ConfigIssue[];
}

export class ConfigStore implements ConfigView {
  readonly rootNamespace: string;
  private meshConfig: MeshConfig;
  private readonly byKind = new Map<ConfigKind, Map<string, ConfigObject>>();
  private readonly sorted = new Map<ConfigKind, readonly ConfigObject[]>();
  private readonly vsByHost = new MultiIndex<VirtualService>(compareOldestFirst);
  private readonly drByHost = new MultiIndex<DestinationRule>(compareOldestFirst);
  private readonly mrByHost = new MultiIndex<MetaRouter>(compareOldestFirst);
  private readonly mrByGateway = new MultiIndex<MetaRouter>(compareByName);
  private readonly apByProtocol = new MultiIndex<ApplicationProtocol>(compareOldestFirst);
  private readonly rejects = new Map<string, RejectedObject>();
  private readonly listeners = new Set<(e: ConfigEvent) => void>();

  constructor(opts: { rootNamespace: string; mesh?: MeshConfig }) {
    this.rootNamespace = opts.rootNamespace;
    this.meshConfig = opts.mesh ?? { ...DEFAULT_MESH_CONFIG, rootNamespace: opts.rootNamespace };
    for (const kind of CONFIG_KINDS) this.byKind.set(kind, new Map());
  }

  // ------------------------------------------------------------------ writes

  /** Adds or replaces an object. Returns true (and emits added/updated) unless an identical object is stored. */
  upsert(obj: ConfigObject): boolean {
    const key = objectKey(obj.metadata.namespace, obj.metadata.name);
    this.rejects.delete(rejectKey(obj.kind, obj.metadata.namespace, obj.metadata.name));
    const objects = this.objectsOf(obj.kind);
    const old = objects.get(key);
    if (old !== undefined && (old === obj || fingerprint(old) === fingerprint(obj))) return false;
    if (old !== undefined) this.unindex(old);
    objects.set(key, obj);
    this.index(obj);
    this.sorted.delete(obj.kind);
    const { namespace, name } = obj.metadata;
    this.emit(
      old === undefined
        ? { type: 'added', kind: obj.kind, namespace, name, object: obj }
        : { type: 'updated', kind: obj.kind, namespace, name, old, object: obj },
    );
    return true;
  }

  /** Removes an object (and any rejection recorded for it). Returns true (and emits deleted) if it was stored. */
  delete(kind: ConfigKind, namespace: string, name: string): boolean {
    this.rejects.delete(rejectKey(kind, namespace, name));
    const objects = this.objectsOf(kind);
    const key = objectKey(namespace, name);
    const old = objects.get(key);
    if (old === undefined) return false;
    objects.delete(key);
    this.unindex(old);
    this.sorted.delete(kind);
    this.emit({ type: 'deleted', kind, namespace, name, old });
    return true;
  }

  /**
   * Full-state replacement of one kind: objects not in `objects` are deleted, the others upserted; events only
   * for real changes. When `rejected` is given it replaces the recorded rejections of that kind.
   */
  replaceKind(
    kind: ConfigKind,
    objects: readonly ConfigObject[],
    rejected?: readonly RejectedObject[],
  ): void {
    const keep = new Set<string>();
    for (const o of objects) {
      if (o.kind !== kind) throw new Error(`replaceKind(${kind}) given a ${o.kind}`);
      keep.add(objectKey(o.metadata.namespace, o.metadata.name));
    }
    for (const old of [...this.objectsOf(kind).values()]) {
      if (!keep.has(objectKey(old.metadata.namespace, old.metadata.name))) {
        this.delete(kind, old.metadata.namespace, old.metadata.name);
      }
    }
    for (const o of objects) this.upsert(o);
    if (rejected) {
      for (const [k, r] of [...this.rejects]) if (r.ref.kind === kind) this.rejects.delete(k);
      for (const r of rejected) this.reject(r.ref, r.issues);
    }
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
   * Records that an object exists at the source but is invalid. The stored valid version (if any) is left alone:
   * the caller decides whether to delete it. Cleared by a later upsert or delete of the same object.
   */
  reject(ref: ObjectRef, issues: readonly ConfigIssue[]): void {
    this.rejects.set(rejectKey(ref.kind, ref.namespace, ref.name), { ref, issues });
  }

  /** Rejected objects, ordered by kind, namespace, name. */
  rejected(): readonly RejectedObject[] {
    return [...this.rejects.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
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

  list<K extends ConfigKind>(kind: K): readonly ObjectOf<K>[] {
    let out = this.sorted.get(kind);
    if (!out) {
      out = Object.freeze([...this.objectsOf(kind).values()].sort(compareByName));
      this.sorted.set(kind, out);
    }
    return out as readonly ObjectOf<K>[];
  }

  get<K extends ConfigKind>(kind: K, namespace: string, name: string): ObjectOf<K> | undefined {
    return this.objectsOf(kind).get(objectKey(namespace, name)) as ObjectOf<K> | undefined;
  }

  serviceEntries(): readonly ServiceEntry[] {
    return this.list('ServiceEntry');
  }

  gateways(): readonly Gateway[] {
    return this.list('Gateway');
  }

  virtualServiceForHost(host: string, namespace: string): VirtualService | undefined {
    return this.vsByHost.first(normalizeHost(host, namespace));
  }

  destinationRuleForHost(host: string, namespace: string): DestinationRule | undefined {
    return this.drByHost.first(normalizeHost(host, namespace));
  }

  metaRouterForHost(host: string, namespace: string): MetaRouter | undefined {
    return this.mrByHost.first(normalizeHost(host, namespace));
  }

  metaRoutersForGateway(gatewayNamespace: string, gatewayName: string): readonly MetaRouter[] {
    return this.mrByGateway.all(objectKey(gatewayNamespace, gatewayName));
  }

  codecFor(applicationProtocol: string): string | undefined {
    if (Object.hasOwn(BUILTIN_CODECS, applicationProtocol)) return BUILTIN_CODECS[applicationProtocol];
    return this.apByProtocol.first(applicationProtocol)?.spec.codec;
  }

  applicationProtocols(): readonly ApplicationProtocol[] {
    return this.list('ApplicationProtocol');
  }

  // ------------------------------------------------------------------ internals

  private objectsOf(kind: ConfigKind): Map<string, ConfigObject> {
    const m = this.byKind.get(kind);
    if (!m) throw new Error(`unknown kind ${String(kind)}`);
    return m;
  }

  private index(obj: ConfigObject): void {
    this.forEachIndexKey(obj, (idx, key) => idx.add(key, obj));
  }

  private unindex(obj: ConfigObject): void {
    this.forEachIndexKey(obj, (idx, key) => idx.remove(key, obj));
  }

  /** Calls `fn` once per distinct (index, key) an object belongs to. */
  private forEachIndexKey(obj: ConfigObject, fn: (idx: MultiIndex<ConfigObject>, key: string) => void): void {
    const ns = obj.metadata.namespace;
    const each = (idx: MultiIndex<ConfigObject>, keys: Iterable<string>): void => {
      for (const k of new Set(keys)) fn(idx, k);
    };
    const hostsOf = (hosts: readonly string[]): string[] => hosts.map((h) => normalizeHost(h, ns));
    switch (obj.kind) {
      case 'VirtualService':
        each(this.vsByHost as MultiIndex<ConfigObject>, hostsOf(obj.spec.hosts));
        break;
      case 'DestinationRule':
        if (obj.spec.host !== '') each(this.drByHost as MultiIndex<ConfigObject>, hostsOf([obj.spec.host]));
        break;
      case 'MetaRouter':
        each(this.mrByHost as MultiIndex<ConfigObject>, hostsOf(obj.spec.hosts));
        each(
          this.mrByGateway as MultiIndex<ConfigObject>,
          obj.spec.gateways.map((g) => (g.includes('/') ? g : objectKey(ns, g))),
        );
        break;
      case 'ApplicationProtocol':
        if (obj.spec.protocol !== '')
          each(this.apByProtocol as MultiIndex<ConfigObject>, [obj.spec.protocol]);
        break;
      default:
        break;
    }
  }

  private emit(e: ConfigEvent): void {
    for (const l of [...this.listeners]) l(e);
  }
}

/** Content fingerprints, computed once per (immutable) object. */
const fingerprints = new WeakMap<ConfigObject, string>();

function fingerprint(obj: ConfigObject): string {
  let f = fingerprints.get(obj);
  if (f === undefined) {
    f = stableStringify(obj);
    fingerprints.set(obj, f);
  }
  return f;
}

function rejectKey(kind: string, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}
