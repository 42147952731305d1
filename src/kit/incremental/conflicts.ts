/**
 * The conflict warnings of configConflicts, maintained instead of recomputed: one unit per MetaRouter,
 * VirtualService, DestinationRule and Gateway (and one for all ApplicationProtocols), each recomputed only when
 * a key it read changed (kit/incremental/dependencies.ts). `issues()` gives exactly what configConflicts(view) gives.
 */
import type { ChangeTracker } from './dependencies.ts';
import {
  DependentUnits,
  firstHostDepKey,
  objectDepKeys,
  objectOfDepKey,
  type TrackedView,
} from './dependencies.ts';
import {
  destinationRuleConflictsOf,
  gatewayConflictsOf,
  virtualServiceConflictsOf,
} from '../../model/conflicts/host.ts';
import { applicationProtocolConflicts, metaRouterConflictsOf } from '../../model/conflicts/metarouter.ts';
import { normalizeHost } from '../../model/names.ts';
import type { MetaRouter } from '../../model/objects.ts';
import { compareStrings } from '../../model/order.ts';
import type { ConfigIssue } from '../../model/result.ts';
import type { ConfigView } from '../../model/view.ts';
import { SortedArray } from '../../util/sorted-array.ts';
import type { Slicer } from '../../util/slices.ts';

/** The kinds with one unit per object, in the order configConflicts reports them. */
const KINDS = ['MetaRouter', 'VirtualService', 'DestinationRule', 'Gateway'] as const;
type UnitKind = (typeof KINDS)[number];
const AP_UNIT = 'applicationProtocols';
const AP_ENTRY = { kind: AP_UNIT, namespace: '', name: '' };

interface Entry {
  readonly namespace: string;
  readonly name: string;
  readonly issues: readonly ConfigIssue[];
}

/** Namespace, then name: the order of ConfigView lists. */
const compareEntries = (a: Entry, b: Entry) =>
  compareStrings(a.namespace, b.namespace) || compareStrings(a.name, b.name);

export class IncrementalConflicts {
  private readonly units: DependentUnits<readonly ConfigIssue[]>;
  private readonly nonEmpty = new Map<string, SortedArray<Entry>>();

  constructor(
    private readonly view: TrackedView,
    private readonly tracker: ChangeTracker,
  ) {
    this.units = new DependentUnits(view, (v, unit, deps) => this.compute(v, unit, deps));
    for (const kind of [...KINDS, AP_UNIT]) this.nonEmpty.set(kind, new SortedArray(compareEntries));
  }

  /** Recomputes every unit (the first build). */
  rebuild(): void {
    this.recompute(this.allUnits());
  }

  /** `rebuild` in `slicer`'s slices (util/slices.ts), one unit at a time; the caller catches up on changes after. */
  async rebuildInSlices(slicer: Slicer): Promise<void> {
    for (const unit of this.allUnits()) {
      this.recompute([unit]);
      await slicer.pause();
    }
  }

  private allUnits(): string[] {
    const all: string[] = [AP_UNIT];
    for (const kind of KINDS) all.push(...objectDepKeys(this.view.list(kind)));
    return all;
  }

  /** Recomputes the units that read any of `keys` (changed keys, ChangeTracker.drain) or that they name. */
  update(keys: Iterable<string>): void {
    this.recompute(this.units.affected(keys, KINDS));
  }

  /** Every conflict warning, in configConflicts order. */
  issues(): ConfigIssue[] {
    const out: ConfigIssue[] = [];
    const add = (kind: string) => {
      for (const e of this.nonEmpty.get(kind)?.view() ?? []) out.push(...e.issues);
    };
    add('MetaRouter');
    add(AP_UNIT);
    for (const kind of KINDS.slice(1)) add(kind);
    return out;
  }

  private recompute(units: Iterable<string>): void {
    this.units.update(units, (unit, old, now) => {
      const { kind, namespace, name } = unit === AP_UNIT ? AP_ENTRY : objectOfDepKey(unit);
      const list = this.nonEmpty.get(kind);
      if (old !== undefined && old.length > 0) list?.remove({ namespace, name, issues: old });
      if (now !== undefined && now.length > 0) list?.insert({ namespace, name, issues: now });
    });
  }

  private compute(view: ConfigView, unit: string, deps: Set<string>): readonly ConfigIssue[] | undefined {
    if (unit === AP_UNIT) return applicationProtocolConflicts(view.applicationProtocols());
    const { kind, namespace, name } = objectOfDepKey(unit);
    switch (kind as UnitKind) {
      case 'MetaRouter': {
        const mr = view.get('MetaRouter', namespace, name);
        return mr && metaRouterConflictsOf(view, mr, (winner) => this.isUsed(view, winner, deps));
      }
      case 'VirtualService': {
        const vs = view.get('VirtualService', namespace, name);
        return vs && virtualServiceConflictsOf(view, vs);
      }
      case 'DestinationRule': {
        const dr = view.get('DestinationRule', namespace, name);
        return dr && destinationRuleConflictsOf(view, dr);
      }
      case 'Gateway': {
        const gw = view.get('Gateway', namespace, name);
        return gw && gatewayConflictsOf(view, gw);
      }
      default:
        return undefined;
    }
  }

  /** True when some ServiceEntry's first host finds `winner` (metaRouterConflicts' `used`). */
  private isUsed(view: ConfigView, winner: MetaRouter, deps: Set<string>): boolean {
    const ns = winner.metadata.namespace;
    for (const h of winner.spec.hosts) {
      const key = normalizeHost(h, ns, this.view.clusterDomain);
      deps.add(firstHostDepKey(key));
      if (this.tracker.hasFirstHost(key) && view.configForHost(h, ns).metaRouter === winner) return true;
    }
    return false;
  }
}
