/**
 * What a computation over a ConfigView read, and which changes touch it: the basis of incremental generation
 * (issue 22). A computation runs over `recordingView`, which files every lookup under a dependency key; a store
 * event names the keys it changes (`eventKeys`); a unit is recomputed when one of the keys it read changed.
 *
 * Keys: `obj:<kind>/<ns>/<name>` (get), `kind:<kind>` (list), `host:<normalised host>` (configForHost, isHostHeld:
 * the VirtualServices, DestinationRules and MetaRouters of a host and whether it is held), `gw:<ns>/<name>`
 * (metaRoutersForGateway), `idx:<index name>|<key>` (indexed: a plugin's lookup index), `codec:<protocol>`,
 * `first:<normalised host>` (whether a ServiceEntry has that first host), `gwheld:<ns>/<name>` (isGatewayHeld),
 * `eps:<ns>/<service>` (endpointPorts) and `mesh`.
 */
import { bindsHosts } from '../../model/bound-hosts.ts';
import { normalizeHost } from '../../model/names.ts';
import type { ConfigObject } from '../../model/objects.ts';
import type { ObjectRef } from '../../model/result.ts';
import type { ConfigEvent, ConfigView } from '../../model/view.ts';
import { DEPENDENCY_KEYS, type KeyTable } from './key-table.ts';

/** A ConfigView that tells about its changes: what incremental generation runs over (the ConfigStore is one). */
export interface TrackedView extends ConfigView {
  /** The domain short hosts are completed with, as the view's host indexes normalise them. */
  readonly clusterDomain: string;
  /** The held hosts, normalised (ConfigView.isHostHeld), each with the rejected objects holding it. */
  heldHosts(): readonly { readonly host: string; readonly by: readonly ObjectRef[] }[];
  /** The held Gateways, `<ns>/<name>` (ConfigView.isGatewayHeld), each with the rejected MetaRouters holding it. */
  heldGateways(): readonly { readonly gateway: string; readonly by: readonly ObjectRef[] }[];
  /** The keys `o` is filed under in the lookup indexes (ConfigView.indexed) built so far, `[index name, key]`. */
  indexKeysOf(o: ConfigObject): readonly (readonly [string, string])[];
  /** Events arrive synchronously after each change; returns the unsubscribe function. */
  subscribe(listener: (e: ConfigEvent) => void): () => void;
}

export const MESH_KEY = 'mesh';

export function objectDepKey(kind: string, namespace: string, name: string): string {
  return `obj:${kind}/${namespace}/${name}`;
}

/** The `obj:` keys of `objects`, in their order. */
export function objectDepKeys(objects: readonly ConfigObject[]): string[] {
  return objects.map((o) => objectDepKey(o.kind, o.metadata.namespace, o.metadata.name));
}

/** The kind, namespace and name of an `obj:` key. */
export function objectOfDepKey(key: string): { kind: string; namespace: string; name: string } {
  const [kind = '', namespace = '', name = ''] = key.slice(4).split('/');
  return { kind, namespace, name };
}

export function hostDepKey(normalisedHost: string): string {
  return `host:${normalisedHost}`;
}

export function gatewayHeldDepKey(gateway: string): string {
  return `gwheld:${gateway}`;
}

export function endpointPortsDepKey(namespace: string, service: string): string {
  return `eps:${namespace}/${service}`;
}

export function indexDepKey(index: string, key: string): string {
  return `idx:${index}|${key}`;
}

export function firstHostDepKey(normalisedHost: string): string {
  return `first:${normalisedHost}`;
}

/** What eventKeys needs of the view: how it normalises hosts and files objects in lookup indexes. */
type KeyedView = Pick<TrackedView, 'clusterDomain' | 'indexKeysOf'>;

/** A view over `view` that adds to `deps` the key of every lookup made through it. */
export function recordingView(view: TrackedView, deps: Set<string>): ConfigView {
  const host = (h: string, ns: string) => deps.add(hostDepKey(normalizeHost(h, ns, view.clusterDomain)));
  return {
    rootNamespace: view.rootNamespace,
    kinds: view.kinds,
    mesh: () => (deps.add(MESH_KEY), view.mesh()),
    list: (kind) => (deps.add(`kind:${kind}`), view.list(kind)),
    get: (kind, ns, name) => (deps.add(objectDepKey(kind, ns, name)), view.get(kind, ns, name)),
    serviceEntries: () => (deps.add('kind:ServiceEntry').add('kind:Service'), view.serviceEntries()),
    gateways: () => (deps.add('kind:Gateway'), view.gateways()),
    configForHost: (h, ns) => (host(h, ns), view.configForHost(h, ns)),
    metaRoutersForGateway: (ns, name) => (deps.add(`gw:${ns}/${name}`), view.metaRoutersForGateway(ns, name)),
    indexed: (index, key) => (deps.add(indexDepKey(index.name, key)), view.indexed(index, key)),
    codecFor: (p) => (deps.add(`codec:${p}`), view.codecFor(p)),
    applicationProtocols: () => (deps.add('kind:ApplicationProtocol'), view.applicationProtocols()),
    isHostHeld: (h, ns) => (host(h, ns), view.isHostHeld(h, ns)),
    isGatewayHeld: (ns, name) => (deps.add(gatewayHeldDepKey(`${ns}/${name}`)), view.isGatewayHeld(ns, name)),
    endpointPorts: (ns, svc) => (deps.add(endpointPortsDepKey(ns, svc)), view.endpointPorts(ns, svc)),
    hostHolders: (h, ns) => (host(h, ns), view.hostHolders(h, ns)),
    gatewayHolders: (ns, name) => (
      deps.add(gatewayHeldDepKey(`${ns}/${name}`)),
      view.gatewayHolders(ns, name)
    ),
  };
}

