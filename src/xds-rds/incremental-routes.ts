/**
 * The route builder's result, maintained instead of rebuilt (issue 22): each ServiceEntry's routes are cached with
 * the keys of every input it read (its MetaRouter, DestinationRule, held hosts; kit/incremental/dependencies.ts), and
 * `update` rebuilds only the ServiceEntries a change touched. Route names claimed by several ServiceEntries (D6)
 * are re-resolved only for the names involved. The result is, byte for byte, what buildRouteConfigurations gives
 * over the same view; `changed` names the routes whose content or held state may differ from the previous update,
 * so the snapshot re-encodes only those (patchSnapshot).
 */
import { ClaimIndex } from '../model/claims.ts';
import {
  ChangeTracker,
  DependentUnits,
  objectDepKeys,
  objectOfDepKey,
  type TrackedView,
} from '../kit/incremental/dependencies.ts';
import { IncrementalConflicts } from '../kit/incremental/conflicts.ts';
import type { ServiceEntry } from '../model/objects.ts';
import { compareServiceOrder, compareStrings } from '../model/order.ts';
import { dedupeIssues, type ConfigIssue } from '../model/result.ts';
import type { ConfigView } from '../model/view.ts';
import { SortedArray } from '../util/sorted-array.ts';
import type { RouteConfigurationJson } from './route-json.ts';
import { heldIssue, holdersOf } from '../model/held.ts';
import { isRouteHeld, routesOfServiceEntry, type RouteBuildResult } from './routes.ts';

interface ServiceRoutes {
  readonly source: ServiceEntry;
  readonly routes: readonly RouteConfigurationJson[];
  readonly issues: readonly ConfigIssue[];
  readonly held: boolean;
}

export interface RouteUpdate {
  readonly result: RouteBuildResult;
  /** Route names whose winning content or held state changed since the previous update, sorted. */
  readonly changed: readonly string[];
}

const SOURCE_KINDS = ['ServiceEntry', 'Service'];

/** Everything derived from the view; replaced as a whole by a full rebuild. */
class RouteState {
  readonly claims = new ClaimIndex<ServiceEntry, RouteConfigurationJson>((r) => r.name);
  readonly routes = new SortedArray<RouteConfigurationJson>((a, b) => compareStrings(a.name, b.name));
  readonly byName = new Map<string, RouteConfigurationJson>();
  /** Held route name → how many held ServiceEntries produce it. */
  readonly heldCount = new Map<string, number>();
  readonly reporting = new SortedArray<ServiceRoutes>((a, b) => compareServiceOrder(a.source, b.source));

  constructor(
    readonly conflicts: IncrementalConflicts,
    readonly units: DependentUnits<ServiceRoutes>,
  ) {}
}

export class IncrementalRoutes {
  private readonly tracker: ChangeTracker;
  private state: RouteState | undefined;
  private changed = new Set<string>();
  /** Names served or held before a full rebuild: all of them may change. */
  private previousNames: readonly string[] = [];

  /** Subscribes to `view`; the first `update` builds every ServiceEntry's routes. */
  constructor(private readonly view: TrackedView) {
    this.tracker = new ChangeTracker(view);
  }

  /**
   * The complete result now, rebuilding only the ServiceEntries whose inputs changed since the last call (all of
   * them on the first call, after `reset`, and after a call that threw).
   */
  update(): RouteUpdate {
    const keys = this.tracker.drain();
    try {
      const state = this.updateWith(keys);
      const changed = [...this.changed].sort(compareStrings);
      this.changed = new Set();
      return { result: this.result(state), changed };
    } catch (err) {
      this.reset();
      throw err;
    }
  }

  /** Makes the next `update` rebuild every ServiceEntry's routes. */
  reset(): void {
    if (this.state) this.previousNames = [...this.state.byName.keys(), ...this.state.heldCount.keys()];
    this.state = undefined;
  }

  /** The route served under `name` now (the winner of its claims), if any. */
  route(name: string): RouteConfigurationJson | undefined {
    return this.state?.byName.get(name);
  }

  /** The ServiceEntry (or Service) the route served under `name` comes from, if any. */
  sourceOf(name: string): ServiceEntry | undefined {
    return this.state?.claims.winner(name);
  }

  /** Whether a held ServiceEntry produces the route `name` (its served version, if any, is kept). */
  isHeld(name: string): boolean {
    return this.state?.heldCount.has(name) ?? false;
  }

  stop(): void {
    this.tracker.stop();
  }

  private updateWith(keys: ReadonlySet<string>): RouteState {
    let units: Iterable<string>;
    let state = this.state;
    if (state === undefined) {
      const conflicts = new IncrementalConflicts(this.view, this.tracker);
      state = new RouteState(conflicts, new DependentUnits(this.view, (v, unit) => this.compute(v, unit)));
      this.state = state;
      for (const name of this.previousNames) this.changed.add(name);
      this.previousNames = [];
      units = objectDepKeys(this.view.serviceEntries());
      conflicts.rebuild();
    } else {
      units = state.units.affected(keys, SOURCE_KINDS);
      state.conflicts.update(keys);
    }
    const current = state;
    state.units.update(units, (unit, old, now) => this.onChange(current, unit, old, now));
    return state;
  }

  private compute(view: ConfigView, unit: string): ServiceRoutes | undefined {
    const { kind, namespace, name } = objectOfDepKey(unit);
    const source = view.get(kind === 'Service' ? 'Service' : 'ServiceEntry', namespace, name);
    if (source === undefined) return undefined;
    const issues: ConfigIssue[] = [];
    const routes = routesOfServiceEntry(view, source, issues);
    const held = isRouteHeld(view, source);
    if (held && routes.length > 0) issues.push(heldIssue(source, holdersOf(view, source)));
    return { source, routes, issues, held };
  }

  private onChange(
    state: RouteState,
    unit: string,
    old: ServiceRoutes | undefined,
    now: ServiceRoutes | undefined,
  ): void {
    const claims = now && !now.held ? { source: now.source, items: now.routes } : undefined;
    state.claims.set(unit, claims, (name, before, after) => {
      if (before !== undefined) state.routes.remove(before);
      if (after !== undefined) {
        state.routes.insert(after);
        state.byName.set(name, after);
      } else state.byName.delete(name);
      this.changed.add(name);
    });
    if (old?.held) for (const r of old.routes) this.countHeld(state, r.name, -1);
    if (now?.held) for (const r of now.routes) this.countHeld(state, r.name, 1);
    if (old !== undefined) state.reporting.remove(old);
    if (now !== undefined && now.issues.length > 0) state.reporting.insert(now);
  }

  private countHeld(state: RouteState, name: string, delta: number): void {
    const n = (state.heldCount.get(name) ?? 0) + delta;
    if (n > 0) state.heldCount.set(name, n);
    else state.heldCount.delete(name);
    if (n === 0 || (n === 1 && delta > 0)) this.changed.add(name);
  }

  private result(state: RouteState): RouteBuildResult {
    const issues: ConfigIssue[] = [];
    for (const s of state.reporting.view()) issues.push(...s.issues);
    issues.push(...state.conflicts.issues());
    return {
      routes: state.routes.toArray(),
      issues: dedupeIssues(issues),
      held: [...state.heldCount.keys()].sort(compareStrings),
    };
  }
}
