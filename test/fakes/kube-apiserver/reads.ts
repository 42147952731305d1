// Get, list, delete and deletecollection.
import { present, rfc3339 } from './objects.ts';
import { groupVersion } from './registry.ts';
import type { Selector } from './selectors.ts';
import { conflict, notFound, type StatusObject } from './status.ts';
import type { ObjectStore } from './store.ts';
import type { KubeObject, ResourceType } from './types.ts';

export interface ListObject {
  apiVersion: string;
  kind: string;
  metadata: { resourceVersion: string };
  items: KubeObject[];
}

export function getObject(
  store: ObjectStore,
  rt: ResourceType,
  version: string,
  namespace: string | undefined,
  name: string,
): KubeObject {
  const o = store.get(rt, namespace, name);
  if (!o) throw notFound(rt, name);
  return present(rt, version, o);
}

/** Items of a core-group list carry no apiVersion/kind (as the real server sends them); others do. */
function listItem(rt: ResourceType, version: string, o: KubeObject): KubeObject {
  const p = present(rt, version, o);
  if (rt.group !== '') return p;
  const { apiVersion: _a, kind: _k, ...rest } = p;
  return rest as KubeObject;
}

/** A list at the current resourceVersion, ordered by namespace/name. */
export function listObjects(
  store: ObjectStore,
  rt: ResourceType,
  version: string,
  namespace: string | undefined,
  selectors: Selector[],
): ListObject {
  const items = store
    .list(rt, namespace)
    .filter((o) => selectors.every((s) => s(o)))
    .map((o) => listItem(rt, version, o));
  return {
    apiVersion: groupVersion(rt.group, version),
    kind: `${rt.kind}List`,
    metadata: { resourceVersion: String(store.currentRv()) },
    items,
  };
}

export interface DeleteOptionsLike {
  preconditions?: { resourceVersion?: string; uid?: string };
}

/**
 * DELETE: with finalizers the object only gets a deletionTimestamp (MODIFIED); otherwise it is removed
 * (DELETED) and the answer is the last state (custom resources) or a Success Status (core kinds).
 */
export function deleteObject(
  store: ObjectStore,
  now: () => Date,
  rt: ResourceType,
  version: string,
  namespace: string | undefined,
  name: string,
  options: DeleteOptionsLike,
  dryRun = false,
): KubeObject | StatusObject {
  const live = store.get(rt, namespace, name);
  if (!live) throw notFound(rt, name);
  const pre = options.preconditions ?? {};
  if (pre.uid && pre.uid !== live.metadata.uid) {
    throw conflict(
      rt,
      name,
      `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${live.metadata.uid ?? ''}`,
    );
  }
  if (pre.resourceVersion && pre.resourceVersion !== live.metadata.resourceVersion) {
    throw conflict(
      rt,
      name,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${live.metadata.resourceVersion ?? ''}`,
    );
  }
  if (dryRun) return present(rt, version, live);
  if ((live.metadata.finalizers ?? []).length > 0) {
    if (live.metadata.deletionTimestamp) return present(rt, version, live);
    live.metadata.deletionTimestamp = rfc3339(now());
    live.metadata.deletionGracePeriodSeconds = 0;
    live.metadata.generation = (live.metadata.generation ?? 1) + 1;
    return present(rt, version, store.put(rt, live));
  }
  const last = store.remove(rt, namespace, name)!;
  if (rt.deleteReturns === 'object') return present(rt, version, last);
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name, group: rt.group, kind: rt.plural, uid: last.metadata.uid ?? '' },
    code: 200,
  };
}
