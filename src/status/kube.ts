/**
 * The status port and its Kubernetes adapter (@kubernetes/client-node 1.4, CustomObjectsApi): lists the Aeraki
 * objects (each CRD of `resources`; a CRD that is not installed lists nothing, and the objects of a CRD without the
 * status subresource are left out: shapes.ts), writes a status with a JSON merge patch of the `/status`
 * subresource at the object's scope, and creates events.k8s.io/v1 Events. Field manager `aeraki`.
 * Errors become SinkErrors (conflicts, throttling, server and network errors transient). With a `cache`
 * (target-cache.ts, watch-fed) `list()` answers from it once it is ready, and every listed object and every patch
 * answer is recorded there.
 */
import { forEachPage, INFORMER_PAGE_SIZE } from '../kit/kube/paged-list.ts';
import {
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { FIELD_MANAGER } from '../model/constants.ts';
import type { ConfigKind } from '../model/objects.ts';
import { refString, type ObjectRef } from '../model/result.ts';
import { ApiDiscovery, type ResourceShapes } from '../kit/kube/discovery.ts';
import { isConflict, isNotFound, kubeSinkError } from '../kit/kube/errors.ts';
import type { Logger } from '../util/logger.ts';
import { isPlainObject, sha256Hex } from '../util/json.ts';
import { StatusShapes } from './shapes.ts';
import type { Condition, EventSpec, ObjectStatus, StatusPatch, StatusTarget } from './types.ts';
import type { TargetChanges } from './planner.ts';

export const REPORTING_CONTROLLER = 'aeraki.io/controller';

/**
 * A CRD whose objects get a status. `clusterScoped` is our CRD's scope; a status goes where the installed CRD puts
 * it, which the object's namespace says (see patchStatus).
 */
export interface StatusResource {
  readonly kind: ConfigKind;
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly clusterScoped: boolean;
}

/** Storage of statuses and Events. Every method rejects with a SinkError. */
export interface StatusPort {
  /**
   * Every object of every status resource whose CRD has the status subresource, in resource order. `fresh`: from
   * the API server even where a cache could answer (the periodic resync), and the CRDs described again.
   */
  list(options?: { readonly fresh?: boolean }): Promise<StatusTarget[]>;
  /**
   * The objects changed or deleted since the last `list()` or `changes()`, where the port keeps them (its
   * watch-fed cache); undefined when it cannot say (no cache, not synced, a kind not described yet): then list.
   */
  changes?(): TargetChanges | undefined;
  /** Replaces the `status` of the patch's target (merge patch of `/status`). */
  patchStatus(patch: StatusPatch): Promise<void>;
  /** Creates the Event; one that already exists (created before a restart) counts as created. */
  createEvent(event: EventSpec, eventTime: Date): Promise<void>;
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function conditionOf(v: unknown): Condition | undefined {
  if (!isPlainObject(v) || typeof v['type'] !== 'string') return undefined;
  const status = v['status'] === 'True' || v['status'] === 'False' ? v['status'] : 'Unknown';
  const generation = v['observedGeneration'];
  return {
    type: v['type'],
    status,
    reason: text(v['reason']),
    message: text(v['message']),
    lastTransitionTime: text(v['lastTransitionTime']),
    ...(typeof generation === 'number' ? { observedGeneration: generation } : {}),
  };
}

function statusOf(v: unknown): ObjectStatus | undefined {
  if (!isPlainObject(v)) return undefined;
  const conditions = Array.isArray(v['conditions']) ? v['conditions'] : [];
  const generation = v['observedGeneration'];
  return {
    ...(typeof generation === 'number' ? { observedGeneration: generation } : {}),
    conditions: conditions.map(conditionOf).filter((c): c is Condition => c !== undefined),
  };
}

/** A listed item → StatusTarget; undefined without a name. */
export function toStatusTarget(kind: ConfigKind, item: unknown): StatusTarget | undefined {
  if (!isPlainObject(item) || !isPlainObject(item['metadata'])) return undefined;
  const m = item['metadata'];
  const name = text(m['name']);
  if (!name) return undefined;
  const generation = typeof m['generation'] === 'number' ? m['generation'] : 0;
  return {
    ref: { kind, namespace: text(m['namespace']), name },
    generation,
    uid: text(m['uid']),
    status: statusOf(item['status']),
  };
}

/**
 * The status target cache's reducer (kit/kube/informer-hub.ts SubscribeOptions.reduce): what `toStatusTarget` and
 * the cache (resourceVersion) read, so the shared informer of a status kind holds no `managedFields`, annotations
 * or spec for the status controller (the config source's reducer keeps the spec it parses). Kept as served:
 * `metadata.name`, `namespace`, `generation`, `uid`, `resourceVersion`, and `status`.
 */
export function statusFields(obj: KubernetesObject): KubernetesObject {
  if (!isPlainObject(obj)) return obj;
  const m = isPlainObject(obj.metadata) ? obj.metadata : {};
  const status = obj['status'];
  return {
    metadata: {
      ...(m.name !== undefined ? { name: m.name } : {}),
      ...(m.namespace !== undefined ? { namespace: m.namespace } : {}),
      ...(m.generation !== undefined ? { generation: m.generation } : {}),
      ...(m.uid !== undefined ? { uid: m.uid } : {}),
      ...(m.resourceVersion !== undefined ? { resourceVersion: m.resourceVersion } : {}),
    },
    ...(status !== undefined ? { status } : {}),
  } as KubernetesObject;
}

/** A stable Event name: the object's name and a hash of what the Event says (so a re-create finds it). */
export function eventName(event: EventSpec): string {
  return `${event.ref.name.slice(0, 200)}.${sha256Hex(event.key).slice(0, 16)}`;
}

/** The events.k8s.io/v1 Event. `apiVersion` is the regarded object's. */
export function eventBody(
  event: EventSpec,
  o: { instance: string; apiVersion: string; eventTime: Date },
): Record<string, unknown> {
  const { ref } = event;
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: eventName(event), namespace: ref.namespace || 'default' },
    eventTime: o.eventTime.toISOString().replace('Z', '000Z'),
    reportingController: REPORTING_CONTROLLER,
    reportingInstance: o.instance,
    action: event.action,
    reason: event.reason,
    type: event.type,
    note: event.note.length > 1024 ? `${event.note.slice(0, 1021)}...` : event.note,
    regarding: {
      apiVersion: o.apiVersion,
      kind: ref.kind,
      ...(ref.namespace ? { namespace: ref.namespace } : {}),
      name: ref.name,
      ...(event.uid ? { uid: event.uid } : {}),
    },
  };
}

