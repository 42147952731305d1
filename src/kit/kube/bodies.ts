/**
 * Object bodies as the controller reads and writes them through the Kubernetes API: the fields of a listed or
 * written object a writer compares or needs (`toExisting`), and the body of a replace (`updateBody`). The shapes
 * are those of the write planners (kit/owned-content.ts DiffObject and ExistingObject).
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { isPlainObject } from '../../util/json.ts';
import { specHash, type DiffObject, type ExistingObject } from '../owned-content.ts';

/** An object to write (kit/owned-content.ts DiffObject): kind, the owned metadata, the spec. */
export type DesiredBody = DiffObject;

/** An object as it exists in the API server (kit/owned-content.ts ExistingObject). */
export type ExistingBody<K extends string> = ExistingObject<K>;

const NO_STRINGS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The string entries of `v`: `v` itself when every value is a string (the object read is shared, never copied: an
 * informer's cached object and the existing object made of it hold one map, and neither changes it), a copy of
 * those entries otherwise.
 */
function stringMap(v: unknown): Readonly<Record<string, string>> {
  if (!isPlainObject(v)) return NO_STRINGS;
  const entries = Object.entries(v);
  if (entries.length === 0) return NO_STRINGS;
  if (entries.every(([, x]) => typeof x === 'string')) return v as Record<string, string>;
  const out: Record<string, string> = {};
  for (const [k, x] of entries) if (typeof x === 'string') out[k] = x;
  return out;
}

/**
 * The fields of a listed item the reconciler needs; undefined for malformed items. The spec is read as its hash
 * (kit/owned-content.ts specHash); an item reduced by `existingFields` carries that hash in place of its spec.
 */
export function toExisting<K extends string>(
  kind: K,
  item: unknown,
  knownHash?: KnownSpecHash,
): ExistingBody<K> | undefined {
  if (!isPlainObject(item) || !isPlainObject(item['metadata'])) return undefined;
  const m = item['metadata'];
  if (typeof m['name'] !== 'string') return undefined;
  const namespace = typeof m['namespace'] === 'string' ? m['namespace'] : '';
  const resourceVersion = typeof m['resourceVersion'] === 'string' ? m['resourceVersion'] : '';
  const reduced = item[SPEC_HASH_FIELD];
  const known = resourceVersion === '' ? undefined : knownHash?.(namespace, m['name'], resourceVersion);
  return {
    kind,
    namespace,
    name: m['name'],
    resourceVersion,
    labels: stringMap(m['labels']),
    annotations: stringMap(m['annotations']),
    specHash: typeof reduced === 'string' ? reduced : (known ?? specHash(item['spec'] ?? {})),
  };
}

/**
 * The spec hash already taken of the object `namespace/name` at `resourceVersion`, if any: an object's content is
 * the same at the same resourceVersion (the API server gives every write a new one), so a list of 30,000 objects
 * most of which are cached need not stringify and hash their specs again.
 */
export type KnownSpecHash = (namespace: string, name: string, resourceVersion: string) => string | undefined;

/** The field of an `existingFields` object that holds its spec's hash. */
const SPEC_HASH_FIELD = 'specHash';

/**
 * An informer's reducer (kit/kube/informer-hub.ts) for objects read by `toExisting`: the metadata it reads, and
 * the hash of the spec instead of the spec, so a cache of written objects does not hold their specs.
 */
export function existingFields(obj: KubernetesObject): KubernetesObject {
  const m = obj.metadata ?? {};
  const item = obj as KubernetesObject & { spec?: unknown };
  return {
    metadata: {
      ...(m.name !== undefined ? { name: m.name } : {}),
      ...(m.namespace !== undefined ? { namespace: m.namespace } : {}),
      ...(m.resourceVersion !== undefined ? { resourceVersion: m.resourceVersion } : {}),
      ...(m.labels !== undefined ? { labels: m.labels } : {}),
      ...(m.annotations !== undefined ? { annotations: m.annotations } : {}),
    },
    [SPEC_HASH_FIELD]: specHash(item.spec ?? {}),
  } as KubernetesObject;
}

/** The PUT body: the desired object plus the existing resourceVersion and the existing foreign labels/annotations. */
export function updateBody(obj: DesiredBody, existing: ExistingBody<string>): Record<string, unknown> {
  return {
    ...obj,
    metadata: {
      ...obj.metadata,
      resourceVersion: existing.resourceVersion,
      labels: { ...existing.labels, ...obj.metadata.labels },
      annotations: { ...existing.annotations, ...(obj.metadata.annotations ?? {}) },
    },
  };
}
