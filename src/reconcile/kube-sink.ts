/**
 * The Kubernetes adapter of the sink port (@kubernetes/client-node 1.4, one-object API). Objects are written
 * with POST (create), PUT carrying the observed resourceVersion (update; 409 on a stale one) and DELETE with a
 * resourceVersion precondition, all with field manager `aeraki`. A list reads its items in slices that yield to
 * the loop (each item's spec is hashed: about 40 µs for an EnvoyFilter, so 30,000 of them take over a second).
 */
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { FIELD_MANAGER, ISTIO_GROUP, MANAGER_LABEL, MANAGER_VALUE } from '../model/constants.ts';
import { forEachPage } from '../kit/kube/paged-list.ts';
import type { ExistingObject, ManagedKind } from './diff.ts';
import { toExisting, updateBody } from '../kit/kube/bodies.ts';
import { isNotFound, kubeSinkError } from '../kit/kube/errors.ts';
import type { EnvoyFilterSink } from './sink.ts';
import { Slicer, SlicesStopped, type SliceOptions } from '../util/slices.ts';

const VERSION = 'v1alpha3';
const PLURALS: Readonly<Record<ManagedKind, string>> = {
  EnvoyFilter: 'envoyfilters',
  VirtualService: 'virtualservices',
};
const KINDS: readonly ManagedKind[] = ['EnvoyFilter', 'VirtualService'];

export interface KubeSinkOptions {
  /** Kinds to list; default both (EnvoyFilter and the gateway VirtualService). */
  readonly kinds?: readonly ManagedKind[];
  /** List page size (default 500). */
  readonly pageSize?: number;
  /** How a list yields while it reads its items (tests). */
  readonly slices?: SliceOptions;
}

export function createKubeSink(kc: KubeConfig, options: KubeSinkOptions = {}): EnvoyFilterSink {
  const api = kc.makeApiClient(CustomObjectsApi);
  const kinds = options.kinds ?? KINDS;
  const ref = (kind: ManagedKind, namespace: string) => ({
    group: ISTIO_GROUP,
    version: VERSION,
    namespace,
    plural: PLURALS[kind],
  });

  return {
    name: 'kubernetes',
    async list(known) {
      const out: ExistingObject[] = [];
      for (const kind of kinds) {
        const knownHash = known
          ? (namespace: string, name: string, resourceVersion: string) => {
              const e = known(kind, namespace, name);
              return e?.resourceVersion === resourceVersion ? e.specHash : undefined;
            }
          : undefined;
        const slicer = new Slicer(options.slices);
        // Paged (limit/continue) to spare a real API server; each page reduced as it arrives, so its parsed objects
        // die young instead of 30,000 of them reaching the old generation before the last page.
        try {
          await forEachPage(
            (next) =>
              api.listClusterCustomObject({
                group: ISTIO_GROUP,
                version: VERSION,
                plural: PLURALS[kind],
                labelSelector: `${MANAGER_LABEL}=${MANAGER_VALUE}`,
                limit: options.pageSize ?? 500,
                ...(next ? { _continue: next } : {}),
              }),
            async (items) => {
              slicer.restart();
              await slicer.each(items, (item) => {
                const e = toExisting(kind, item, knownHash);
                if (e) out.push(e);
              });
            },
          );
        } catch (err) {
          if (err instanceof SlicesStopped) throw err;
          throw kubeSinkError(`list ${PLURALS[kind]}`, err);
        }
      }
      return out;
    },
    async create(obj) {
      try {
        const written: unknown = await api.createNamespacedCustomObject({
          ...ref(obj.kind, obj.metadata.namespace),
          body: obj,
          fieldManager: FIELD_MANAGER,
        });
        return toExisting(obj.kind, written);
      } catch (err) {
        throw kubeSinkError(`create ${obj.kind} ${obj.metadata.namespace}/${obj.metadata.name}`, err);
      }
    },
    async update(obj, existing) {
      try {
        const written: unknown = await api.replaceNamespacedCustomObject({
          ...ref(obj.kind, obj.metadata.namespace),
          name: obj.metadata.name,
          body: updateBody(obj, existing),
          fieldManager: FIELD_MANAGER,
        });
        return toExisting(obj.kind, written);
      } catch (err) {
        throw kubeSinkError(`update ${obj.kind} ${obj.metadata.namespace}/${obj.metadata.name}`, err);
      }
    },
    async delete(existing) {
      try {
        await api.deleteNamespacedCustomObject({
          ...ref(existing.kind, existing.namespace),
          name: existing.name,
          body: existing.resourceVersion
            ? { preconditions: { resourceVersion: existing.resourceVersion } }
            : {},
        });
      } catch (err) {
        if (isNotFound(err)) return;
        throw kubeSinkError(`delete ${existing.kind} ${existing.namespace}/${existing.name}`, err);
      }
    },
  };
}