/** Where the port reads its targets from between real lists, and records what the API server answers. */
export interface StatusTargetStore {
  /** True once it holds every object of every status resource. */
  readonly ready: boolean;
  targets(): StatusTarget[];
  /** Records an object of `kind` as the API server returned it (an older resourceVersion is ignored). */
  record(kind: string, obj: unknown): boolean;
  /** The objects recorded or removed since the last call (target-cache.ts); absent: not tracked. */
  takeChanges?(): readonly ObjectRef[];
  /** The cached object `kind namespace/name`. */
  get?(kind: string, namespace: string, name: string): StatusTarget | undefined;
}

export interface KubeStatusPortOptions {
  /** The CRDs whose objects get a status. */
  readonly resources: readonly StatusResource[];
  /** `apiVersion` of a regarded object of another kind (Events on ServiceEntries, Gateways, ...). */
  readonly apiVersionOf: (kind: string) => string;
  /** `reportingInstance` of the Events (the pod name). */
  readonly instance: string;
  readonly cache?: StatusTargetStore;
  /** How the API server serves each resource (default: discovery over `kc`). */
  readonly shapes?: ResourceShapes;
  /** Says once when a CRD has no status subresource. */
  readonly logger?: Logger;
}

/**
 * One page of a status kind's list (`limit` INFORMER_PAGE_SIZE, `continue` after the first): the status reads list
 * in pages, as the reconciler does (kit/kube/paged-list.ts).
 */
export function statusListPage(
  api: CustomObjectsApi,
  r: StatusResource,
): (next: string | undefined) => Promise<unknown> {
  return (next) =>
    api.listClusterCustomObject({
      group: r.group,
      version: r.version,
      plural: r.plural,
      limit: INFORMER_PAGE_SIZE,
      ...(next ? { _continue: next } : {}),
    }) as Promise<unknown>;
}

