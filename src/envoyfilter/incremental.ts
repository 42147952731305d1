/**
 * The desired set of generateAll, maintained instead of rebuilt (issue 22): each ServiceEntry's (and Gateway's)
 * output is cached with the keys of every input it read (kit/incremental/dependencies.ts: its VirtualService,
 * DestinationRule, MetaRouter, ApplicationProtocols, what its generators resolved through the plugins' lookup
 * indexes, Secrets, held hosts, the mesh config; with waypoint filters, its Namespace, waypoint Gateway and GatewayClass:
 * waypoint.ts recordingAmbientView), and `update` regenerates only the sources whose inputs changed
 * since the last call. Claims between sources (D6) are re-resolved only for the names those sources claim
 * (ClaimIndex), conflict warnings only for the objects involved (IncrementalConflicts). The output of `update` is, byte for byte, what generateAll gives
 * over the same view (test/envoyfilter/incremental-differential.test.ts).
 */
import { ClaimIndex } from '../model/claims.ts';
import { SOURCE_ANNOTATION } from '../model/constants.ts';
import type { DesiredChanges } from '../kit/incremental/desired-changes.ts';
import {
  ChangeTracker,
  DependentUnits,
  objectDepKeys,
  objectOfDepKey,
  type TrackedView,
} from '../kit/incremental/dependencies.ts';
import type { Generator } from '../model/generator.ts';
import { IncrementalConflicts } from '../kit/incremental/conflicts.ts';
import type { OutputObject } from '../model/objects.ts';
import { compareServiceOrder, compareStrings } from '../model/order.ts';
import { dedupeIssues, type ConfigIssue } from '../model/result.ts';
import type { ConfigView } from '../model/view.ts';
import { SortedArray } from '../util/sorted-array.ts';
import {
  claimKey,
  compareOutput,
  generateSource,
  generatorSet,
  lostClaimIssue,
  type GenerateOptions,
  type GenerateOutput,
  type GeneratorSet,
  type SourceObject,
  type SourceOutput,
  type UnhandledPort,
} from './generate-all.ts';
import { recordingAmbientView } from './waypoint.ts';
import type { Slicer } from '../util/slices.ts';

interface SourceResult {
  readonly source: SourceObject;
  readonly out: SourceOutput;
}

/** generateAll's source order: ServiceEntries and Services (compareServiceOrder), then Gateways by namespace/name. */
function compareSources(a: SourceResult, b: SourceResult): number {
  const group = (s: SourceObject) => (s.kind === 'Gateway' ? 1 : 0);
  return group(a.source) - group(b.source) || compareServiceOrder(a.source, b.source);
}

/** Everything derived from the view; replaced as a whole by a full regeneration. */
interface State {
  readonly conflicts: IncrementalConflicts;
  readonly units: DependentUnits<SourceResult>;
  readonly claims: ClaimIndex<SourceObject, OutputObject>;
  readonly objects: SortedArray<OutputObject>;
  readonly failed: Set<string>;
  /** Sources with issues or unhandled ports, in source order. */
  readonly reporting: SortedArray<SourceResult>;
  /** The desired objects by claimKey, and by their SOURCE_ANNOTATION ('' for none) then claimKey. */
  readonly byKey: Map<string, OutputObject>;
  readonly bySource: Map<string, Map<string, OutputObject>>;
}

/**
 * GenerateOutput whose `objects` is materialised on first read (a new array, then the same one): an update that
 * only a change-driven consumer reads copies nothing. Reading it after the next `update` throws.
 */
export interface IncrementalOutput extends GenerateOutput {
  readonly changes: DesiredChanges;
}

const sourceOf = (o: OutputObject) => o.metadata.annotations?.[SOURCE_ANNOTATION] ?? '';

export class IncrementalGenerator {
  private readonly set: GeneratorSet;
  private readonly tracker: ChangeTracker;
  private readonly sourceKinds: readonly string[];
  private state: State | undefined;
  private recomputed: string[] = [];
  private changedObjects = new Set<string>();
  private changedSources = new Set<string>();
  private version = 0;

  /** Subscribes to `view`; the first `update` generates every source. */
  constructor(
    private readonly view: TrackedView,
    generators: readonly Generator[],
    private readonly options: GenerateOptions,
  ) {
    this.set = generatorSet(generators, options.protocolNames);
    this.tracker = new ChangeTracker(view);
    this.sourceKinds = this.set.gateway
      ? ['ServiceEntry', 'Service', 'Gateway']
      : ['ServiceEntry', 'Service'];
  }

