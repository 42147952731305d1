import type { TrackedView } from '../kit/incremental/dependencies.ts';
import type { ConfigEvent } from '../model/view.ts';
import type { RouteAcks, RouteOrigin } from '../model/route-acks.ts';
import type { AckTracker } from './acks.ts';
import { compareStrings } from '../model/order.ts';
import { formatIssue } from '../model/result.ts';
import { systemClock, type Clock } from '../util/clock.ts';
import { errorFields, type Logger } from '../util/logger.ts';
import { ControllerLoop } from '../kit/controller-loop.ts';
import { IncrementalRoutes } from './incremental-routes.ts';
import type { SnapshotCache } from './snapshot.ts';

/** Kinds whose changes can change MetaProtocol routes (VirtualService and Gateway never do). */
const RELEVANT = new Set<ConfigEvent['kind']>([
  'ServiceEntry',
  'Service',
  'DestinationRule',
  'MetaRouter',
  'ApplicationProtocol',
]);

export interface RouteSourceOptions {
  readonly quietMs?: number;
  readonly maxWaitMs?: number;
  /** The clock of the debounce (default the system clock). */
  readonly clock?: Clock;
  /**
   * Called once per noted event (one with `at`) whose rebuild changed the snapshot, with the ms from the event
   * to that push (`aeraki_config_to_push_seconds`); `now` is the same clock as the store's (default the clock's).
   */
  readonly onPushed?: (ms: number) => void;
  /**
   * Called once per rebuild that changed the snapshot and followed noted events, with the changed names and the
   * `at` of the oldest of those events (the change the new versions carry), after the cache pushed them.
   */
  readonly onRoutesChanged?: (changed: readonly string[], at: number) => void;
  /** Called after a rebuild that rebuilt routes, with their names (their MetaRouter generations may have changed). */
  readonly onRebuilt?: (routes: readonly string[]) => void;
  readonly now?: () => number;
  readonly logger: Logger;
}

/**
 * Feeds the snapshot cache from the store: `onEvent` (wired by app.ts to the store's events) marks the routes
 * dirty; a debounced rebuild (a ControllerLoop's run; default 100 ms quiet, 1 s at most) brings the route builder's result up to date
 * (IncrementalRoutes: only the ServiceEntries a change touched are rebuilt) and hands the changed names to the
 * cache, which re-encodes and pushes only those. Never blocks the caller; runs on every replica.
 */
export class RouteSource {
  private readonly loop: ControllerLoop<string[]>;
  private readonly now: () => number;
  private readonly builder: IncrementalRoutes;
  private lastIssues = new Set<string>();
  /** `at` of the events since the last rebuild. */
  private pending: number[] = [];
  /** Route name → the MetaRouter (`namespace/name`) it was last built from and that MetaRouter's generation. */
  private readonly origins = new Map<
    string,
    { readonly metaRouter: string; readonly generation: number | undefined }
  >();
  /** MetaRouter `namespace/name` → the names of the routes built from it. */
  private readonly byMetaRouter = new Map<string, Set<string>>();
  rebuilds = 0;

  constructor(
    private readonly view: TrackedView,
    private readonly cache: SnapshotCache,
    private readonly options: RouteSourceOptions,
  ) {
    this.builder = new IncrementalRoutes(view);
    const clock = options.clock ?? systemClock;
    this.now = options.now ?? (() => clock.now());
    // Runs on every replica, always synced: no gates, no retries (a rebuild that throws is a bug: logged, and the
    // next event rebuilds), no resync (every change is an event).
    this.loop = new ControllerLoop<string[]>({
      // Synchronous: the rebuild runs in the debounce's timer (or in flush()); a throw becomes the run's failure.
      run: () => new Promise((resolve) => resolve(this.rebuild())),
      failed: (err) => {
        this.options.logger.error('rds: cannot rebuild the routes', errorFields(err));
        return [];
      },
      skipped: () => [],
      classify: () => 'ok',
      quietMs: options.quietMs ?? 100,
      maxWaitMs: options.maxWaitMs ?? 1000,
      pollMs: 0,
      resyncMs: 0,
      retry: { initialMs: 500, maxMs: 30_000 },
      clock,
      logger: options.logger,
    });
  }

  onEvent(event: ConfigEvent): void {
    // A change of held hosts matters whatever the kind holding them (a VirtualService holds routes too).
    if (!RELEVANT.has(event.kind) && event.type !== 'held') return;
    if (event.at !== undefined) this.pending.push(event.at);
    this.loop.trigger();
  }

