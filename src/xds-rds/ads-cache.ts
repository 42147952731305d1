import { META_ROUTE_TYPE, type WaypointChange, type WaypointXdsSink } from '../model/ambient/xds.ts';
import { silentLogger, type Logger } from '../util/logger.ts';
import type { AdsResource } from './ads-encode.ts';
import { GatewayResources, mark, type AdsEncodeStats, type Changed } from './ads-gateway.ts';
import type { ResourceWatcher, Snapshot, SnapshotCache } from './snapshot.ts';

/** What an ADS stream hears: the (type URL -> names) of its Gateway that changed, once per `apply()`. */
export interface AdsWatcher {
  onAdsChanged(changed: ReadonlyMap<string, readonly string[]>): void;
}

const EMPTY: ReadonlyMap<string, AdsResource> = new Map();

/** `<gateway> <type URL>` (wildcard watches) and `<gateway> <type URL> <name>` (named ones). */
function watchKey(gateway: string, typeUrl: string, name?: string): string {
  return name === undefined ? `${gateway}\u0000${typeUrl}` : `${gateway}\u0000${typeUrl}\u0000${name}`;
}

/**
 * The waypoints' resources, one snapshot per Gateway (GatewayResources), fed by the translation through
 * `WaypointXdsSink.apply`, read by the ADS streams, as go-control-plane's SnapshotCache keeps a snapshot per node
 * and answers watches from it (github.com/envoyproxy/go-control-plane 2b88c16, pkg/cache/v3/simple.go).
 *
 * Watches are per (Gateway, type, name), or per (Gateway, type) for the wildcard types (LDS, CDS), so one `apply()`
 * reaches only the streams whose resources changed, once each, with what changed. A Gateway is served once it has a
 * listener template; before (and after `listener: null`) its streams get empty answers. Route names of the
 * MetaProtocol proxy (META_ROUTE_TYPE, Envoy's RouteConfiguration) a Gateway's contributions do not hold are
 * answered from the RDS SnapshotCache (the same names as for sidecars), and its changes reach the ADS streams too.
 * A resource that does not encode is left out and logged with its Gateway, service and JSON path.
 */
export class AdsCache implements WaypointXdsSink, ResourceWatcher {
  private readonly gateways = new Map<string, GatewayResources>();
  private readonly watchers = new Map<string, Set<AdsWatcher>>();
  /** RDS route name -> Gateway -> streams of that Gateway watching it (META_ROUTE_TYPE). */
  private readonly routeWatchers = new Map<string, Map<string, Set<AdsWatcher>>>();
  /** Resources refused by the encoder since start. */
  problems = 0;
  /** Chains and resources encoded since start (unchanged content is never encoded again). */
  readonly stats: AdsEncodeStats = { chains: 0, resources: 0 };

  constructor(
    private readonly rds: SnapshotCache,
    private readonly logger: Logger = silentLogger,
  ) {}

  apply(changes: readonly WaypointChange[]): void {
    const byGateway = new Map<string, Changed>();
    const servedBefore = new Set<string>();
    for (const change of changes) {
      let changed = byGateway.get(change.gateway);
      if (!changed) {
        byGateway.set(change.gateway, (changed = new Map<string, Set<string>>()));
        if (this.serves(change.gateway)) servedBefore.add(change.gateway);
      }
      this.applyOne(change, changed);
    }
    // A Gateway nobody could see before or after changed nothing its streams have.
    for (const [gateway, changed] of byGateway) {
      if (servedBefore.has(gateway) || this.serves(gateway)) this.notify(gateway, changed);
    }
  }

  /** True when the Gateway has a listener (its streams are answered). */
  serves(gateway: string): boolean {
    return this.gateways.get(gateway)?.template !== undefined;
  }

  /** Every resource of a type the Gateway serves (no RDS routes: META_ROUTE_TYPE is named). */
  resources(gateway: string, typeUrl: string): ReadonlyMap<string, AdsResource> {
    const g = this.gateways.get(gateway);
    return g?.template ? g.resources(typeUrl) : EMPTY;
  }

  /** One resource the Gateway serves: its own, or for META_ROUTE_TYPE the RDS server's route of that name. */
  resource(gateway: string, typeUrl: string, name: string): AdsResource | undefined {
    const g = this.gateways.get(gateway);
    if (!g?.template) return undefined;
    const own = g.resource(typeUrl, name);
    if (own !== undefined || typeUrl !== META_ROUTE_TYPE) return own;
    return this.rds.snapshot().resources.get(name);
  }

