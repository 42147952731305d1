/**
 * Object bodies as the controller reads and writes them through the Kubernetes API: the fields of a listed or
 * written object a writer compares or needs (`toExisting`), and the body of a replace (`updateBody`). The shapes
 * are those of the write planners (kit/owned-content.ts DiffObject and ExistingObject).
 */
import { isPlainObject } from '../../util/json.ts';
import type { DiffObject, ExistingObject } from '../owned-content.ts';

/** An object to write (kit/owned-content.ts DiffObject): kind, the owned metadata, the spec. */
export type DesiredBody = DiffObject;

/** An object as it exists in the API server (kit/owned-content.ts ExistingObject). */
export type ExistingBody<K extends string> = ExistingObject<K>;

function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isPlainObject(v)) return out;
  for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
}

/** The fields of a listed item the reconciler needs; undefined for malformed items. */
export function toExisting<K extends string>(kind: K, item: unknown): ExistingBody<K> | undefined {
  if (!isPlainObject(item) || !isPlainObject(item['metadata'])) return undefined;
  const m = item['metadata'];
  if (typeof m['name'] !== 'string') return undefined;
  return {
    kind,
    namespace: typeof m['namespace'] === 'string' ? m['namespace'] : '',
    name: m['name'],
    resourceVersion: typeof m['resourceVersion'] === 'string' ? m['resourceVersion'] : '',
    labels: stringMap(m['labels']),
    annotations: stringMap(m['annotations']),
    spec: item['spec'] ?? {},
  };
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