/** The keys one version of an object is found under (besides its `obj:` and `kind:` keys). */
function objectKeys(o: ConfigObject, view: KeyedView, out: Set<string>): void {
  for (const [index, key] of view.indexKeysOf(o)) out.add(indexDepKey(index, key));
  const ns = o.metadata.namespace;
  const clusterDomain = view.clusterDomain;
  const hosts = (list: readonly string[]) => {
    for (const h of list) out.add(hostDepKey(normalizeHost(h, ns, clusterDomain)));
  };
  switch (o.kind) {
    case 'VirtualService':
      return hosts(o.spec.hosts);
    case 'DestinationRule':
      return o.spec.host === '' ? undefined : hosts([o.spec.host]);
    case 'MetaRouter':
      hosts(o.spec.hosts);
      for (const g of o.spec.gateways) out.add(`gw:${g.includes('/') ? g : `${ns}/${g}`}`);
      return;
    case 'ApplicationProtocol':
      out.add(`codec:${o.spec.protocol}`);
      return;
    case 'ServiceEntry':
    case 'Service': {
      const first = o.spec.hosts[0];
      if (first !== undefined) out.add(firstHostDepKey(normalizeHost(first, ns, clusterDomain)));
      return;
    }
    default:
      return;
  }
}

/** The keys `e` changes (both versions' keys for an update). Held hosts are not known here: see ChangeTracker. */
export function eventKeys(e: ConfigEvent, view: KeyedView): Set<string> {
  const out = new Set<string>();
  if (e.kind === 'MeshConfig') return out.add(MESH_KEY);
  if (e.kind === 'EndpointPorts') return out.add(endpointPortsDepKey(e.namespace, e.name));
  out.add(objectDepKey(e.kind, e.namespace, e.name)).add(`kind:${e.kind}`);
  for (const o of [e.old, e.object]) {
    if (o !== undefined && 'metadata' in o) objectKeys(o, view, out);
  }
  return out;
}

/** A held host or Gateway with its holders, as one string. */
function heldKey(what: string, by: readonly ObjectRef[]): string {
  return `${what} ${by.map((r) => `${r.kind}/${r.namespace}/${r.name}`).join(' ')}`;
}

/**
 * Collects the keys changed by the store's events since the last `drain`, including the hosts and Gateways whose
 * held state changed (compared before and after: a rejection's hosts and Gateways are not in its event). Also counts
 * the ServiceEntries (and Services) by normalised first host (`hasFirstHost`).
 */
export class ChangeTracker {
  private dirty = new Set<string>();
  private heldChanged = true;
  /** heldKey → held host (Gateway), as of the last drain. */
  private held = new Map<string, string>();
  private heldGateways = new Map<string, string>();
  private readonly firstHosts = new Map<string, number>();
  private readonly unsubscribe: () => void;

  constructor(private readonly view: TrackedView) {
    for (const se of view.serviceEntries()) this.countFirstHost(se, 1);
    this.unsubscribe = view.subscribe((e) => this.onEvent(e));
  }

  /** The keys changed since the last call. */
  drain(): Set<string> {
    const out = this.dirty;
    this.dirty = new Set();
    if (this.heldChanged) {
      this.heldChanged = false;
      // Keyed by what is held and by whom: a change of holders changes the held warning (model/held.ts).
      const now = new Map(this.view.heldHosts().map((h) => [heldKey(h.host, h.by), h.host]));
      for (const [k, h] of now) if (!this.held.has(k)) out.add(hostDepKey(h));
      for (const [k, h] of this.held) if (!now.has(k)) out.add(hostDepKey(h));
      this.held = now;
      const gateways = new Map(this.view.heldGateways().map((g) => [heldKey(g.gateway, g.by), g.gateway]));
      for (const [k, g] of gateways) if (!this.heldGateways.has(k)) out.add(gatewayHeldDepKey(g));
      for (const [k, g] of this.heldGateways) if (!gateways.has(k)) out.add(gatewayHeldDepKey(g));
      this.heldGateways = gateways;
    }
    return out;
  }

