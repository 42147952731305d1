/**
 * The desired set of generateAll, maintained instead of rebuilt (issue 22): each ServiceEntry's (and Gateway's)
 * output is cached with the keys of every input it read (model/dependencies.ts: its VirtualService,
 * DestinationRule, MetaRouter, ApplicationProtocols, policies, Redis objects and Secrets, held hosts, the mesh
 * config), and `update` regenerates only the sources whose inputs changed since the last call. Claims between
 * sources (D6) are re-resolved only for the names those sources claim (ClaimIndex), conflict warnings only for
 * the objects involved (IncrementalConflicts). The output of `update` is, byte for byte, what generateAll gives
 * over the same view (test/envoyfilter/incremental-differential.test.ts).
 */
import { ClaimIndex } from '../model/claims.ts';
import {
  ChangeTracker,
  DependentUnits,
  objectDepKeys,
  objectOfDepKey,
  type TrackedView,
} from '../model/dependencies.ts';
import type { Generator } from '../model/generator.ts';
import { IncrementalConflicts } from '../model/incremental-conflicts.ts';
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
}

export class IncrementalGenerator {
  private readonly set: GeneratorSet;
  private readonly tracker: ChangeTracker;
  private readonly sourceKinds: readonly string[];
  private state: State | undefined;
  private recomputed: string[] = [];
  private changedObjects = new Set<string>();

  /** Subscribes to `view`; the first `update` generates every source. */
  constructor(
    private readonly view: TrackedView,
    generators: readonly Generator[],
    private readonly options: GenerateOptions,
  ) {
    this.set = generatorSet(generators);
    this.tracker = new ChangeTracker(view);
    this.sourceKinds = this.set.gateway
      ? ['ServiceEntry', 'Service', 'Gateway']
      : ['ServiceEntry', 'Service'];
  }

  /**
   * The complete desired set now (GenerateOutput, as generateAll gives it), regenerating only the sources whose
   * inputs changed since the last call (every source on the first call, after `reset`, and after a call that
   * threw). The arrays and set returned are the caller's.
   */
  update(): GenerateOutput {
    const keys = this.tracker.drain();
    this.recomputed = [];
    this.changedObjects = new Set();
    try {
      return this.updateWith(keys);
    } catch (err) {
      this.state = undefined;
      throw err;
    }
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

  private updateWith(keys: ReadonlySet<string>): GenerateOutput {
    let state = this.state;
    let units: Iterable<string>;
    if (state === undefined) {
      state = this.state = this.fresh();
      const sources: readonly SourceObject[] = this.set.gateway
        ? [...this.view.serviceEntries(), ...this.view.gateways()]
        : this.view.serviceEntries();
      units = objectDepKeys(sources);
      state.conflicts.rebuild();
    } else {
      units = state.units.affected(keys, this.sourceKinds);
      state.conflicts.update(keys);
    }
    const current = state;
    state.units.update(units, (unit, old, now) => this.changed(current, unit, old, now));
    return this.output(state);
  }

  private fresh(): State {
    return {
      conflicts: new IncrementalConflicts(this.view, this.tracker),
      units: new DependentUnits(this.view, (v, unit) => this.compute(v, unit)),
      claims: new ClaimIndex<SourceObject, OutputObject>(claimKey),
      objects: new SortedArray<OutputObject>(compareOutput),
      failed: new Set<string>(),
      reporting: new SortedArray<SourceResult>(compareSources),
    };
  }

  private compute(view: ConfigView, unit: string): SourceResult | undefined {
    const { kind, namespace, name } = objectOfDepKey(unit);
    const source =
      kind === 'Gateway'
        ? view.get('Gateway', namespace, name)
        : view.get(kind === 'Service' ? 'Service' : 'ServiceEntry', namespace, name);
    if (source === undefined) return undefined;
    this.recomputed.push(unit.slice(4));
    return { source, out: generateSource(view, this.set, this.options, source) };
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
      if (before !== undefined) state.objects.remove(before);
      if (after !== undefined) state.objects.insert(after);
    });
    if (old !== undefined) state.reporting.remove(old);
    if (now !== undefined && (now.out.issues.length > 0 || now.out.unhandledPorts.length > 0)) {
      state.reporting.insert(now);
    }
  }

  private output(state: State): GenerateOutput {
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
    issues.push(...state.conflicts.issues());
    return {
      objects: state.objects.toArray(),
      issues: dedupeIssues(issues),
      failedSources: new Set(state.failed),
      unhandledPorts,
    };
  }
}
