/**
 * The content comparison of Kubernetes objects written by the controller (EnvoyFilters, gateway VirtualServices,
 * registry ServiceEntries): the owned fields (kind, our labels and annotations, the whole spec) are hashed into
 * CONTENT_HASH_ANNOTATION, and an existing object is current when its owned fields are those of the desired object.
 * Foreign labels and annotations are neither compared nor lost (the update body keeps them). An existing object
 * holds the hash of its spec (`specHash`, computed once when it is read), not the spec: the spec is the bulk of an
 * EnvoyFilter, and its hash is all the comparison needs. The `changed` hook of kit/diff.ts.
 */
import { CONTENT_HASH_ANNOTATION } from '../model/constants.ts';
import { contentHash } from '../util/json.ts';

/** What is compared and written: a kind, the owned metadata and the spec. */
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

/** An object as it exists in the sink (only the fields the controller compares or needs to write). */
export interface ExistingObject<K extends string = string> {
  readonly kind: K;
  readonly namespace: string;
  readonly name: string;
  readonly resourceVersion: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  /** `specHash` of the object's spec: what the comparison reads of it (the spec itself is not held). */
  readonly specHash: string;
}

/** The hash of a spec as the content comparison compares it (its stable stringification). */
export function specHash(spec: unknown): string {
  return contentHash(spec);
}

export interface ContentMemos {
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

export const desiredObjectKey = (o: DiffObject): string =>
  objectKey(o.kind, o.metadata.namespace, o.metadata.name);
export const existingObjectKey = (o: ExistingObject<string>): string =>
  objectKey(o.kind, o.namespace, o.name);

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

/** The existing values of the desired object's own keys are its values (a missing key differs). */
function sameValues(
  desired: Readonly<Record<string, string>>,
  existing: Readonly<Record<string, string>>,
  keys: readonly string[],
): boolean {
  return keys.every((k) => existing[k] === desired[k]);
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

/**
 * True when `e` holds the owned content of `desired`: the hash annotation, the kind, the desired object's labels
 * and annotations (without the hash itself), and the spec (by its hash). What hashing both objects' owned fields
 * (desiredHash) and comparing the hashes decides, without the existing spec.
 */
function isUnchanged(desired: DiffObject, hash: string, e: ExistingObject<string>): boolean {
  // The annotation alone is not enough: a person may edit the spec and keep the annotation (drift).
  if (e.annotations[CONTENT_HASH_ANNOTATION] !== hash) return false;
  return (
    e.kind === desired.kind &&
    sameValues(desired.metadata.labels, e.labels, Object.keys(desired.metadata.labels)) &&
    sameValues(desired.metadata.annotations ?? {}, e.annotations, ownedAnnotationKeys(desired)) &&
    e.specHash === specHash(desired.spec)
  );
}

/**
 * The `changed` hook of kit/diff.ts for these objects: `d` with its content hash when `e` is absent or its owned
 * content differs (a hand edit under an intact hash annotation included), undefined when `e` is current.
 */
export function ownedContentChanged<T extends DiffObject>(
  memos: ContentMemos = {},
): (d: T, e: ExistingObject<string> | undefined) => T | undefined {
  return (d, e) => {
    if (e !== undefined && memos.equalMemo?.get(e) === d) return undefined;
    let hash = memos.desiredMemo?.get(d);
    if (hash === undefined) {
      hash = desiredHash(d);
      memos.desiredMemo?.set(d, hash);
    }
    if (e === undefined) return withContentHash(d, hash);
    if (isUnchanged(d, hash, e)) {
      memos.equalMemo?.set(e, d);
      return undefined;
    }
    return withContentHash(d, hash);
  };
}