  /** True when a ServiceEntry or Service has `normalisedHost` as its first host. */
  hasFirstHost(normalisedHost: string): boolean {
    return (this.firstHosts.get(normalisedHost) ?? 0) > 0;
  }

  stop(): void {
    this.unsubscribe();
  }

  private onEvent(e: ConfigEvent): void {
    for (const k of eventKeys(e, this.view)) this.dirty.add(k);
    // A valid object's change can move what is held too: its version appears (its rejection holds no more), or a
    // valid MetaRouter binds a Gateway or stops binding it (ConfigView.isGatewayHeld, across namespaces).
    if (e.type === 'held' || bindsHosts(e.kind)) this.heldChanged = true;
    if (e.kind === 'ServiceEntry' || e.kind === 'Service') {
      if (e.old !== undefined) this.countFirstHost(e.old as ConfigObject, -1);
      if (e.object !== undefined) this.countFirstHost(e.object as ConfigObject, 1);
    }
  }

  private countFirstHost(o: ConfigObject, delta: number): void {
    if (o.kind !== 'ServiceEntry' && o.kind !== 'Service') return;
    const first = o.spec.hosts[0];
    if (first === undefined) return;
    const key = normalizeHost(first, o.metadata.namespace, this.view.clusterDomain);
    const n = (this.firstHosts.get(key) ?? 0) + delta;
    if (n > 0) this.firstHosts.set(key, n);
    else this.firstHosts.delete(key);
  }
}

/**
 * Units of computation, each with the value it computed and the keys it read (through the recording view, plus
 * any `compute` adds to `deps` itself). `update` recomputes the units a
 * set of changed keys touches (and any unit named in it directly, e.g. a newly added object), dropping units
 * whose `compute` returns undefined. `onChange` hears every unit whose value was replaced or dropped.
 */
export class DependentUnits<V> {
  private readonly values = new Map<string, V>();
  private readonly depsOf = new Map<string, readonly string[]>();
  /**
   * Key → the units reading it, in the order they were added: the unit itself while there is one (most keys are
   * read by one unit, and a Set of one costs far more than the string), a Set once there are more.
   */
  private readonly unitsOf = new Map<string, string | Set<string>>();

  /**
   * `keys`: where the keys read are held once across instances (default: the process's table, key-table.ts).
   */
  constructor(
    private readonly view: TrackedView,
    private readonly compute: (view: ConfigView, unit: string, deps: Set<string>) => V | undefined,
    private readonly keys: KeyTable = DEPENDENCY_KEYS,
  ) {}

  get(unit: string): V | undefined {
    return this.values.get(unit);
  }

  /**
   * The units reading any of `keys`, plus the `obj:` keys among them of objects of `unitKinds` (units named after
   * their object, such as an object just added).
   */
  affected(keys: Iterable<string>, unitKinds: readonly string[]): Set<string> {
    const prefixes = unitKinds.map((k) => `obj:${k}/`);
    const out = new Set<string>();
    for (const k of keys) {
      if (prefixes.some((p) => k.startsWith(p))) out.add(k);
      const units = this.unitsOf.get(k);
      if (typeof units === 'string') out.add(units);
      else for (const u of units ?? []) out.add(u);
    }
    return out;
  }

  /** Recomputes `units`, in the order given; `onChange(unit, old, now)` for each one computed or dropped. */
  update(
    units: Iterable<string>,
    onChange: (unit: string, old: V | undefined, now: V | undefined) => void,
  ): void {
    for (const unit of units) {
      const deps = new Set<string>();
      const now = this.compute(recordingView(this.view, deps), unit, deps);
      const old = this.values.get(unit);
      this.forget(unit);
      if (now !== undefined) {
        this.values.set(unit, now);
        const held: string[] = [];
        for (const d of deps) {
          const key = this.keys.intern(d);
          held.push(key);
          this.addReader(key, unit);
        }
        this.depsOf.set(unit, held);
      }
      if (old !== undefined || now !== undefined) onChange(unit, old, now);
    }
  }

  /** How many units are cached. */
  get size(): number {
    return this.values.size;
  }

  private forget(unit: string): void {
    this.values.delete(unit);
    for (const d of this.depsOf.get(unit) ?? []) {
      this.removeReader(d, unit);
      this.keys.release(d);
    }
    this.depsOf.delete(unit);
  }

  private addReader(key: string, unit: string): void {
    const units = this.unitsOf.get(key);
    if (units === undefined) this.unitsOf.set(key, unit);
    else if (typeof units !== 'string') units.add(unit);
    else if (units !== unit) this.unitsOf.set(key, new Set([units, unit]));
  }

  private removeReader(key: string, unit: string): void {
    const units = this.unitsOf.get(key);
    if (units === unit) this.unitsOf.delete(key);
    else if (typeof units !== 'string' && units !== undefined) {
      units.delete(unit);
      if (units.size === 1) this.unitsOf.set(key, units.values().next().value as string);
    }
  }
}
