/**
 * EndpointSlices (discovery.k8s.io/v1) of every namespace, read for one thing: the port each Kubernetes Service's
 * endpoints receive a Service port on (`ports[].name` is the Service port's name, `ports[].port` the resolved
 * target port), so that inbound filters match the port the workload receives on (deviation D16), a named
 * `targetPort` included, and over MCP, where istiod's synthetic ServiceEntries carry no targetPort at all.
 *
 * Least privilege: only slices labelled with their Service (`kubernetes.io/service-name`) are listed, and each is
 * reduced before the informer caches it to its name, namespace, resourceVersion, Service and (port name, number)
 * pairs, with no pairs when it has no endpoints: addresses, pods and nodes are never held. RBAC: endpointslices
 * `list, watch` (manifests/rbac.yaml).
 */
import { DiscoveryV1Api, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import type { ResilientInformerOptions } from '../../kit/kube/informer.ts';
import { isPlainObject } from '../../util/json.ts';
import type { SlicePorts } from '../endpoint-ports.ts';

/** The label an EndpointSlice names its Service with. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const ENDPOINT_SLICES_PATH = '/apis/discovery.k8s.io/v1/endpointslices';

/** Where slices go: the ConfigStore (readsEndpointPorts, setSlicePorts). */
export interface EndpointPortsTarget {
  /** Called once before the first slice: endpointPorts answers from now on. */
  readsEndpointPorts(): void;
  /** What slice `namespace/slice` contributes; undefined when it was deleted. */
  setSlicePorts(namespace: string, slice: string, value: SlicePorts | undefined): void;
}

export interface EndpointSliceOptions {
  readonly kc: KubeConfig;
  readonly target: EndpointPortsTarget;
}

export type EndpointSliceReads = Pick<
  ResilientInformerOptions,
  'path' | 'list' | 'labelSelector' | 'transform' | 'handlers'
>;

/** The reduced slice the informer caches: what `slicePortsOf` reads, nothing else. */
interface ReducedSlice extends KubernetesObject {
  readonly ports: readonly { readonly name: string; readonly port: number }[];
}

/** The TCP ports of a slice (none when it has no endpoints); workload-endpoints.ts writes `ports` with it too. */
export function portsOf(raw: Record<string, unknown>): { name: string; port: number }[] {
  const endpoints = raw['endpoints'];
  const ports = raw['ports'];
  // A slice without endpoints (a Service with no pods) says nothing about where pods receive.
  if (!Array.isArray(endpoints) || endpoints.length === 0 || !Array.isArray(ports)) return [];
  const out: { name: string; port: number }[] = [];
  for (const p of ports as unknown[]) {
    if (!isPlainObject(p) || typeof p['port'] !== 'number') continue;
    if (p['protocol'] !== undefined && p['protocol'] !== 'TCP') continue;
    out.push({ name: typeof p['name'] === 'string' ? p['name'] : '', port: p['port'] });
  }
  return out;
}

/** Reduces an EndpointSlice to the fields used (ResilientInformer `transform`). */
export function reduceSlice(obj: KubernetesObject): ReducedSlice {
  const raw: Record<string, unknown> = isPlainObject(obj) ? obj : {};
  const md = obj.metadata ?? {};
  const service = md.labels?.[SERVICE_NAME_LABEL];
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: md.name ?? '',
      namespace: md.namespace ?? '',
      ...(md.resourceVersion !== undefined ? { resourceVersion: md.resourceVersion } : {}),
      labels: service !== undefined ? { [SERVICE_NAME_LABEL]: service } : {},
    },
    ports: portsOf(raw),
  };
}

/** What a reduced slice contributes; undefined for a slice of no Service. */
export function slicePortsOf(obj: KubernetesObject): SlicePorts | undefined {
  const service = obj.metadata?.labels?.[SERVICE_NAME_LABEL];
  if (service === undefined || service === '') return undefined;
  const ports = (obj as Partial<ReducedSlice>).ports;
  return { service, ports: Array.isArray(ports) ? ports : portsOf(obj as Record<string, unknown>) };
}

/** The resource read: a kind the API server may not serve (Kubernetes before 1.21) or RBAC may forbid. */
export const ENDPOINT_SLICE_RESOURCE = {
  kind: 'EndpointSlice',
  group: 'discovery.k8s.io',
  version: 'v1',
  plural: 'endpointslices',
} as const;

/** What an informer of the EndpointSlices of every namespace needs, writing into `o.target`. */
export function endpointSliceReads(o: EndpointSliceOptions): EndpointSliceReads {
  const api = o.kc.makeApiClient(DiscoveryV1Api);
  const labelSelector = SERVICE_NAME_LABEL;
  o.target.readsEndpointPorts();
  const key = (obj: KubernetesObject) => [obj.metadata?.namespace ?? '', obj.metadata?.name ?? ''] as const;
  return {
    path: ENDPOINT_SLICES_PATH,
    list: () => api.listEndpointSliceForAllNamespaces({ labelSelector }),
    labelSelector,
    transform: reduceSlice,
    handlers: {
      upsert: (obj) => o.target.setSlicePorts(...key(obj), slicePortsOf(obj)),
      delete: (obj) => o.target.setSlicePorts(...key(obj), undefined),
    },
  };
}