  /** Rebuilds now; returns the names of the resources that changed. */
  rebuild(): string[] {
    this.rebuilds++;
    const { result, changed: names } = this.builder.update();
    const { routes, issues } = result;
    const now = new Set(issues.map(formatIssue));
    for (const text of now) if (!this.lastIssues.has(text)) this.options.logger.warn(`rds: ${text}`);
    this.lastIssues = now;
    const changed = this.cache.patchRoutes({
      names,
      route: (name) => this.builder.route(name),
      isHeld: (name) => this.builder.isHeld(name),
    });
    for (const name of names) this.recordOrigin(name);
    const noted = this.pending;
    this.pending = [];
    if (changed.length > 0) {
      const now = this.now();
      for (const at of noted) this.options.onPushed?.(Math.max(0, now - at));
      if (noted.length > 0)
        this.options.onRoutesChanged?.(
          changed,
          noted.reduce((a, b) => Math.min(a, b)),
        );
      this.options.logger.info('rds: routes updated', {
        version: this.cache.snapshot().version,
        changed: changed.length,
        total: routes.length,
      });
    }
    if (names.length > 0) this.options.onRebuilt?.(names);
    return changed;
  }

  /**
   * The routes served from the MetaRouter `namespace/name` and the generation of it each was last built from, in
   * name order (routes without a MetaRouter, served with the default route, have none).
   */
  routesOf(namespace: string, name: string): RouteOrigin[] {
    const names = this.byMetaRouter.get(`${namespace}/${name}`);
    if (!names) return [];
    return [...names]
      .sort(compareStrings)
      .map((n) => ({ name: n, generation: this.origins.get(n)?.generation }));
  }

  /**
   * The object route `name` is served from: `MetaRouter/<ns>/<name>`, else (the default route)
   * `ServiceEntry/<ns>/<name>`; undefined when it is not built.
   */
  originOf(name: string): string | undefined {
    const origin = this.origins.get(name);
    if (origin) return `MetaRouter/${origin.metaRouter}`;
    const se = this.builder.route(name) ? this.builder.sourceOf(name) : undefined;
    return se && `ServiceEntry/${se.metadata.namespace}/${se.metadata.name}`;
  }

  /** Records, for a rebuilt route, the MetaRouter it comes from now (if any) and that MetaRouter's generation. */
  private recordOrigin(name: string): void {
    const old = this.origins.get(name);
    if (old) {
      const set = this.byMetaRouter.get(old.metaRouter);
      set?.delete(name);
      if (set?.size === 0) this.byMetaRouter.delete(old.metaRouter);
      this.origins.delete(name);
    }
    const source = this.builder.route(name) ? this.builder.sourceOf(name) : undefined;
    const host = source?.spec.hosts[0];
    if (!source || !host) return;
    const mr = this.view.configForHost(host, source.metadata.namespace).metaRouter;
    if (!mr) return;
    const key = `${mr.metadata.namespace}/${mr.metadata.name}`;
    this.origins.set(name, { metaRouter: key, generation: mr.metadata.generation });
    let set = this.byMetaRouter.get(key);
    if (!set) this.byMetaRouter.set(key, (set = new Set()));
    set.add(name);
  }

  /** Runs a pending rebuild now. */
  flush(): void {
    if (this.loop.takeRequest()) this.rebuild();
  }

  /** Resolves once no rebuild is pending or in progress (with a manual clock, advance it past the debounce first). */
  idle(): Promise<void> {
    return this.loop.idle();
  }

  stop(): void {
    void this.loop.stop();
    this.builder.stop();
  }
}

/** RouteAcks that also record which routes changed (`noteChanged`), for `takeChanged`. */
export interface TrackedRouteAcks extends RouteAcks {
  /** Routes rebuilt, or where a proxy's answer moved (AckTracker.onStateChange). */
  noteChanged(routes: readonly string[]): void;
}

/** The proxies' answers to the routes of each MetaRouter (the status controller's RouteAcks port). */
export function routeAcksOf(source: RouteSource, tracker: AckTracker): TrackedRouteAcks {
  let changed = new Set<string>();
  return {
    routesOf: (namespace, name) => source.routesOf(namespace, name),
    summary: (route) => {
      const s = tracker.summary(route);
      const at = tracker.oldestPendingAt(route);
      return s && { ...s, ...(at !== undefined ? { oldestPendingAt: at } : {}) };
    },
    noteChanged: (routes) => {
      for (const r of routes) changed.add(r);
    },
    takeChanged: () => {
      const out = [...changed];
      changed = new Set();
      return out;
    },
    metaRouterOf: (route) => {
      const origin = source.originOf(route);
      return origin?.startsWith('MetaRouter/') ? origin.slice('MetaRouter/'.length) : undefined;
    },
  };
}
