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
  const existingByKey = new Map<string, E>();
  for (const e of existing) existingByKey.set(rules.existingKey(e), e);

  const creates: D[] = [];
  const updates: DiffUpdate<D, E>[] = [];
  const conflicts: DiffConflict<D, E>[] = [];
  const seen = new Set<string>();
  let unchanged = 0;
  for (const d of desired) {
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
    if (seen.has(rules.existingKey(e))) continue;
    if ((rules.ownership?.(e) ?? 'managed') !== 'managed') continue;
    ((rules.mayDelete?.(e) ?? true) ? deletes : kept).push(e);
  }
  return { creates, updates, deletes, kept, conflicts, unchanged };
}

/** `items` ordered by `key` (a tuple of strings compared element by element). */
export function sortByKey<T>(items: readonly T[], key: (t: T) => readonly string[]): T[] {
  return items
    .map((item) => ({ item, k: key(item) }))
    .sort((a, b) => compareKeys(a.k, b.k))
    .map((x) => x.item);
}

function compareKeys(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? '';
    const y = b[i] ?? '';
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}
