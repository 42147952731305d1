/**
 * The pure half of reconciliation: `diff(desired, existing)` plans which managed objects to create, update and
 * delete. No I/O; the plan is applied by the reconciler through a sink.
 */
import { CONTENT_HASH_ANNOTATION, SOURCE_ANNOTATION } from '../model/constants.ts';
import type { OutputObject } from '../model/objects.ts';
import { contentHash } from '../util/json.ts';

export type ManagedKind = OutputObject['kind'];

/**
 * What diff plans over: a kind, the owned metadata and the spec. EnvoyFilters and gateway VirtualServices
 * (OutputObject) by default; the registry ServiceEntries (src/registry/kube-output.ts) too.
 */
export interface DiffObject {
  readonly kind: string;
  readonly metadata: {
    readonly namespace: string;
    readonly name: string;
    readonly labels: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly spec: unknown;
}

/** A managed object as it exists in the sink (only the fields the controller compares or needs to write). */
export interface ExistingObject<K extends string = ManagedKind> {
  readonly kind: K;
  readonly namespace: string;
  readonly name: string;
  readonly resourceVersion: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly spec: unknown;
}

export interface PlannedUpdate<T extends DiffObject = OutputObject, K extends string = ManagedKind> {
  readonly desired: T;
  readonly existing: ExistingObject<K>;
}

/** Every list is ordered by kind, namespace, name. `desired` objects in the plan carry the content-hash annotation. */
export interface Plan<T extends DiffObject = OutputObject, K extends string = ManagedKind> {
  readonly creates: readonly T[];
  readonly updates: readonly PlannedUpdate<T, K>[];
  readonly deletes: readonly ExistingObject<K>[];
  /** Existing objects that are not desired but kept because their source failed (or could not be known). */
  readonly kept: readonly ExistingObject<K>[];
  readonly unchanged: number;
}

export interface DiffOptions {
  /** SOURCE_ANNOTATION values of sources whose generation failed (or that are invalid right now). */
  readonly failedSources: ReadonlySet<string>;
  /** Optional memo of existing-object hashes (key includes the resourceVersion), shared across runs. */
  readonly hashMemo?: Map<string, string>;
  /**
   * Optional memo of desiredHash by desired object (objects are never mutated): when generation hands back the
   * same object for an unchanged source, it is not hashed again.
   */
  readonly desiredMemo?: WeakMap<DiffObject, string>;
  /**
   * Optional memo of the pairs found equal: existing object → the desired object it matched. The same two
   * objects (both are never mutated) in a later run are equal again without being compared.
   */
  readonly equalMemo?: WeakMap<ExistingObject<string>, DiffObject>;
}

export function objectKey(kind: string, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

function pick(
  from: Readonly<Record<string, string>>,
  keys: readonly string[],
): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const k of keys) out[k] = from[k];
  return out;
}

function ownedAnnotationKeys(obj: DiffObject): string[] {
  return Object.keys(obj.metadata.annotations ?? {})
    .filter((k) => k !== CONTENT_HASH_ANNOTATION)
    .sort();
}

/**
 * Hash of the fields the controller owns: kind, its labels, its annotations (without the hash itself) and the
 * whole spec. Foreign labels and annotations on an existing object are not compared (and are preserved on update).
 */
export function desiredHash(obj: DiffObject): string {
  const labelKeys = Object.keys(obj.metadata.labels).sort();
  const annotationKeys = ownedAnnotationKeys(obj);
  return contentHash({
    kind: obj.kind,
    labels: pick(obj.metadata.labels, labelKeys),
    annotations: pick(obj.metadata.annotations ?? {}, annotationKeys),
    spec: obj.spec,
  });
}

function existingHash(e: ExistingObject<string>, labelKeys: string[], annotationKeys: string[]): string {
  return contentHash({
    kind: e.kind,
    labels: pick(e.labels, labelKeys),
    annotations: pick(e.annotations, annotationKeys),
    spec: e.spec,
  });
}

/** The desired object with CONTENT_HASH_ANNOTATION set to desiredHash. */
export function withContentHash<T extends DiffObject>(obj: T, hash = desiredHash(obj)): T {
  return {
    ...obj,
    metadata: {
      ...obj.metadata,
      annotations: { ...(obj.metadata.annotations ?? {}), [CONTENT_HASH_ANNOTATION]: hash },
    },
  };
}

function isUnchanged(
  desired: DiffObject,
  hash: string,
  e: ExistingObject<string>,
  memo?: Map<string, string>,
): boolean {
  // The annotation alone is not enough: a person may edit the spec and keep the annotation (drift).
  if (e.annotations[CONTENT_HASH_ANNOTATION] !== hash) return false;
  const labelKeys = Object.keys(desired.metadata.labels).sort();
  const annotationKeys = ownedAnnotationKeys(desired);
  const memoKey = `${objectKey(e.kind, e.namespace, e.name)}@${e.resourceVersion}#${labelKeys.join(',')}#${annotationKeys.join(',')}`;
  let actual = e.resourceVersion ? memo?.get(memoKey) : undefined;
  if (actual === undefined) {
    actual = existingHash(e, labelKeys, annotationKeys);
    if (memo && e.resourceVersion) memo.set(memoKey, actual);
  }
  return actual === hash;
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
  const existingByKey = new Map<string, ExistingObject<K>>();
  for (const e of existing) existingByKey.set(objectKey(e.kind, e.namespace, e.name), e);

  const creates: T[] = [];
  const updates: PlannedUpdate<T, K>[] = [];
  const seen = new Set<string>();
  let unchanged = 0;
  // Input order, so the first of duplicate keys wins; only the (few) writes are sorted afterwards.
  for (const d of desired) {
    const key = objectKey(d.kind, d.metadata.namespace, d.metadata.name);
    if (seen.has(key)) continue;
    seen.add(key);
    const e = existingByKey.get(key);
    if (e !== undefined && options.equalMemo?.get(e) === d) {
      unchanged++;
      continue;
    }
    let hash = options.desiredMemo?.get(d);
    if (hash === undefined) {
      hash = desiredHash(d);
      options.desiredMemo?.set(d, hash);
    }
    if (e === undefined) creates.push(withContentHash(d, hash));
    else if (isUnchanged(d, hash, e, options.hashMemo)) {
      unchanged++;
      options.equalMemo?.set(e, d);
    } else updates.push({ desired: withContentHash(d, hash), existing: e });
  }

  const deletes: ExistingObject<K>[] = [];
  const kept: ExistingObject<K>[] = [];
  for (const e of existing) {
    if (seen.has(objectKey(e.kind, e.namespace, e.name))) continue;
    const source = e.annotations[SOURCE_ANNOTATION];
    const deletable =
      source === undefined ? options.failedSources.size === 0 : !options.failedSources.has(source);
    (deletable ? deletes : kept).push(e);
  }
  const desiredKey = (o: DiffObject) => [o.kind, o.metadata.namespace, o.metadata.name];
  const existingKey = (o: ExistingObject<K>) => [o.kind, o.namespace, o.name];
  return {
    creates: sortObjects(creates, desiredKey),
    updates: sortObjects(updates, (u) => desiredKey(u.desired)),
    deletes: sortObjects(deletes, existingKey),
    kept: sortObjects(kept, existingKey),
    unchanged,
  };
}

function sortObjects<T>(items: readonly T[], key: (t: T) => readonly string[]): T[] {
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