  /** The version of a type of the Gateway (fold of its resources' digests). */
  version(gateway: string, typeUrl: string): string {
    return this.gateways.get(gateway)?.version(typeUrl) ?? '0000000000000000';
  }

  /** `name` undefined: every resource of the type (wildcard). */
  watch(gateway: string, typeUrl: string, name: string | undefined, w: AdsWatcher): void {
    const key = watchKey(gateway, typeUrl, name);
    let set = this.watchers.get(key);
    if (!set) this.watchers.set(key, (set = new Set()));
    set.add(w);
    if (typeUrl !== META_ROUTE_TYPE || name === undefined) return;
    let gws = this.routeWatchers.get(name);
    if (!gws) {
      this.routeWatchers.set(name, (gws = new Map<string, Set<AdsWatcher>>()));
      this.rds.watch(name, this);
    }
    let ws = gws.get(gateway);
    if (!ws) gws.set(gateway, (ws = new Set()));
    ws.add(w);
  }

  unwatch(gateway: string, typeUrl: string, name: string | undefined, w: AdsWatcher): void {
    const key = watchKey(gateway, typeUrl, name);
    const set = this.watchers.get(key);
    set?.delete(w);
    if (set?.size === 0) this.watchers.delete(key);
    if (typeUrl !== META_ROUTE_TYPE || name === undefined) return;
    const gws = this.routeWatchers.get(name);
    const ws = gws?.get(gateway);
    ws?.delete(w);
    if (ws?.size === 0) gws!.delete(gateway);
    if (gws?.size === 0) {
      this.routeWatchers.delete(name);
      this.rds.unwatch(name, this);
    }
  }

  /** Watch keys held (0 once every stream left). */
  get watchCount(): number {
    return this.watchers.size;
  }

  /** The RDS cache changed routes some waypoint stream watches: tell the streams whose Gateway does not hold them. */
  onResourcesChanged(_snapshot: Snapshot, changed: readonly string[]): void {
    const byWatcher = new Map<AdsWatcher, string[]>();
    for (const name of changed) {
      for (const [gateway, ws] of this.routeWatchers.get(name) ?? []) {
        const g = this.gateways.get(gateway);
        if (!g?.template || g.resource(META_ROUTE_TYPE, name) !== undefined) continue;
        for (const w of ws) {
          const list = byWatcher.get(w);
          if (list) list.push(name);
          else byWatcher.set(w, [name]);
        }
      }
    }
    for (const [w, names] of byWatcher) w.onAdsChanged(new Map([[META_ROUTE_TYPE, names]]));
  }

  private applyOne(change: WaypointChange, changed: Changed): void {
    let g = this.gateways.get(change.gateway);
    const servedBefore = g?.template !== undefined;
    if (change.listener === null) {
      if (g && servedBefore) this.markVisible(g, changed);
      this.gateways.delete(change.gateway);
      return;
    }
    if (!g) {
      g = new GatewayResources(
        change.gateway,
        (service, message) => {
          this.problems++;
          this.logger.error('ads: resource not served', {
            gateway: change.gateway,
            service,
            problem: message,
          });
        },
        this.stats,
      );
      this.gateways.set(change.gateway, g);
    }
    if (change.listener !== undefined) g.setTemplate(change.listener);
    for (const [service, contribution] of change.services) g.setService(service, contribution, changed);
    g.finish(changed);
    if (!servedBefore && g.template !== undefined) this.markVisible(g, changed);
  }

  /** Everything the Gateway serves, RDS routes its streams watch included, appears or disappears. */
  private markVisible(g: GatewayResources, changed: Changed): void {
    g.markAll(changed);
    for (const [name, gws] of this.routeWatchers) if (gws.has(g.key)) mark(changed, META_ROUTE_TYPE, name);
  }

  private notify(gateway: string, changed: Changed): void {
    const byWatcher = new Map<AdsWatcher, Map<string, string[]>>();
    const add = (ws: Set<AdsWatcher> | undefined, typeUrl: string, names: readonly string[]) => {
      for (const w of ws ?? []) {
        let m = byWatcher.get(w);
        if (!m) byWatcher.set(w, (m = new Map<string, string[]>()));
        const list = m.get(typeUrl);
        if (list) list.push(...names);
        else m.set(typeUrl, [...names]);
      }
    };
    for (const [typeUrl, names] of changed) {
      const sorted = [...names].sort();
      add(this.watchers.get(watchKey(gateway, typeUrl)), typeUrl, sorted);
      for (const name of sorted) add(this.watchers.get(watchKey(gateway, typeUrl, name)), typeUrl, [name]);
    }
    for (const [w, m] of byWatcher) w.onAdsChanged(m);
  }
}
