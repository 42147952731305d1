/**
 * The one diff of every writer: desired objects against the existing ones, by key, into the creates, updates and
 * deletes that turn one into the other. Pure; the plan is written by kit/apply.ts.
 *
 * The writer plugs in its rules:
 * - keys: a desired and an existing object with the same key are the same object;
 * - content (`changed`): the object to write when the existing one is absent or differs, nothing when it is current;
 * - ownership (`ownership`): who an existing object belongs to, and so what may be done to it:
 *   `managed` (ours): updated when it differs, deleted when not desired (on positive absence only, `mayDelete`);
 *   `legacy` (written by Aeraki before it labelled its objects): adopted, i.e. updated with our ownership, where
 *   desired, and left alone where not;
 *   `foreign` (anyone else's): never written; where desired it is reported as a conflict;
 * - positive absence (`mayDelete`): a managed object that is not desired is deleted only when its absence is
 *   known (its source answered); otherwise it is kept. Never delete on partial knowledge.
 * Output keeps input order (creates, updates and conflicts in desired order; deletes and kept in existing order)
 * so each writer orders its writes as it needs. Duplicate desired keys: the first one wins; duplicate existing
 * keys: the last one is compared.
 */
import { runToEnd } from '../util/slices.ts';

/** Who an existing object belongs to (see the file comment for the action each gets). */
export type Ownership = 'managed' | 'legacy' | 'foreign';

export interface DiffRules<D, E> {
  readonly desiredKey: (d: D) => string;
  readonly existingKey: (e: E) => string;
  /**
   * The content comparison: the object to write (e.g. `d` with its content hash) when `existing` is undefined or
   * differs from `d`; undefined when `existing` already is `d`.
   */
  readonly changed: (d: D, existing: E | undefined) => D | undefined;
  /** The ownership hook; default: every existing object is managed. */
  readonly ownership?: (e: E) => Ownership;
  /** Whether a managed existing object that is not desired may be deleted now; default: yes. Else it is kept. */
  readonly mayDelete?: (e: E) => boolean;
}

export interface DiffUpdate<D, E> {
  /** The object to write (as `changed` returned it). */
  readonly desired: D;
  readonly existing: E;
  /** Set when `existing` is legacy: the update adopts it. */
  readonly adopt?: true;
}

export interface DiffConflict<D, E> {
  readonly desired: D;
  readonly existing: E;
}

export interface DiffPlan<D, E> {
  readonly creates: readonly D[];
  readonly updates: readonly DiffUpdate<D, E>[];
  readonly deletes: readonly E[];
  /** Managed objects that are not desired but kept: their absence is not known (mayDelete said no). */
  readonly kept: readonly E[];
  /** Desired objects whose key a foreign object holds: nothing is written for them. */
  readonly conflicts: readonly DiffConflict<D, E>[];
  /** Desired objects already current. */
  readonly unchanged: number;
}

/** Plans the writes that turn `existing` into `desired` under `rules` (see the file comment). */
export function diffObjects<D, E>(
  desired: Iterable<D>,
  existing: readonly E[],
  rules: DiffRules<D, E>,
): DiffPlan<D, E> {
  return runToEnd(diffSteps(desired, existing, rules));
}

/**
 * diffObjects as a pass (util/slices.ts) that pauses after each object: a plan over tens of thousands of objects
 * driven by a Slicer yields to the loop between slices. The inputs must not change while it runs.
 */
export function* diffSteps<D, E>(
  desired: Iterable<D>,
  existing: readonly E[],
  rules: DiffRules<D, E>,
): Generator<void, DiffPlan<D, E>, undefined> {
  const existingByKey = new Map<string, E>();
  for (const e of existing) {
    existingByKey.set(rules.existingKey(e), e);
    yield;
  }

  const creates: D[] = [];
  const updates: DiffUpdate<D, E>[] = [];
  const conflicts: DiffConflict<D, E>[] = [];
  const seen = new Set<string>();
  let unchanged = 0;
  for (const d of desired) {
    yield;
    const key = rules.desiredKey(d);
    if (seen.has(key)) continue;
    seen.add(key);
    const e = existingByKey.get(key);
    const owner = e === undefined ? undefined : (rules.ownership?.(e) ?? 'managed');
    if (e !== undefined && owner === 'foreign') {
      conflicts.push({ desired: d, existing: e });
      continue;
    }
    const write = rules.changed(d, e);
    if (write === undefined) unchanged++;
    else if (e === undefined) creates.push(write);
    else
      updates.push(
        owner === 'legacy' ? { desired: write, existing: e, adopt: true } : { desired: write, existing: e },
      );
  }

  const deletes: E[] = [];
  const kept: E[] = [];
  for (const e of existing) {
    yield;
    if (seen.has(rules.existingKey(e))) continue;
    if ((rules.ownership?.(e) ?? 'managed') !== 'managed') continue;
    ((rules.mayDelete?.(e) ?? true) ? deletes : kept).push(e);
  }
  return { creates, updates, deletes, kept, conflicts, unchanged };
}

/** `items` ordered by `key` (a tuple of strings compared element by element). */
export function sortByKey<T>(items: readonly T[], key: (t: T) => readonly string[]): T[] {
  return runToEnd(sortByKeySteps(items, key));
}

/** Runs of at most this many items are sorted in one call; longer inputs are merged from such runs. */
const SORT_RUN = 1024;

/**
 * sortByKey as a pass (util/slices.ts): runs of SORT_RUN items sorted at once, then merged pairwise, pausing after
 * each run and each merged item. Stable, like Array.prototype.sort, so the order is exactly sortByKey's.
 */
export function* sortByKeySteps<T>(
  items: readonly T[],
  key: (t: T) => readonly string[],
): Generator<void, T[], undefined> {
  type Keyed = { readonly item: T; readonly k: readonly string[] };
  const keyed: Keyed[] = [];
  for (const item of items) {
    keyed.push({ item, k: key(item) });
    yield;
  }
  const byKey = (a: Keyed, b: Keyed) => compareKeys(a.k, b.k);
  let runs: Keyed[][] = [];
  for (let i = 0; i < keyed.length; i += SORT_RUN) {
    runs.push(keyed.slice(i, i + SORT_RUN).sort(byKey));
    yield;
  }
  while (runs.length > 1) {
    const merged: Keyed[][] = [];
    for (let i = 0; i < runs.length; i += 2) {
      const a = runs[i] as Keyed[];
      const b = runs[i + 1];
      merged.push(b === undefined ? a : yield* mergeSteps(a, b, byKey));
    }
    runs = merged;
  }
  return (runs[0] ?? []).map((x) => x.item);
}

/** The stable merge of two sorted lists (on ties `a` first), pausing after each item. */
function* mergeSteps<T>(
  a: readonly T[],
  b: readonly T[],
  compare: (x: T, y: T) => number,
): Generator<void, T[], undefined> {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    out.push(compare(b[j] as T, a[i] as T) < 0 ? (b[j++] as T) : (a[i++] as T));
    yield;
  }
  while (i < a.length) out.push(a[i++] as T);
  while (j < b.length) out.push(b[j++] as T);
  return out;
}

function compareKeys(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? '';
    const y = b[i] ?? '';
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}