  /**
   * The complete desired set now (GenerateOutput, as generateAll gives it), regenerating only the sources whose
   * inputs changed since the last call (every source on the first call, after `reset`, and after a call that
   * threw). The arrays and set returned are the caller's; `objects` is materialised on first read and, like
   * the lookups of `changes`, must be read before the next call.
   */
  update(): IncrementalOutput {
    const keys = this.tracker.drain();
    this.recomputed = [];
    this.changedObjects = new Set();
    this.changedSources = new Set();
    this.version++;
    try {
      return this.updateWith(keys);
    } catch (err) {
      this.state = undefined;
      throw err;
    }
  }

  /**
   * `update` without holding the loop (issue 40): a full regeneration (the first call, after `reset` or a call that
   * threw) runs in `slicer`'s slices, one source (and one conflict unit) at a time, on a state of its own that
   * becomes the generator's when this resolves. The store changes delivered during its yields are then
   * applied at once, as an update applies them (proportional to them), so the output is, byte for byte, what
   * `update` gives over the store as it is when this resolves. Otherwise it is `update`. A SlicesStopped rejection
   * (the caller stopped) leaves the next call to regenerate everything.
   */
  async updateSliced(slicer: Slicer): Promise<IncrementalOutput> {
    if (this.state !== undefined) return this.update();
    this.tracker.drain(); // a full regeneration reads everything; what changes from here is caught up below
    this.recomputed = [];
    this.changedObjects = new Set();
    this.changedSources = new Set();
    const state = this.fresh();
    try {
      await state.conflicts.rebuildInSlices(slicer);
      const apply = (unit: string, old?: SourceResult, now?: SourceResult) =>
        this.changed(state, unit, old, now);
      for (const unit of objectDepKeys(this.sources())) {
        state.units.update([unit], apply);
        await slicer.pause();
      }
      const keys = this.tracker.drain();
      state.conflicts.update(keys);
      state.units.update(state.units.affected(keys, this.sourceKinds), apply);
    } catch (err) {
      this.state = undefined;
      throw err;
    }
    this.state = state;
    this.version++;
    return this.output(state, true);
  }

  /** Makes the next `update` regenerate every source (a periodic full resync's safety net). */
  reset(): void {
    this.state = undefined;
  }

  /** The source keys (`ServiceEntry/<ns>/<name>` ...) the last `update` regenerated, sorted. */
  lastRegenerated(): readonly string[] {
    return [...this.recomputed].sort(compareStrings);
  }

  /**
   * The objects (`<kind> <namespace>/<name>`) the last `update` added, dropped or replaced (by a regenerated
   * version, whose content may be equal), sorted; after a full regeneration, every object. Every other desired
   * object is the very object the previous update returned: what a reconciler needs to diff after a change.
   */
  lastChangedObjects(): readonly string[] {
    return [...this.changedObjects].sort(compareStrings);
  }

  /** Stops listening to the view. */
  stop(): void {
    this.tracker.stop();
  }

  private updateWith(keys: ReadonlySet<string>): IncrementalOutput {
    let state = this.state;
    let units: Iterable<string>;
    const full = state === undefined;
    if (state === undefined) {
      state = this.state = this.fresh();
      units = objectDepKeys(this.sources());
      state.conflicts.rebuild();
    } else {
      units = state.units.affected(keys, this.sourceKinds);
      state.conflicts.update(keys);
    }
    const current = state;
    state.units.update(units, (unit, old, now) => this.changed(current, unit, old, now));
    return this.output(state, full);
  }

  /** Every source of a full regeneration, in generateAll's order. */
  private sources(): readonly SourceObject[] {
    return this.set.gateway
      ? [...this.view.serviceEntries(), ...this.view.gateways()]
      : this.view.serviceEntries();
  }

  private fresh(): State {
    return {
      conflicts: new IncrementalConflicts(this.view, this.tracker),
      units: new DependentUnits(this.view, (v, unit, deps) => this.compute(v, unit, deps)),
      claims: new ClaimIndex<SourceObject, OutputObject>(claimKey),
      objects: new SortedArray<OutputObject>(compareOutput),
      failed: new Set<string>(),
      reporting: new SortedArray<SourceResult>(compareSources),
      byKey: new Map(),
      bySource: new Map(),
    };
  }

