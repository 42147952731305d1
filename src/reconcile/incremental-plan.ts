/**
 * The plan of a change-driven reconcile (issue 22): between full resyncs, a run after store changes diffs only
 * the objects the changes can touch, against the managed cache, instead of the complete desired set against
 * everything that exists. The objects it looks at, by key:
 * - the desired and existing objects of every source whose output changed (the generator's change set) or whose
 *   failed/held state changed since the last run (SOURCE_ANNOTATION; '' for objects without one);
 * - the existing objects without a source annotation (whether one is deleted depends on every source);
 * - the objects whose cached version changed since the last run (drift, other writers, write answers);
 * and for each of those keys both sides, whatever their source. `diff` then decides per key exactly as the full
 * plan would: a key outside that set had no write in the last plan, and neither side of it changed since.
 */
import type { DesiredChanges } from '../kit/incremental/desired-changes.ts';
import type { OutputObject } from '../model/objects.ts';
import { objectKey } from '../kit/owned-content.ts';
import { diff, diffSliced, type DiffOptions, type ExistingObject, type Plan } from './diff.ts';
import { runToEnd, type Slicer } from '../util/slices.ts';
import type { ManagedCache, ObjectRefKey } from './managed-cache.ts';

export interface ChangedScope {
  /** Sources to re-plan: those of the change set and those whose failed or held state changed. */
  readonly sources: Iterable<string>;
  /** Objects whose cached version changed since the last run (ManagedCache.takeChanged). */
  readonly existingChanged: readonly ObjectRefKey[];
}

/** The sources in exactly one of the two sets. */
export function toggled(before: ReadonlySet<string>, now: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const s of now) if (!before.has(s)) out.push(s);
  for (const s of before) if (!now.has(s)) out.push(s);
  return out;
}

/** The plan over the keys the scope can touch (see the file comment); its counts cover those keys only. */
export function planChanged(
  changes: DesiredChanges,
  cache: ManagedCache,
  scope: ChangedScope,
  options: DiffOptions,
): Plan {
  const { desired, existing } = runToEnd(changedPairs(changes, cache, scope));
  return diff(desired, existing, options);
}

/**
 * `planChanged` with its comparison in `slicer`'s slices: a change set that touches most of the mesh (the first
 * run after a sync, a MeshConfig change) compares tens of thousands of objects. The objects compared are taken
 * before the first yield; what changes meanwhile is in the next run's change sets.
 */
export async function planChangedSliced(
  changes: DesiredChanges,
  cache: ManagedCache,
  scope: ChangedScope,
  options: DiffOptions,
  slicer: Slicer,
): Promise<Plan> {
  const { desired, existing } = await slicer.run(changedPairs(changes, cache, scope));
  return diffSliced(desired, existing, options, slicer);
}

/** Both sides of every key the scope can touch: a pass (util/slices.ts) that may pause after each source. */
function* changedPairs(
  changes: DesiredChanges,
  cache: ManagedCache,
  scope: ChangedScope,
): Generator<void, { desired: OutputObject[]; existing: ExistingObject[] }, undefined> {
  const desired = new Map<string, OutputObject>();
  const existing = new Map<string, ExistingObject>();
  const add = (kind: OutputObject['kind'], namespace: string, name: string): void => {
    const key = objectKey(kind, namespace, name);
    if (desired.has(key) || existing.has(key)) return;
    const d = changes.get(kind, namespace, name);
    if (d) desired.set(key, d);
    const e = cache.get(kind, namespace, name);
    if (e) existing.set(key, e);
  };
  const addExisting = (e: ExistingObject | ObjectRefKey) => add(e.kind, e.namespace, e.name);
  for (const source of scope.sources) {
    for (const d of changes.objectsOf(source)) add(d.kind, d.metadata.namespace, d.metadata.name);
    cache.bySource(source).forEach(addExisting);
    yield;
  }
  cache.bySource('').forEach(addExisting);
  for (const e of scope.existingChanged) {
    addExisting(e);
    yield;
  }
  return { desired: [...desired.values()], existing: [...existing.values()] };
}
