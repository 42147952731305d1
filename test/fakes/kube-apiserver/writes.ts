// Create, update and patch with the real server's semantics (preconditions, generation, managedFields).
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { recordUpdate, serverSideApply, type Writer } from './managed.ts';
import { asKubeObject, present, rfc3339, specChanged, validateName } from './objects.ts';
import { jsonPatch, mergePatch } from './patches.ts';
import { groupVersion } from './registry.ts';
import { ApiError, alreadyExists, badRequest, conflict, failure, notFound } from './status.ts';
import type { ObjectStore } from './store.ts';
import type { KubeObject, ResourceType } from './types.ts';

export interface WriteOptions {
  fieldManager?: string;
  userAgent?: string;
  force?: boolean;
  dryRun?: boolean;
  subresource?: string;
  /** Seeding only: a main-resource write that also sets status. */
  withStatus?: boolean;
}

export interface WriteContext {
  store: ObjectStore;
  now: () => Date;
  /** When set, writes into a namespace that does not exist get 404 (as on a real server). */
  requireNamespaces: boolean;
  namespaceType: ResourceType;
}

/** The manager name the real server derives: the fieldManager, else the User-Agent up to its first '/'. */
export function managerName(o: WriteOptions): string {
  if (o.fieldManager) return o.fieldManager;
  const ua = o.userAgent?.split('/')[0]?.trim();
  return ua || 'unknown';
}

function writer(ctx: WriteContext, rt: ResourceType, version: string, o: WriteOptions): Writer {
  return {
    manager: managerName(o),
    apiVersion: groupVersion(rt.group, version),
    time: rfc3339(ctx.now()),
    withStatus: !rt.statusSubresource,
  };
}

function checkNamespace(ctx: WriteContext, rt: ResourceType, namespace: string | undefined): void {
  if (!rt.namespaced || !ctx.requireNamespaces || namespace === undefined) return;
  if (!ctx.store.get(ctx.namespaceType, undefined, namespace)) throw notFound(ctx.namespaceType, namespace);
}

function checkIdentity(
  rt: ResourceType,
  obj: KubeObject,
  namespace: string | undefined,
  name?: string,
): void {
  if (obj.kind !== undefined && obj.kind !== rt.kind) {
    throw badRequest(`the kind of the provided object (${String(obj.kind)}) does not match ${rt.kind}`);
  }
  if (rt.namespaced && obj.metadata.namespace !== undefined && obj.metadata.namespace !== namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  if (name !== undefined && obj.metadata.name !== undefined && obj.metadata.name !== name) {
    throw badRequest(
      `the name of the object (${obj.metadata.name}) does not match the name on the URL (${name})`,
    );
  }
}

/**
 * Finishes a write of `after` over `before`: server-owned fields, status subresource rules, generation,
 * no-op detection (nothing committed, no resourceVersion bump) and finalizer-driven removal.
 */
function commit(
  ctx: WriteContext,
  rt: ResourceType,
  version: string,
  before: KubeObject | undefined,
  after: KubeObject,
  o: WriteOptions,
): KubeObject {
  const m = after.metadata;
  if (rt.statusSubresource && o.subresource !== 'status' && !o.withStatus) {
    if (before?.status === undefined) delete after.status;
    else after.status = structuredClone(before.status);
  }
  if (rt.namespaced) m.namespace = m.namespace ?? before?.metadata.namespace;
  else delete m.namespace;
  if (before) {
    const b = before.metadata;
    Object.assign(m, {
      name: b.name,
      uid: b.uid,
      creationTimestamp: b.creationTimestamp,
      resourceVersion: b.resourceVersion,
    });
    if (b.deletionTimestamp) m.deletionTimestamp = b.deletionTimestamp;
    else delete m.deletionTimestamp;
    m.generation = (b.generation ?? 1) + (specChanged(before, after) ? 1 : 0);
  }
  after.apiVersion = groupVersion(rt.group, version);
  after.kind = rt.kind;
  if (before && isDeepStrictEqual(present(rt, version, before), after)) return after;
  if (o.dryRun) return after;
  if (m.deletionTimestamp && (m.finalizers ?? []).length === 0) {
    return ctx.store.remove(rt, m.namespace, m.name ?? '') ?? after;
  }
  return ctx.store.put(rt, after);
}

export function createObject(
  ctx: WriteContext,
  rt: ResourceType,
  version: string,
  namespace: string | undefined,
  body: unknown,
  o: WriteOptions,
): KubeObject {
  const obj = asKubeObject(body);
  if (!obj) throw badRequest('the body of the request was in an unknown format');
  checkIdentity(rt, obj, namespace);
  const m = obj.metadata;
  if (!m.name && m.generateName) m.name = `${m.generateName}${randomUUID().replace(/-/g, '').slice(0, 5)}`;
  const name = validateName(rt, m.name);
  checkNamespace(ctx, rt, namespace);
  if (ctx.store.get(rt, namespace, name)) throw alreadyExists(rt, name);
  if (rt.namespaced) m.namespace = namespace;
  m.uid = randomUUID();
  m.creationTimestamp = rfc3339(ctx.now());
  m.generation = 1;
  delete m.resourceVersion;
  delete m.deletionTimestamp;
  if (rt.kind === 'Namespace' && rt.group === '') obj.status = { phase: 'Active' };
  recordUpdate(undefined, obj, writer(ctx, rt, version, o));
  return commit(ctx, rt, version, undefined, obj, o);
}

function precondition(rt: ResourceType, live: KubeObject, obj: KubeObject): void {
  const want = obj.metadata.resourceVersion;
  if (want !== undefined && want !== '' && want !== live.metadata.resourceVersion) {
    throw conflict(rt, live.metadata.name ?? '');
  }
}

/** PUT: replaces the object (or its status); 409 Conflict on a stale metadata.resourceVersion. */
export function updateObject(
  ctx: WriteContext,
  rt: ResourceType,
  version: string,
  namespace: string | undefined,
  name: string,
  body: unknown,
  o: WriteOptions,
): KubeObject {
  const obj = asKubeObject(body);
  if (!obj) throw badRequest('the body of the request was in an unknown format');
  checkIdentity(rt, obj, namespace, name);
  const live = ctx.store.get(rt, namespace, name);
  if (!live) throw notFound(rt, name);
  precondition(rt, live, obj);
  let after = obj;
  if (o.subresource === 'status') {
    after = structuredClone(live);
    if (obj.status === undefined) delete after.status;
    else after.status = obj.status;
  }
  recordUpdate(live, after, writer(ctx, rt, version, o));
  return commit(ctx, rt, version, live, after, o);
}

/** Parses a request body that may be JSON or YAML (apply patches are declared as YAML). */
export function parseBody(text: string, yamlAllowed: boolean): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    if (!yamlAllowed) throw badRequest(`error decoding JSON: ${(err as Error).message}`);
    try {
      return parseYaml(text) as unknown;
    } catch (yerr) {
      throw badRequest(`error decoding YAML: ${(yerr as Error).message}`);
    }
  }
}

