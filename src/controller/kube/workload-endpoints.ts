/**
 * What our waypoint's EDS (controller/endpoints-view.ts) reads from the Kubernetes API, each object reduced before
 * the shared informer (kit/kube/informer-hub.ts) caches it (DESIGN habit 14: hold only the fields used):
 * - EndpointSlices (discovery.k8s.io/v1) labelled `kubernetes.io/service-name`: the same watch as endpoint-slices.ts
 *   (same path and label selector, so one informer), reduced to the Service, the TCP ports (`ports`, written exactly
 *   as reduceSlice writes them, so the two reductions merge) and the **ready** endpoints' first address and Pod.
 *   kubernetes/api discovery/v1/types.go @426b1b99: `conditions.ready` nil is "true", and ready is false for a
 *   terminating endpoint unless the Service publishes not-ready addresses (`serving`, `terminating` only refine
 *   that: a serving, terminating endpoint is not ready and not sent); "no semantics are defined for additional
 *   addresses beyond the first"; only IPv4 and IPv6 slices have defined semantics (FQDN ones are dropped).
 * - Pods: name, namespace and labels only (nameAndLabels), to select DestinationRule subsets.
 * - WorkloadEntries (networking.istio.io/v1): spec address, ports, labels, weight, the metadata labels, and the
 *   health Istio reads (see workloadEntryOf).
 * RBAC: endpointslices, pods and workloadentries `list, watch`.
 */
import { CoreV1Api, DiscoveryV1Api, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { isIP } from 'node:net';
import { clusterCustomObjectsWatch, nameAndLabels, type WatchSpec } from '../../kit/kube/informer-hub.ts';
import { isPlainObject } from '../../util/json.ts';
import {
  ENDPOINT_SLICE_RESOURCE,
  ENDPOINT_SLICES_PATH,
  portsOf,
  reduceSlice,
  SERVICE_NAME_LABEL,
} from './endpoint-slices.ts';

type Raw = Record<string, unknown>;
type Labels = Readonly<Record<string, string>>;

/** A ready endpoint of a slice: its address and the Pod its `targetRef` names (same namespace), if any. */
export interface SliceEndpoint {
  readonly address: string;
  readonly pod?: string;
}

/** What one EndpointSlice contributes to EDS: its Service, TCP ports by name, ready endpoints. */
export interface SliceEndpoints {
  readonly service: string;
  readonly ports: readonly { readonly name: string; readonly port: number }[];
  readonly endpoints: readonly SliceEndpoint[];
}

function readyEndpoints(raw: Raw, namespace: string): SliceEndpoint[] {
  const type = raw['addressType'];
  if ((type !== 'IPv4' && type !== 'IPv6') || !Array.isArray(raw['endpoints'])) return [];
  const out: SliceEndpoint[] = [];
  for (const e of raw['endpoints'] as unknown[]) {
    if (!isPlainObject(e) || !Array.isArray(e['addresses'])) continue;
    const conditions = isPlainObject(e['conditions']) ? e['conditions'] : {};
    if (conditions['ready'] === false) continue;
    const address: unknown = e['addresses'][0];
    if (typeof address !== 'string' || isIP(address) === 0) continue;
    const ref = isPlainObject(e['targetRef']) ? e['targetRef'] : {};
    const podNamespace = typeof ref['namespace'] === 'string' ? ref['namespace'] : namespace;
    const pod = ref['kind'] === 'Pod' && podNamespace === namespace ? ref['name'] : undefined;
    out.push(typeof pod === 'string' && pod !== '' ? { address, pod } : { address });
  }
  return out;
}

/**
 * Reduces an EndpointSlice to what EDS reads (shared informer reducer): reduceSlice's output and the ready
 * endpoints, so it merges with reduceSlice's.
 */
export function reduceSliceEndpoints(obj: KubernetesObject): KubernetesObject {
  const raw: Raw = isPlainObject(obj) ? obj : {};
  return {
    ...reduceSlice(obj),
    readyEndpoints: readyEndpoints(raw, obj.metadata?.namespace ?? ''),
  } as KubernetesObject;
}

/** What a slice contributes (reduced by reduceSliceEndpoints, or whole); undefined for a slice of no Service. */
export function sliceEndpointsOf(obj: KubernetesObject): SliceEndpoints | undefined {
  const service = obj.metadata?.labels?.[SERVICE_NAME_LABEL];
  if (service === undefined || service === '') return undefined;
  const raw = obj as Raw;
  if (!Array.isArray(raw['readyEndpoints'])) {
    // Not reduced (another reader of the informer keeps whole objects): read the slice as it is.
    return { service, ports: portsOf(raw), endpoints: readyEndpoints(raw, obj.metadata?.namespace ?? '') };
  }
  const ports = Array.isArray(raw['ports']) ? (raw['ports'] as SliceEndpoints['ports']) : [];
  return { service, ports, endpoints: raw['readyEndpoints'] as SliceEndpoint[] };
}

/** A WorkloadEntry as EDS reads it. */
export interface WorkloadEntryFacts {
  readonly address: string;
  readonly ports: Readonly<Record<string, number>>;
  /** spec.labels merged with metadata.labels, the metadata's winning (Istio ConvertWorkloadEntry). */
  readonly labels: Labels;
  readonly weight?: number;
  readonly healthy: boolean;
}

/** istio/istio pilot/pkg/model/status: health checks enabled for the entry, and the condition they set. */
export const HEALTH_CHECKS_ANNOTATION = 'proxy.istio.io/health-checks-enabled';
const HEALTHY_CONDITION = 'Healthy';

function stringsOf(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isPlainObject(v)) return out;
  for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
}

