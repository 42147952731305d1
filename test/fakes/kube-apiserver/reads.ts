// Get, list, delete and deletecollection.
import { present, rfc3339 } from './objects.ts';
import { groupVersion } from './registry.ts';
import { MATCH_ALL, type Selector } from './selectors.ts';
import { ApiError, badRequest, conflict, expired, notFound, type StatusObject } from './status.ts';
import { objectKey, type ObjectStore } from './store.ts';
import type { KubeObject, ResourceType } from './types.ts';

export interface ListObject {
  apiVersion: string;
  kind: string;
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
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

/**
 * Items of a core-group list carry no apiVersion/kind (as the real server sends them); others do. Not a copy: a
 * list is serialised as soon as it is built (a list of 30,000 objects cloned first kept the server busy for
 * seconds).
 */
function listItem(rt: ResourceType, version: string, o: KubeObject): KubeObject {
  const { apiVersion: _a, kind: _k, ...rest } = o;
  if (rt.group === '') return rest;
  return { apiVersion: groupVersion(rt.group, version), kind: rt.kind, ...rest };
}

export interface Paging {
  limit?: number;
  continueToken?: string;
}

function decodeContinue(store: ObjectStore, token: string): { rv: number; after: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const p = parsed as { rv?: unknown; after?: unknown } | undefined;
  if (typeof p?.rv !== 'number' || typeof p.after !== 'string') throw badRequest('invalid continue token');
  if (p.rv < store.oldestWatchableRv()) {
    throw new ApiError(
      expired(
        'The provided continue parameter is too old to display a consistent list result. You can start a new ' +
          'list without the continue parameter.',
      ),
    );
  }
  return { rv: p.rv, after: p.after };
}

/**
 * A list at the current resourceVersion, ordered by namespace/name. With `limit`, a page and a `continue`
 * token (later pages show the objects as they are now, but keep the first page's resourceVersion).
 */
export function listObjects(
  store: ObjectStore,
  rt: ResourceType,
  version: string,
  namespace: string | undefined,
  selectors: Selector[],
  paging: Paging = {},
): ListObject {
  const from = paging.continueToken ? decodeContinue(store, paging.continueToken) : undefined;
  const rv = from?.rv ?? store.currentRv();
  const selective = selectors.some((s) => s !== MATCH_ALL);
  const limit = paging.limit !== undefined && paging.limit > 0 ? paging.limit : undefined;
  const page: KubeObject[] = [];
  let more = false;
  let remaining = 0;
  for (const o of store.iterate(rt, namespace, from?.after)) {
    if (!selectors.every((s) => s(o))) continue;
    if (limit === undefined || page.length < limit) {
      page.push(o);
      continue;
    }
    more = true;
    // Under a label or field selector the real server leaves the number of remaining items unset.
    if (selective) break;
    remaining++;
  }
  const metadata: ListObject['metadata'] = { resourceVersion: String(rv) };
  if (more) {
    const last = page[page.length - 1]!;
    const after = objectKey(last.metadata.namespace, last.metadata.name ?? '');
    metadata.continue = Buffer.from(JSON.stringify({ rv, after })).toString('base64url');
    if (!selective) metadata.remainingItemCount = remaining;
  }
  return {
    apiVersion: groupVersion(rt.group, version),
    kind: `${rt.kind}List`,
    metadata,
    items: page.map((o) => listItem(rt, version, o)),
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
