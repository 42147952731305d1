// managedFields bookkeeping: server-side apply (with conflicts) and ownership taken by plain updates.
// https://kubernetes.io/docs/reference/using-api/server-side-apply/
import { isDeepStrictEqual } from 'node:util';
import {
  changedPaths,
  deletePath,
  fromFieldsV1,
  getPath,
  objectLeafPaths,
  overlaps,
  samePath,
  setPath,
  toFieldsV1,
  type FieldPath,
} from './fields.ts';
import type { KubeObject, ManagedFieldsEntry } from './types.ts';

export interface Conflict {
  manager: string;
  path: FieldPath;
}

/** What every write needs to know about the writer. */
export interface Writer {
  manager: string;
  apiVersion: string;
  /** RFC 3339 seconds, the server's clock. */
  time: string;
  /** Whether `status` is part of the main resource (no status subresource). */
  withStatus: boolean;
}

function isOwn(e: ManagedFieldsEntry, manager: string, operation: 'Apply' | 'Update'): boolean {
  return e.manager === manager && e.operation === operation && e.subresource === undefined;
}

/** Rebuilds an entry, keeping the old time when its fields did not change (a no-op stays a no-op). */
function entry(
  old: ManagedFieldsEntry | undefined,
  w: Writer,
  operation: 'Apply' | 'Update',
  paths: readonly FieldPath[],
): ManagedFieldsEntry | undefined {
  if (paths.length === 0) return undefined;
  const fieldsV1 = toFieldsV1(paths);
  const same =
    old !== undefined && isDeepStrictEqual(old.fieldsV1, fieldsV1) && old.apiVersion === w.apiVersion;
  return {
    manager: w.manager,
    operation,
    apiVersion: w.apiVersion,
    time: same ? old.time : w.time,
    fieldsType: 'FieldsV1',
    fieldsV1,
  };
}

function withoutPaths(
  e: ManagedFieldsEntry,
  drop: (p: FieldPath) => boolean,
): ManagedFieldsEntry | undefined {
  const before = fromFieldsV1(e.fieldsV1);
  const kept = before.filter((p) => !drop(p));
  if (kept.length === before.length) return e;
  return kept.length === 0 ? undefined : { ...e, fieldsV1: toFieldsV1(kept) };
}

/**
 * Server-side apply of `applied` over `live` (undefined: create). Returns the conflicts when another manager
 * owns a field the applier sets to a different value and `force` is false; otherwise the merged object
 * (managedFields updated; resourceVersion etc. still those of `live`).
 */
export function serverSideApply(
  live: KubeObject | undefined,
  applied: KubeObject,
  w: Writer,
  force: boolean,
): { object: KubeObject } | { conflicts: Conflict[] } {
  const appliedPaths = objectLeafPaths(applied, w.withStatus);
  const entries = live?.metadata.managedFields ?? [];
  const mine = entries.find((e) => isOwn(e, w.manager, 'Apply'));
  const others = entries.filter((e) => e !== mine);
  const conflicts: Conflict[] = [];
  if (live) {
    for (const e of others) {
      const owned = fromFieldsV1(e.fieldsV1);
      for (const q of appliedPaths) {
        if (!owned.some((p) => overlaps(p, q))) continue;
        if (!isDeepStrictEqual(getPath(live, q), getPath(applied, q)))
          conflicts.push({ manager: e.manager, path: q });
      }
    }
  }
  if (conflicts.length > 0 && !force) return { conflicts };

  const forced = (p: FieldPath): boolean => conflicts.some((c) => overlaps(c.path, p));
  const kept = others.map((e) => withoutPaths(e, forced)).filter((e) => e !== undefined);
  const result: KubeObject = live ? structuredClone(live) : { metadata: {} };
  if (!w.withStatus && !live) delete result.status;
  const ownedByOthers = kept.flatMap((e) => fromFieldsV1(e.fieldsV1));
  for (const p of mine ? fromFieldsV1(mine.fieldsV1) : []) {
    if (appliedPaths.some((q) => samePath(p, q))) continue;
    if (ownedByOthers.some((o) => overlaps(o, p))) continue;
    if (appliedPaths.some((q) => overlaps(q, p))) continue;
    deletePath(result, p);
  }
  for (const q of appliedPaths) setPath(result, q, getPath(applied, q));
  if (applied.apiVersion !== undefined) result.apiVersion = applied.apiVersion;
  if (applied.kind !== undefined) result.kind = applied.kind;
  const own = entry(mine, w, 'Apply', appliedPaths);
  // keep the original order: replace in place, append when new
  const ordered: ManagedFieldsEntry[] = [];
  for (const e of entries) {
    if (e === mine) {
      if (own) ordered.push(own);
    } else {
      const k = kept.find(
        (x) => x.manager === e.manager && x.operation === e.operation && x.subresource === e.subresource,
      );
      if (k) ordered.push(k);
    }
  }
  if (!mine && own) ordered.push(own);
  result.metadata.managedFields = ordered;
  return { object: result };
}

/**
 * Ownership after a create/update/patch by `w`: the writer's Update entry gains the fields it changed,
 * other managers lose them, and fields that no longer exist leave every set.
 */
export function recordUpdate(before: KubeObject | undefined, after: KubeObject, w: Writer): void {
  const changed = changedPaths(before ?? { metadata: {} }, after, w.withStatus);
  const entries = before?.metadata.managedFields ?? [];
  const exists = (p: FieldPath): boolean => getPath(after, p) !== undefined;
  const out: ManagedFieldsEntry[] = [];
  let mine: ManagedFieldsEntry | undefined;
  for (const e of entries) {
    if (isOwn(e, w.manager, 'Update')) {
      mine = e;
      continue;
    }
    const k = withoutPaths(e, (p) => !exists(p) || changed.some((c) => overlaps(c, p) && exists(c)));
    if (k) out.push(k);
  }
  const myPaths = [...(mine ? fromFieldsV1(mine.fieldsV1) : []), ...changed].filter(exists);
  const unique = myPaths.filter((p, i) => myPaths.findIndex((q) => samePath(p, q)) === i);
  const own = entry(mine, w, 'Update', unique);
  if (own) {
    const at = mine ? entries.indexOf(mine) : -1;
    if (at >= 0) out.splice(Math.min(at, out.length), 0, own);
    else out.push(own);
  }
  after.metadata.managedFields = out;
}
