import type { OutputObject } from '../../model/objects.ts';

/**
 * What changed in the desired set since the previous update (IncrementalGenerator's `changes`,
 * src/envoyfilter/incremental.ts; read by the reconciler, src/reconcile/incremental-plan.ts). `from` and `to`
 * number the updates, so a consumer can tell it saw every one in between; `from` is -1 after a full regeneration
 * (which changes every source). The lookups are valid until the next update (they throw after it).
 */
export interface DesiredChanges {
  readonly from: number;
  readonly to: number;
  /** Source annotations ('' for objects without one) any of whose desired objects was added, dropped or replaced. */
  readonly sources: readonly string[];
  /** The desired objects whose source annotation is `source`, in no particular order. */
  objectsOf(source: string): readonly OutputObject[];
  get(kind: string, namespace: string, name: string): OutputObject | undefined;
}
