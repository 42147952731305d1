/**
 * The EnvoyFilter plan: kit/diff.ts over the EnvoyFilters and gateway VirtualServices, compared by their owned
 * content (kit/owned-content.ts), deleted only on positive absence of their source, writes ordered by kind,
 * namespace, name. No I/O; the plan is written by the reconciler through a sink.
 */
import { SOURCE_ANNOTATION } from '../model/constants.ts';
import type { OutputObject } from '../model/objects.ts';
import { diffSteps, sortByKeySteps, type DiffPlan, type DiffUpdate } from '../kit/diff.ts';
import { runToEnd, type Slicer } from '../util/slices.ts';
import {
  desiredObjectKey,
  existingObjectKey,
  ownedContentChanged,
  type ContentMemos,
  type DiffObject,
  type ExistingObject as KitExistingObject,
} from '../kit/owned-content.ts';

export type ManagedKind = OutputObject['kind'];

export type { DiffObject } from '../kit/owned-content.ts';

/** A managed object as it exists in the sink (EnvoyFilter or gateway VirtualService by default). */
export type ExistingObject<K extends string = ManagedKind> = KitExistingObject<K>;

export type PlannedUpdate<T extends DiffObject = OutputObject, K extends string = ManagedKind> = DiffUpdate<
  T,
  ExistingObject<K>
>;

/** Every list is ordered by kind, namespace, name. `desired` objects in the plan carry the content-hash annotation. */
export type Plan<T extends DiffObject = OutputObject, K extends string = ManagedKind> = DiffPlan<
  T,
  ExistingObject<K>
>;

export interface DiffOptions extends ContentMemos {
  /** SOURCE_ANNOTATION values of sources whose generation failed (or that are invalid right now). */
  readonly failedSources: ReadonlySet<string>;
}

/**
 * Plans the writes that turn `existing` into `desired`.
 * - desired and absent: create; desired and present with different owned content: update (in place, which is how
 *   filters written by Aeraki itself are adopted); desired and equal: nothing;
 * - present and not desired: delete only on positive absence of its source: the source annotation names a
 *   source that is not in `failedSources`. An object without source annotation (written by Aeraki or an older
 *   install) is deleted only when no source failed in this run; otherwise it is kept.
 * Duplicate desired keys: the first one wins.
 */
export function diff<T extends DiffObject = OutputObject, K extends string = ManagedKind>(
  desired: readonly T[],
  existing: readonly ExistingObject<K>[],
  options: DiffOptions,
): Plan<T, K> {
  return runToEnd(planSteps(desired, existing, options));
}

/**
 * `diff` in slices that yield to the loop (a listing reconcile compares tens of thousands of objects). The same
 * plan; `desired` and `existing` must not change while it runs (both are snapshots the caller owns).
 */
export function diffSliced<T extends DiffObject = OutputObject, K extends string = ManagedKind>(
  desired: readonly T[],
  existing: readonly ExistingObject<K>[],
  options: DiffOptions,
  slicer: Slicer,
): Promise<Plan<T, K>> {
  return slicer.run(planSteps(desired, existing, options));
}

function* planSteps<T extends DiffObject, K extends string>(
  desired: readonly T[],
  existing: readonly ExistingObject<K>[],
  options: DiffOptions,
): Generator<void, Plan<T, K>, undefined> {
  const failed = options.failedSources;
  const plan = yield* diffSteps<T, ExistingObject<K>>(desired, existing, {
    desiredKey: desiredObjectKey,
    existingKey: existingObjectKey,
    changed: ownedContentChanged(options),
    mayDelete: (e) => {
      const source = e.annotations[SOURCE_ANNOTATION];
      return source === undefined ? failed.size === 0 : !failed.has(source);
    },
  });
  const desiredKey = (o: DiffObject) => [o.kind, o.metadata.namespace, o.metadata.name];
  const existingKey = (o: ExistingObject<K>) => [o.kind, o.namespace, o.name];
  return {
    creates: yield* sortByKeySteps(plan.creates, desiredKey),
    updates: yield* sortByKeySteps(plan.updates, (u) => desiredKey(u.desired)),
    deletes: yield* sortByKeySteps(plan.deletes, existingKey),
    kept: yield* sortByKeySteps(plan.kept, existingKey),
    conflicts: plan.conflicts,
    unchanged: plan.unchanged,
  };
}
