/**
 * The ServiceEntries (and converted Services) by the first label of their first host, for the status planner
 * (planner.ts): which MetaRouters a ServiceEntry's change touches, and whether a MetaRouter's routes are served,
 * without a pass over every ServiceEntry. The first label (lower case) is the same before and after the store
 * normalises a host (a short name gets its namespace and cluster domain appended), so a bucket holds every
 * ServiceEntry a host can match, and a few more.
 */
import type { ConfigObject, MeshConfig, ServiceEntry } from '../model/objects.ts';
import type { ConfigView } from '../model/view.ts';
import { runToEnd } from '../util/slices.ts';

/** The first label of `host`, lower case: the bucket of the indexes. */
export function hostLabel(host: string): string {
  const dot = host.indexOf('.');
  return (dot < 0 ? host : host.slice(0, dot)).toLowerCase();
}

function isServiceEntry(o: ConfigObject | MeshConfig | undefined): o is ServiceEntry {
  return o !== undefined && 'kind' in o && (o.kind === 'ServiceEntry' || o.kind === 'Service');
}

const keyOf = (se: ServiceEntry) => `${se.kind}/${se.metadata.namespace}/${se.metadata.name}`;

export class ServiceEntryIndex {
  /** Label → key → ServiceEntry; undefined: built from the view when next read. */
  private byLabel: Map<string, Map<string, ServiceEntry>> | undefined;

  /** Builds it again from the view when next read. */
  forget(): void {
    this.byLabel = undefined;
  }

  /** The ServiceEntries whose first host has the first label `label`. */
  withLabel(view: ConfigView, label: string): Iterable<ServiceEntry> {
    this.byLabel ??= this.build(view);
    return this.byLabel.get(label)?.values() ?? [];
  }

  /**
   * A store event of the ServiceEntry `key`: records its new version. Returns its first hosts before and after;
   * undefined when the event carries neither (the index is built again when next read).
   */
  note(
    key: string,
    old: ConfigObject | MeshConfig | undefined,
    object: ConfigObject | MeshConfig | undefined,
  ): string[] | undefined {
    const before = isServiceEntry(old) ? old : undefined;
    const after = isServiceEntry(object) ? object : undefined;
    if (!before && !after) {
      this.byLabel = undefined;
      return undefined;
    }
    const hosts: string[] = [];
    for (const se of [before, after]) {
      const first = se?.spec.hosts[0];
      if (first !== undefined) hosts.push(first);
    }
    if (this.byLabel) {
      if (before?.spec.hosts[0] !== undefined) {
        this.byLabel.get(hostLabel(before.spec.hosts[0]))?.delete(key);
      }
      if (after) this.add(this.byLabel, after);
    }
    return hosts;
  }

  private build(view: ConfigView): Map<string, Map<string, ServiceEntry>> {
    return runToEnd(this.buildSteps(view));
  }

  /**
   * Builds the index now, as a pass that may pause after each ServiceEntry (util/slices.ts): a planner that checks
   * every target (a resync) builds it first in its slices, instead of on the first lookup in one stretch.
   */
  *prepare(view: ConfigView): Generator<void, void, undefined> {
    if (!this.byLabel) this.byLabel = yield* this.buildSteps(view);
  }

  private *buildSteps(view: ConfigView): Generator<void, Map<string, Map<string, ServiceEntry>>, undefined> {
    const out = new Map<string, Map<string, ServiceEntry>>();
    for (const se of view.serviceEntries()) {
      this.add(out, se);
      yield;
    }
    return out;
  }

  private add(to: Map<string, Map<string, ServiceEntry>>, se: ServiceEntry): void {
    const first = se.spec.hosts[0];
    if (first === undefined) return;
    const label = hostLabel(first);
    let bucket = to.get(label);
    if (!bucket) to.set(label, (bucket = new Map<string, ServiceEntry>()));
    bucket.set(keyOf(se), se);
  }
}