export type PatchType = 'apply' | 'merge' | 'strategic' | 'json';

export function patchTypeOf(contentType: string | undefined): PatchType {
  const ct = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (ct === 'application/apply-patch+yaml' || ct === 'application/apply-patch+json') return 'apply';
  if (ct === 'application/merge-patch+json') return 'merge';
  if (ct === 'application/strategic-merge-patch+json') return 'strategic';
  if (ct === 'application/json-patch+json') return 'json';
  throw new ApiError(
    failure(415, 'UnsupportedMediaType', `the body of the request was in an unknown format: ${ct}`),
  );
}

/** PATCH: merge/strategic (as merge)/JSON patch on an existing object; apply creates or merges. */
export function patchObject(
  ctx: WriteContext,
  rt: ResourceType,
  version: string,
  namespace: string | undefined,
  name: string,
  type: PatchType,
  patch: unknown,
  o: WriteOptions,
): { object: KubeObject; created: boolean } {
  const live = ctx.store.get(rt, namespace, name);
  const w = writer(ctx, rt, version, o);
  if (type === 'apply') {
    if (!o.fieldManager) {
      throw new ApiError(
        failure(
          422,
          'Invalid',
          'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
        ),
      );
    }
    const applied = asKubeObject(patch);
    if (!applied || typeof applied.apiVersion !== 'string' || typeof applied.kind !== 'string') {
      throw badRequest('apiVersion and kind must be set in an apply patch');
    }
    checkIdentity(rt, applied, namespace, name);
    applied.metadata.name = name;
    if (live) precondition(rt, live, applied);
    delete applied.metadata.resourceVersion;
    if (!live) {
      applied.metadata.namespace = rt.namespaced ? namespace : undefined;
      validateName(rt, name);
      checkNamespace(ctx, rt, namespace);
    }
    const out = serverSideApply(live, applied, w, o.force === true);
    if ('conflicts' in out) {
      const lines = out.conflicts.map((c) => `conflict with "${c.manager}": .${c.path.join('.')}`);
      throw new ApiError(
        failure(
          409,
          'Conflict',
          `Apply failed with ${lines.length} conflict${lines.length > 1 ? 's' : ''}: ${lines.join('\n')}`,
          {
            name,
            group: rt.group,
            kind: rt.plural,
            causes: out.conflicts.map((c, i) => ({
              type: 'FieldManagerConflict',
              message: lines[i],
              field: `.${c.path.join('.')}`,
            })),
          },
        ),
      );
    }
    if (!live) {
      const m = out.object.metadata;
      Object.assign(m, { name, uid: randomUUID(), creationTimestamp: rfc3339(ctx.now()), generation: 1 });
      if (rt.namespaced) m.namespace = namespace;
      return { object: commit(ctx, rt, version, undefined, out.object, o), created: true };
    }
    return { object: commit(ctx, rt, version, live, out.object, o), created: false };
  }
  if (!live) throw notFound(rt, name);
  const patched = asKubeObject(type === 'json' ? jsonPatch(live, patch) : mergePatch(live, patch));
  if (!patched) throw badRequest('the patch did not produce an object');
  precondition(rt, live, patched);
  patched.metadata.name = name;
  let after = patched;
  if (o.subresource === 'status') {
    after = structuredClone(live);
    if (patched.status === undefined) delete after.status;
    else after.status = patched.status;
  }
  recordUpdate(live, after, w);
  return { object: commit(ctx, rt, version, live, after, o), created: false };
}
