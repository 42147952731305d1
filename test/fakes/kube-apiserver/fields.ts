// Field paths and FieldsV1 sets for managedFields. Without schemas the fake treats every list as atomic
// (owned as a whole) and every map as granular, which is what a CRD without list-type markers gets.
// https://kubernetes.io/docs/reference/using-api/server-side-apply/#field-management
import { isDeepStrictEqual } from 'node:util';

export type FieldPath = readonly string[];

function isObj(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Metadata fields the server owns: never part of a field set. */
const SERVER_METADATA = new Set([
  'name',
  'namespace',
  'generateName',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
]);

/** Leaf paths of a whole object, leaving out apiVersion, kind, server-owned metadata and (optionally) status. */
export function objectLeafPaths(obj: Record<string, unknown>, withStatus: boolean): FieldPath[] {
  const out: FieldPath[] = [];
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'apiVersion' || k === 'kind' || (k === 'status' && !withStatus)) continue;
    if (k === 'metadata' && isObj(v)) {
      for (const [mk, mv] of Object.entries(v)) {
        if (!SERVER_METADATA.has(mk) && mv !== undefined) leafPaths(mv, ['metadata', mk], out);
      }
      continue;
    }
    if (v !== undefined) leafPaths(v, [k], out);
  }
  return out;
}

function leafPaths(v: unknown, prefix: string[], out: FieldPath[]): void {
  if (isObj(v) && Object.keys(v).length > 0) {
    for (const [k, c] of Object.entries(v)) if (c !== undefined) leafPaths(c, [...prefix, k], out);
  } else out.push(prefix);
}

export function getPath(obj: unknown, path: FieldPath): unknown {
  let cur = obj;
  for (const k of path) {
    if (!isObj(cur)) return undefined;
    cur = cur[k];
  }
  return cur;
}

export function setPath(obj: Record<string, unknown>, path: FieldPath, value: unknown): void {
  let cur = obj;
  path.forEach((k, i) => {
    if (i === path.length - 1) cur[k] = structuredClone(value);
    else {
      if (!isObj(cur[k])) cur[k] = {};
      cur = cur[k] as Record<string, unknown>;
    }
  });
}

/** Deletes a path, then any parent maps it left empty (metadata itself stays). */
export function deletePath(obj: Record<string, unknown>, path: FieldPath, i = 0): void {
  const k = path[i];
  if (k === undefined) return;
  if (i === path.length - 1) {
    delete obj[k];
    return;
  }
  const child = obj[k];
  if (!isObj(child)) return;
  deletePath(child, path, i + 1);
  if (Object.keys(child).length === 0 && !(i === 0 && k === 'metadata')) delete obj[k];
}

export function overlaps(a: FieldPath, b: FieldPath): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function samePath(a: FieldPath, b: FieldPath): boolean {
  return a.length === b.length && overlaps(a, b);
}

/** Leaf paths whose values differ between two objects (added, changed or removed). */
export function changedPaths(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  withStatus: boolean,
): FieldPath[] {
  const out: FieldPath[] = [];
  const seen = new Set<string>();
  for (const p of [...objectLeafPaths(after, withStatus), ...objectLeafPaths(before, withStatus)]) {
    const key = JSON.stringify(p);
    if (seen.has(key)) continue;
    seen.add(key);
    if (!isDeepStrictEqual(getPath(before, p), getPath(after, p))) out.push(p);
  }
  return out;
}

/** Encodes paths as FieldsV1 (`{"f:spec":{"f:replicas":{}}}`). */
export function toFieldsV1(paths: readonly FieldPath[]): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const p of paths) {
    let cur = root;
    for (const k of p) {
      const key = `f:${k}`;
      if (!isObj(cur[key])) cur[key] = {};
      cur = cur[key] as Record<string, unknown>;
    }
  }
  return root;
}

/** Decodes FieldsV1 into leaf paths (`.` markers and `k:`/`v:`/`i:` list members are folded into the parent). */
export function fromFieldsV1(set: unknown): FieldPath[] {
  const out: FieldPath[] = [];
  const walk = (node: unknown, prefix: string[]): void => {
    const keys = isObj(node) ? Object.keys(node).filter((k) => k.startsWith('f:')) : [];
    if (
      keys.length === 0 ||
      (isObj(node) && Object.keys(node).some((k) => !k.startsWith('f:') && k !== '.'))
    ) {
      if (prefix.length > 0) out.push(prefix);
      return;
    }
    for (const k of keys) walk((node as Record<string, unknown>)[k], [...prefix, k.slice(2)]);
  };
  walk(set, []);
  return out;
}
