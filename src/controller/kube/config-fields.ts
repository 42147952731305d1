/**
 * The config source's reducer (kit/kube/informer-hub.ts SubscribeOptions.reduce) for the kinds it parses: an
 * object as served without what parseConfigObject (model/parse/parse.ts) never reads, so the shared informer's cache
 * does not hold it once every subscriber of the kind reduces. Dropped: `status`, `metadata.managedFields` (written
 * by the API server on every write) and kubectl's last-applied annotation (the whole object again, as JSON); every
 * other field is kept as served, so a reduced object parses to exactly the object the full one parses to.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { LAST_APPLIED_ANNOTATION } from '../../model/parse/parse.ts';
import { isPlainObject } from '../../util/json.ts';

export function configFields(obj: KubernetesObject): KubernetesObject {
  if (!isPlainObject(obj)) return obj;
  const { status: _status, metadata, ...rest } = obj;
  if (!isPlainObject(metadata)) return rest;
  const { managedFields: _managed, annotations, ...meta } = metadata;
  return {
    ...rest,
    metadata: {
      ...meta,
      ...(annotations !== undefined ? { annotations: withoutLastApplied(annotations) } : {}),
    },
  } as KubernetesObject;
}

function withoutLastApplied(annotations: unknown): unknown {
  if (!isPlainObject(annotations) || !(LAST_APPLIED_ANNOTATION in annotations)) return annotations;
  const { [LAST_APPLIED_ANNOTATION]: _unread, ...rest } = annotations;
  return rest;
}