export function createKubeStatusPort(kc: KubeConfig, o: KubeStatusPortOptions): StatusPort {
  const api = kc.makeApiClient(CustomObjectsApi);
  const byKind = new Map(o.resources.map((r) => [r.kind as string, r]));
  const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  const shapes = new StatusShapes(o.shapes ?? new ApiDiscovery(kc), o.logger?.child({ component: 'status' }));
  /** Per kind, whether its objects got a status at the last list (absent: it had none, not described). */
  const described = new Map<string, boolean>();
  const listed = async (fresh: boolean): Promise<StatusTarget[]> => {
    const cache = o.cache;
    cache?.takeChanges?.(); // the list covers them
    if (cache?.ready && !fresh) return cache.targets();
    const out: StatusTarget[] = [];
    for (const r of o.resources) {
      // In pages, each read into targets as it arrives (as the reconciler lists): a resync of thousands of objects
      // is parsed a page at a time, and a page's parsed objects die young, not in one stretch of the loop.
      try {
        await forEachPage(statusListPage(api, r), (items) => {
          for (const item of items) {
            cache?.record(r.kind, item);
            const t = toStatusTarget(r.kind, item);
            if (t) out.push(t);
          }
        });
      } catch (err) {
        if (isNotFound(err)) continue; // CRD not installed
        throw kubeSinkError(`list ${r.plural}`, err);
      }
    }
    cache?.takeChanges?.();
    return out;
  };
  const changes = (): TargetChanges | undefined => {
    const cache = o.cache;
    if (!cache?.ready || !cache.takeChanges || !cache.get) return undefined;
    const changed: StatusTarget[] = [];
    const deleted: ObjectRef[] = [];
    for (const ref of cache.takeChanges()) {
      const writable = described.get(ref.kind);
      if (writable === undefined) return undefined; // its first object: described by a list
      if (!writable) continue;
      const t = cache.get(ref.kind, ref.namespace, ref.name);
      if (t) changed.push(t);
      else deleted.push(ref);
    }
    return { changed, deleted };
  };
  return {
    async list(options) {
      const fresh = options?.fresh === true;
      if (fresh) shapes.forgetAll();
      const targets = await listed(fresh);
      const byResource = new Map<string, StatusTarget[]>();
      for (const t of targets) {
        const list = byResource.get(t.ref.kind);
        if (list) list.push(t);
        else byResource.set(t.ref.kind, [t]);
      }
      const out: StatusTarget[] = [];
      for (const r of o.resources) {
        const own = byResource.get(r.kind) ?? [];
        let writable: boolean;
        try {
          writable = await shapes.hasStatus(r, own.length);
        } catch (err) {
          throw kubeSinkError(`discover ${r.plural}.${r.group}/${r.version}`, err);
        }
        if (own.length > 0) described.set(r.kind, writable);
        else described.delete(r.kind);
        if (writable) out.push(...own);
      }
      return out;
    },
    changes,
    async patchStatus({ target, status }) {
      const r = byKind.get(target.ref.kind);
      if (!r) throw new Error(`no status resource for ${target.ref.kind}`);
      const common = { group: r.group, version: r.version, plural: r.plural, name: target.ref.name };
      const body = { status };
      // The object's scope is the installed CRD's, which may differ from ours (Aeraki's Helm chart serves
      // ApplicationProtocol namespaced): the API server gives a namespace exactly to the objects of a namespaced
      // resource, so the target's namespace picks the path, however the CRD was replaced while running.
      try {
        const answer: unknown = !target.ref.namespace
          ? await api.patchClusterCustomObjectStatus(
              { ...common, body, fieldManager: FIELD_MANAGER },
              mergePatch,
            )
          : await api.patchNamespacedCustomObjectStatus(
              { ...common, namespace: target.ref.namespace, body, fieldManager: FIELD_MANAGER },
              mergePatch,
            );
        o.cache?.record(r.kind, answer);
      } catch (err) {
        if (isNotFound(err)) shapes.forget(r.kind); // its CRD may have been replaced: described again
        throw kubeSinkError(`patch status of ${refString(target.ref)}`, err);
      }
    },
    async createEvent(event, eventTime) {
      const r = byKind.get(event.ref.kind);
      const apiVersion = r ? `${r.group}/${r.version}` : o.apiVersionOf(event.ref.kind);
      const body = eventBody(event, { instance: o.instance, apiVersion, eventTime });
      try {
        await api.createNamespacedCustomObject({
          group: 'events.k8s.io',
          version: 'v1',
          namespace: event.ref.namespace || 'default',
          plural: 'events',
          body,
          fieldManager: FIELD_MANAGER,
        });
      } catch (err) {
        if (isConflict(err)) return; // created before (same name)
        throw kubeSinkError(`create Event ${event.reason} on ${refString(event.ref)}`, err);
      }
    },
  };
}