  /** `deps` takes the ambient inputs read (recordingAmbientView): a binding input's change regenerates the source. */
  private compute(view: ConfigView, unit: string, deps: Set<string>): SourceResult | undefined {
    const { kind, namespace, name } = objectOfDepKey(unit);
    const source =
      kind === 'Gateway'
        ? view.get('Gateway', namespace, name)
        : view.get(kind === 'Service' ? 'Service' : 'ServiceEntry', namespace, name);
    if (source === undefined) return undefined;
    this.recomputed.push(unit.slice(4));
    const { ambient } = this.options;
    const options =
      ambient !== undefined && this.options.waypointFilters === true
        ? { ...this.options, ambient: recordingAmbientView(ambient, deps) }
        : this.options;
    return { source, out: generateSource(view, this.set, options, source) };
  }

  private changed(
    state: State,
    unit: string,
    old: SourceResult | undefined,
    now: SourceResult | undefined,
  ): void {
    const id = unit.slice(4);
    if (now !== undefined && now.out.objects === undefined) state.failed.add(id);
    else state.failed.delete(id);
    const items = now?.out.objects;
    state.claims.set(id, now && items ? { source: now.source, items } : undefined, (key, before, after) => {
      this.changedObjects.add(key);
      if (before !== undefined) {
        state.objects.remove(before);
        this.unindex(state, key, before);
      }
      if (after !== undefined) {
        state.objects.insert(after);
        this.index(state, key, after);
      }
    });
    if (old !== undefined) state.reporting.remove(old);
    if (now !== undefined && (now.out.issues.length > 0 || now.out.unhandledPorts.length > 0)) {
      state.reporting.insert(now);
    }
  }

  private index(state: State, key: string, o: OutputObject): void {
    const source = sourceOf(o);
    this.changedSources.add(source);
    state.byKey.set(key, o);
    let objects = state.bySource.get(source);
    if (objects === undefined) state.bySource.set(source, (objects = new Map<string, OutputObject>()));
    objects.set(key, o);
  }

  private unindex(state: State, key: string, o: OutputObject): void {
    const source = sourceOf(o);
    this.changedSources.add(source);
    if (state.byKey.get(key) === o) state.byKey.delete(key);
    const objects = state.bySource.get(source);
    if (objects?.get(key) === o) objects.delete(key);
    if (objects?.size === 0) state.bySource.delete(source);
  }

  /** Outputs describe the state they were returned with: reading one after a later update is a bug. */
  private assertCurrent(state: State, version: number): void {
    if (this.version !== version || this.state !== state)
      throw new Error('desired set read after a later update');
  }

  /** The change set of this update, whose lookups throw once a later update ran. */
  private changesOf(state: State, full: boolean): DesiredChanges {
    const version = this.version;
    const live = () => this.assertCurrent(state, version);
    return {
      from: full ? -1 : version - 1,
      to: version,
      sources: [...this.changedSources].sort(compareStrings),
      objectsOf: (source) => {
        live();
        return [...(state.bySource.get(source)?.values() ?? [])];
      },
      get: (kind, namespace, name) => {
        live();
        return state.byKey.get(`${kind} ${namespace}/${name}`);
      },
    };
  }

  private output(state: State, full: boolean): IncrementalOutput {
    const issues: ConfigIssue[] = [];
    const unhandledPorts: UnhandledPort[] = [];
    for (const { out } of state.reporting.view()) {
      issues.push(...out.issues);
      unhandledPorts.push(...out.unhandledPorts);
    }
    for (const l of state.claims.lost()) {
      const dropped = lostClaimIssue(l);
      if (dropped) issues.push(dropped);
    }
    const conflicts = state.conflicts.issues();
    issues.push(...conflicts);
    const version = this.version;
    let objects: OutputObject[] | undefined;
    const materialise = (): OutputObject[] => {
      this.assertCurrent(state, version);
      return state.objects.toArray();
    };
    return {
      get objects() {
        return (objects ??= materialise());
      },
      issues: dedupeIssues(issues),
      failedSources: new Set(state.failed),
      unhandledPorts,
      conflicts,
      changes: this.changesOf(state, full),
    };
  }
}