function portMapOf(v: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (!isPlainObject(v)) return out;
  for (const [k, x] of Object.entries(v)) {
    if (typeof x === 'number' && Number.isInteger(x) && x > 0 && x <= 65535) out[k] = x;
  }
  return out;
}

/** Reduces a WorkloadEntry to the fields workloadEntryOf reads (shared informer reducer). */
export function reduceWorkloadEntry(obj: KubernetesObject): KubernetesObject {
  const raw: Raw = isPlainObject(obj) ? obj : {};
  const spec = isPlainObject(raw['spec']) ? raw['spec'] : {};
  const status = isPlainObject(raw['status']) ? raw['status'] : {};
  const health = obj.metadata?.annotations?.[HEALTH_CHECKS_ANNOTATION];
  const conditions = Array.isArray(status['conditions']) ? (status['conditions'] as unknown[]) : [];
  const healthy = conditions.find((c) => isPlainObject(c) && c['type'] === HEALTHY_CONDITION) as
    Raw | undefined;
  const base = nameAndLabels(obj);
  return {
    metadata: {
      ...base.metadata,
      ...(health !== undefined ? { annotations: { [HEALTH_CHECKS_ANNOTATION]: health } } : {}),
    },
    spec: { address: spec['address'], ports: spec['ports'], labels: spec['labels'], weight: spec['weight'] },
    ...(healthy ? { status: { conditions: [{ type: HEALTHY_CONDITION, status: healthy['status'] }] } } : {}),
  } as KubernetesObject;
}

/** Go's strconv.ParseBool true values (Istio parseHealthAnnotation). */
const TRUE_TEXTS: ReadonlySet<string> = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);

/**
 * The facts of a (reduced) WorkloadEntry. Health as istiod's ServiceEntry controller reads it (istio/istio
 * pilot/pkg/serviceregistry/serviceentry/controller.go isHealthy): with the health-checks annotation true, healthy
 * only while condition `Healthy` is `True`; without it, always healthy.
 */
export function workloadEntryOf(obj: KubernetesObject): WorkloadEntryFacts {
  const raw: Raw = isPlainObject(obj) ? obj : {};
  const spec = isPlainObject(raw['spec']) ? raw['spec'] : {};
  const status = isPlainObject(raw['status']) ? raw['status'] : {};
  const checked = TRUE_TEXTS.has(obj.metadata?.annotations?.[HEALTH_CHECKS_ANNOTATION] ?? '');
  const conditions = Array.isArray(status['conditions']) ? (status['conditions'] as unknown[]) : [];
  const healthy =
    !checked ||
    conditions.some((c) => isPlainObject(c) && c['type'] === HEALTHY_CONDITION && c['status'] === 'True');
  const weight = spec['weight'];
  return {
    address: typeof spec['address'] === 'string' ? spec['address'] : '',
    ports: portMapOf(spec['ports']),
    labels: { ...stringsOf(spec['labels']), ...stringsOf(obj.metadata?.labels) },
    ...(typeof weight === 'number' && Number.isInteger(weight) && weight > 0 ? { weight } : {}),
    healthy,
  };
}

/** The EndpointSlices watch: the one endpoint-slices.ts's reader uses (path and label selector). */
export function endpointSlicesWatch(kc: KubeConfig): WatchSpec {
  const api = kc.makeApiClient(DiscoveryV1Api);
  const { kind, group, version, plural } = ENDPOINT_SLICE_RESOURCE;
  return {
    kind,
    resource: { group, version, plural },
    path: ENDPOINT_SLICES_PATH,
    labelSelector: SERVICE_NAME_LABEL,
    list: () => api.listEndpointSliceForAllNamespaces({ labelSelector: SERVICE_NAME_LABEL }),
  };
}

/** The Pods of every namespace. */
export function podsWatch(kc: KubeConfig): WatchSpec {
  const api = kc.makeApiClient(CoreV1Api);
  return {
    kind: 'Pod',
    resource: { group: '', version: 'v1', plural: 'pods' },
    path: '/api/v1/pods',
    list: async () => await api.listPodForAllNamespaces(),
  };
}

export const WORKLOAD_ENTRY_RESOURCE = {
  kind: 'WorkloadEntry',
  group: 'networking.istio.io',
  version: 'v1',
  plural: 'workloadentries',
} as const;

/** The WorkloadEntries of every namespace, at `version` (v1 from Istio 1.22). */
export function workloadEntriesWatch(kc: KubeConfig, version: 'v1' | 'v1alpha3' = 'v1'): WatchSpec {
  const { kind, group, plural } = WORKLOAD_ENTRY_RESOURCE;
  return clusterCustomObjectsWatch(kc, kind, { group, version, plural });
}
