/**
 * The Kubernetes adapter of the bootstrap ConfigMap port (@kubernetes/client-node 1.4 CoreV1Api, one-object
 * method arguments). Create is a POST, update a PUT carrying the observed resourceVersion (409 when stale),
 * delete carries a resourceVersion precondition; all writes use field manager `aeraki`. Errors become SinkErrors
 * (transient: conflicts, throttling, server and network errors).
 */
import { CoreV1Api, type KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { BOOTSTRAP_CONFIGMAP_NAME, type BootstrapConfigMap } from './config.ts';
import type { BootstrapUpdate, ExistingConfigMap } from './plan.ts';
import { updateBody } from './plan.ts';
import { FIELD_MANAGER } from '../model/constants.ts';
import { isNotFound, kubeSinkError } from '../kit/kube/errors.ts';

/**
 * Storage of the bootstrap ConfigMaps. Every method rejects with a SinkError; `delete` of an object that is
 * already gone succeeds.
 */
export interface BootstrapConfigMapPort {
  /** Every ConfigMap named `aeraki-bootstrap-config`, in every namespace, whoever wrote it. */
  list(): Promise<ExistingConfigMap[]>;
  create(cm: BootstrapConfigMap): Promise<void>;
  update(u: BootstrapUpdate): Promise<void>;
  delete(existing: ExistingConfigMap): Promise<void>;
}

function strings(m: Record<string, string> | undefined): Record<string, string> {
  return { ...(m ?? {}) };
}

export function toExistingConfigMap(cm: V1ConfigMap): ExistingConfigMap | undefined {
  const m = cm.metadata;
  if (!m?.name || !m.namespace) return undefined;
  return {
    namespace: m.namespace,
    name: m.name,
    resourceVersion: m.resourceVersion ?? '',
    labels: strings(m.labels),
    annotations: strings(m.annotations),
    data: strings(cm.data),
    managers: (m.managedFields ?? []).map((f) => f.manager ?? '').filter((x) => x !== ''),
  };
}

export function createKubeBootstrapPort(kc: KubeConfig): BootstrapConfigMapPort {
  const api = kc.makeApiClient(CoreV1Api);
  return {
    async list() {
      try {
        const list = await api.listConfigMapForAllNamespaces({
          fieldSelector: `metadata.name=${BOOTSTRAP_CONFIGMAP_NAME}`,
        });
        return list.items.map(toExistingConfigMap).filter((x): x is ExistingConfigMap => x !== undefined);
      } catch (err) {
        throw kubeSinkError('list configmaps', err);
      }
    },
    async create(cm) {
      try {
        await api.createNamespacedConfigMap({
          namespace: cm.metadata.namespace,
          body: cm,
          fieldManager: FIELD_MANAGER,
        });
      } catch (err) {
        throw kubeSinkError(`create ConfigMap ${cm.metadata.namespace}/${cm.metadata.name}`, err);
      }
    },
    async update(u) {
      const { namespace, name } = u.existing;
      try {
        await api.replaceNamespacedConfigMap({
          namespace,
          name,
          body: updateBody(u),
          fieldManager: FIELD_MANAGER,
        });
      } catch (err) {
        throw kubeSinkError(`update ConfigMap ${namespace}/${name}`, err);
      }
    },
    async delete(existing) {
      const { namespace, name, resourceVersion } = existing;
      try {
        await api.deleteNamespacedConfigMap({
          namespace,
          name,
          body: resourceVersion ? { preconditions: { resourceVersion } } : {},
        });
      } catch (err) {
        if (isNotFound(err)) return;
        throw kubeSinkError(`delete ConfigMap ${namespace}/${name}`, err);
      }
    },
  };
}
