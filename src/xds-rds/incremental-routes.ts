/**
 * The route builder's result, maintained instead of rebuilt (issue 22): each ServiceEntry's routes are cached with
 * the keys of every input it read (its MetaRouter, DestinationRule, held hosts; model/dependencies.ts), and
 * `update` rebuilds only the ServiceEntries a change touched. Route names claimed by several ServiceEntries (D6)
 * are re-resolved only for the names involved. The result is, byte for byte, what buildRouteConfigurations gives
 * over the same view; `changed` names the routes whose content or held state may differ from the previous update,
 * so the snapshot re-encodes only those (patchSnapshot).
 */
import { ClaimIndex } from '../model/claims.ts';
import {
  ChangeTracker,
  DependentUnits,
  objectDepKey,
  objectOfDepKey,
  type TrackedView,
} from '../model/dependencies.ts';
import { IncrementalConflicts } from '../model/incremental-conflicts.ts';
import type { ServiceEntry } from '../model/objects.ts';
import { compareServiceOrder, compareStrings } from '../model/order.ts';
import { dedupeIssues, type ConfigIssue } from '../model/result.ts';
import type { ConfigView } from '../model/view.ts';
import { SortedArray } from '../util/sorted-array.ts';
import type { RouteConfigurationJson } from './route-json.ts';
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

const SOURCE_PREFIXES = ['obj:ServiceEntry/', 'obj:Service/'];

export class IncrementalRoutes {
  private readonly tracker: ChangeTracker;
  private readonly conflicts: IncrementalConflicts;
  private readonly units: DependentUnits<ServiceRoutes>;
  private readonly claims = new ClaimIndex<ServiceEntry, RouteConfigurationJson>((r) => r.name);
  private readonly routes = new SortedArray<RouteConfigurationJson>((a, b) => compareStrings(a.name, b.name));
  private readonly byName = new Map<string, RouteConfigurationJson>();
  /** Held route name → how many held ServiceEntries produce it. */
  private readonly heldCount = new Map<string, number>();
  private readonly reporting = new SortedArray<ServiceRoutes>((a, b) => compareServiceOrder(a.source, b.source));
  private changed = new Set<string>();
  private built = false;

  /** Subscribes to `view`; the first `update` builds every ServiceEntry's routes. */
  constructor(private readonly view: TrackedView) {
    this.tracker = new ChangeTracker(view);
    this.conflicts = new IncrementalConflicts(view, this.tracker);
    this.units = new DependentUnits(view, (v, unit) => this.compute(v, unit));
  }

  /** The complete result now, rebuilding only the ServiceEntries whose inputs changed since the last call. */
  update(): RouteUpdate {
    const keys = this.tracker.drain();
    let units: Iterable<string>;
    if (!this.built) {
      this.built = true;
      units = this.view
        .serviceEntries()
        .map((s) => objectDepKey(s.kind, s.metadata.namespace, s.metadata.name));
      this.conflicts.rebuild();
    } else {
      units = this.units.affected(keys, (k) => SOURCE_PREFIXES.some((p) => k.startsWith(p)));
      this.conflicts.update(keys);
    }
    this.units.update(units, (unit, old, now) => this.onChange(unit, old, now));
    const changed = [...this.changed].sort(compareStrings);
    this.changed = new Set();
    return { result: this.result(), changed };
  }

  /** The route served under `name` now (the winner of its claims), if any. */
  route(name: string): RouteConfigurationJson | undefined {
    return this.byName.get(name);
  }

  /** Whether a held ServiceEntry produces the route `name` (its served version, if any, is kept). */
  isHeld(name: string): boolean {
    return this.heldCount.has(name);
  }

  stop(): void {
    this.tracker.stop();
  }

  private compute(view: ConfigView, unit: string): ServiceRoutes | undefined {
    const { kind, namespace, name } = objectOfDepKey(unit);
    const source = view.get(kind === 'Service' ? 'Service' : 'ServiceEntry', namespace, name);
    if (source === undefined) return undefined;
    const issues: ConfigIssue[] = [];
    const routes = routesOfServiceEntry(view, source, issues);
    return { source, routes, issues, held: isRouteHeld(view, source) };
  }

  private onChange(unit: string, old: ServiceRoutes | undefined, now: ServiceRoutes | undefined): void {
    const claims = now && !now.held ? { source: now.source, items: now.routes } : undefined;
    this.claims.set(unit, claims, (name, before, after) => {
      if (before !== undefined) this.routes.remove(before);
      if (after !== undefined) this.routes.insert(after);
      if (after !== undefined) this.byName.set(name, after);
      else this.byName.delete(name);
      this.changed.add(name);
    });
    if (old?.held) for (const r of old.routes) this.countHeld(r.name, -1);
    if (now?.held) for (const r of now.routes) this.countHeld(r.name, 1);
    if (old !== undefined) this.reporting.remove(old);
    if (now !== undefined && now.issues.length > 0) this.reporting.insert(now);
  }

  private countHeld(name: string, delta: number): void {
    const n = (this.heldCount.get(name) ?? 0) + delta;
    if (n > 0) this.heldCount.set(name, n);
    else this.heldCount.delete(name);
    if (n === 0 || (n === 1 && delta > 0)) this.changed.add(name);
  }

  private result(): RouteBuildResult {
    const issues: ConfigIssue[] = [];
    for (const s of this.reporting.view()) issues.push(...s.issues);
    issues.push(...this.conflicts.issues());
    return {
      routes: this.routes.toArray(),
      issues: dedupeIssues(issues),
      held: [...this.heldCount.keys()].sort(compareStrings),
    };
  }
}
