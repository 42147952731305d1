// A small mesh on the fake kube-apiserver for the `aeraki analyze` tests: namespaces (shop in ambient mode), pods
// with and without sidecars, istiod, this controller's and others' EnvoyFilters, and the objects the controller reads.
import type { FakeKubeApiServer, KubeObject } from '../fakes/kube-apiserver/index.ts';

export const ROOT = 'istio-system';
export const ORDERS = 'orders.shop.svc.cluster.local';

const ns = (name: string, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels },
});

export const pod = (
  namespace: string,
  name: string,
  labels: Record<string, string>,
  proxyImage?: string,
  native = false,
): KubeObject => {
  const app = { name: 'app', image: 'docker.io/library/busybox:1' };
  const proxy = proxyImage ? [{ name: 'istio-proxy', image: proxyImage }] : [];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace, name, labels },
    spec: native ? { initContainers: proxy, containers: [app] } : { containers: [app, ...proxy] },
  };
};

const envoyFilter = (namespace: string, name: string, patch: object, meta: object = {}): KubeObject => ({
  apiVersion: 'networking.istio.io/v1alpha3',
  kind: 'EnvoyFilter',
  metadata: { namespace, name, ...meta },
  spec: { configPatches: [patch] },
});

const managed = (source: string) => ({
  labels: { manager: 'Aeraki' },
  annotations: { 'aeraki.io/source': source },
});

/** `omitKinds`: kinds the server does not serve in this test. */
export function seedCluster(
  api: FakeKubeApiServer,
  omitKinds: string[] = [],
  extra: KubeObject[] = [],
): void {
  api.register({
    group: 'apps',
    versions: ['v1'],
    kind: 'Deployment',
    plural: 'deployments',
    namespaced: true,
  });
  const objects: KubeObject[] = [
    ns(ROOT),
    ns('shop', { 'istio.io/dataplane-mode': 'ambient' }),
    ns('web', { 'istio-injection': 'enabled' }),
    ns('batch'),
    pod('shop', 'orders-1', { app: 'orders', version: 'v1' }, 'docker.io/istio/proxyv2:1.24.2'),
    pod('shop', 'orders-2', { app: 'orders', version: 'v1' }), // ambient: no sidecar
    pod('web', 'frontend-1', { app: 'frontend' }, 'docker.io/istio/proxyv2:1.24.2'),
    pod('web', 'native-1', { app: 'native' }, 'ghcr.io/aeraki-mesh/meta-protocol-proxy:1.4.2', true),
    pod('batch', 'job-1', { app: 'job' }),
    pod(ROOT, 'istiod-1', { app: 'istiod' }),
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { namespace: ROOT, name: 'istiod', labels: { app: 'istiod' } },
      spec: {
        template: { spec: { containers: [{ name: 'discovery', image: 'docker.io/istio/pilot:1.24.2' }] } },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: ROOT, name: 'istio' },
      data: { mesh: 'rootNamespace: istio-system\n' },
    },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'web', name: 'other' }, data: {} },
    {
      apiVersion: 'networking.istio.io/v1',
      kind: 'ServiceEntry',
      metadata: { namespace: 'shop', name: 'orders' },
      spec: {
        hosts: [ORDERS],
        addresses: ['240.240.0.10'],
        ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP' }],
        resolution: 'STATIC',
        workloadSelector: { labels: { app: 'orders' } },
      },
    },
    {
      apiVersion: 'networking.istio.io/v1',
      kind: 'DestinationRule',
      metadata: { namespace: 'shop', name: 'orders' },
      spec: { host: ORDERS, subsets: [{ name: 'v2', labels: { version: 'v2' } }] },
    },
    {
      apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
      kind: 'MetaRouter',
      metadata: { namespace: 'shop', name: 'orders' },
      spec: {
        hosts: [ORDERS],
        routes: [{ name: 'v2', route: [{ destination: { host: ORDERS, subset: 'v2' } }] }],
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { namespace: 'web', name: 'frontend' },
      spec: { selector: { app: 'frontend' }, ports: [{ name: 'http', port: 8080 }] },
    },
    envoyFilter(
      ROOT,
      'aeraki-outbound-gone',
      { applyTo: 'NETWORK_FILTER', patch: { operation: 'REPLACE' } },
      managed('ServiceEntry/shop/gone'),
    ),
    envoyFilter(
      ROOT,
      'aeraki-outbound-x',
      { applyTo: 'NETWORK_FILTER', patch: { operation: 'REPLACE' } },
      managed('ServiceEntry/elsewhere/x'),
    ),
    envoyFilter('web', 'legacy-dubbo', {
      applyTo: 'NETWORK_FILTER',
      match: {
        context: 'SIDECAR_OUTBOUND',
        listener: { portNumber: 20880, filterChain: { filter: { name: 'envoy.filters.network.tcp_proxy' } } },
      },
      patch: { operation: 'REPLACE', value: { name: 'envoy.filters.network.dubbo_proxy' } },
    }),
    ...extra,
  ];
  api.seed(objects.filter((o) => !omitKinds.includes(o.kind ?? '')));
}
