/**
 * What the Gateway controller watches through the process's shared informers (kit/kube/informer-hub.ts):
 * GatewayClasses and Gateways cluster-wide (optional kinds: a cluster without the Gateway API CRDs reads them as
 * empty and synced, kit/kube/kind-informer.ts), and the Services it owns (label selector `manager=Aeraki,
 * gateway.networking.k8s.io/gateway-name`), for their cluster IP. Each is reduced to the fields read. The
 * Gateway and GatewayClass informers are the ones src/controller/kube/ambient.ts may read too (same path and
 * selectors): subscribing here at construction, before anything starts, lets the hub cache the union of both
 * reducers.
 */
import { CoreV1Api, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { clusterCustomObjectsWatch, type WatchSpec } from '../kit/kube/informer-hub.ts';
import { GATEWAY_CLASSES, GATEWAYS } from './gateway-objects.ts';
import { OWNED_SERVICE_SELECTOR } from './owned-objects.ts';

export function gatewaysWatch(kc: KubeConfig): WatchSpec {
  return clusterCustomObjectsWatch(kc, 'Gateway', GATEWAYS);
}

export function gatewayClassesWatch(kc: KubeConfig): WatchSpec {
  return clusterCustomObjectsWatch(kc, 'GatewayClass', GATEWAY_CLASSES);
}

export function ownedServicesWatch(kc: KubeConfig): WatchSpec {
  const api = kc.makeApiClient(CoreV1Api);
  return {
    kind: 'Service',
    resource: { group: '', version: 'v1', plural: 'services' },
    path: '/api/v1/services',
    labelSelector: OWNED_SERVICE_SELECTOR,
    list: async () => await api.listServiceForAllNamespaces({ labelSelector: OWNED_SERVICE_SELECTOR }),
  };
}

/** The reducer of owned Services: name, namespace, resourceVersion and the cluster IP. */
export function reduceOwnedService(o: KubernetesObject): KubernetesObject {
  const m = o.metadata ?? {};
  const spec = (o as { spec?: { clusterIP?: unknown } }).spec;
  return {
    metadata: { name: m.name, namespace: m.namespace, resourceVersion: m.resourceVersion },
    spec: { clusterIP: typeof spec?.clusterIP === 'string' ? spec.clusterIP : undefined },
  } as KubernetesObject;
}

/** The cluster IP of an owned Service as reduced. */
export function clusterIpOf(o: KubernetesObject): string | undefined {
  const ip = (o as { spec?: { clusterIP?: unknown } }).spec?.clusterIP;
  return typeof ip === 'string' ? ip : undefined;
}
