/**
 * What the live analyzers share: the services this controller handles (those with an EnvoyFilter in
 * AnalysisInput.generated, by the filters' `aeraki.io/source` annotation), the pods a selector picks, and the
 * pods a service's sidecar filters reach.
 */
import { sourceKey } from '../../model/names.ts';
import type { ServiceEntry } from '../../model/objects.ts';
import type { AnalysisInput, EnvoyFilterFacts, PodFacts } from '../types.ts';

export interface HandledService {
  readonly service: ServiceEntry;
  /** The EnvoyFilters generated for it, in input order. */
  readonly filters: readonly EnvoyFilterFacts[];
}

/** ServiceEntries and converted Kubernetes Services of `input`, in input order. */
export function servicesOf(input: AnalysisInput): ServiceEntry[] {
  return input.objects.objects.filter(
    (o): o is ServiceEntry => o.kind === 'ServiceEntry' || o.kind === 'Service',
  );
}

/** The services with at least one generated EnvoyFilter, in input order. */
export function handledServices(input: AnalysisInput): HandledService[] {
  const bySource = new Map<string, EnvoyFilterFacts[]>();
  for (const f of input.generated) {
    if (f.source === undefined) continue;
    const list = bySource.get(f.source) ?? [];
    list.push(f);
    bySource.set(f.source, list);
  }
  const out: HandledService[] = [];
  for (const service of servicesOf(input)) {
    const filters = bySource.get(sourceKey(service.kind, service.metadata.namespace, service.metadata.name));
    if (filters) out.push({ service, filters });
  }
  return out;
}

/** Whether `labels` has every key of `selector` with its value (an empty selector selects everything). */
export function selects(
  selector: Readonly<Record<string, string>>,
  labels: Readonly<Record<string, string>>,
): boolean {
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

/** `a=1,b=2`, keys sorted. */
export function labelText(labels: Readonly<Record<string, string>>): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k] ?? ''}`)
    .join(',');
}

/** The selector of a service's workloads (a Service's `selector`, a ServiceEntry's workloadSelector); may be empty. */
export function selectorOf(service: ServiceEntry): Readonly<Record<string, string>> {
  return service.spec.workloadSelector?.labels ?? {};
}

/**
 * Gateways run istio-proxy too, but sidecar filters (SIDECAR_INBOUND/OUTBOUND) never apply to them: a pod of an
 * Istio gateway (`istio: ...gateway`, or a Gateway API gateway's `gateway.networking.k8s.io/gateway-name`).
 */
export function isGatewayPod(p: PodFacts): boolean {
  return (
    (p.labels['istio'] ?? '').endsWith('gateway') || 'gateway.networking.k8s.io/gateway-name' in p.labels
  );
}

/** The sidecar pods (with an istio-proxy container, not gateways) in `namespace`, or in every namespace. */
function sidecarPods(pods: readonly PodFacts[], namespace: string | undefined): PodFacts[] {
  return pods.filter(
    (p) =>
      p.proxyImage !== undefined &&
      !isGatewayPod(p) &&
      (namespace === undefined || p.namespace === namespace),
  );
}

/** The pods a service's workload selector picks in its namespace (none without a selector). */
export function serverPods(service: ServiceEntry, pods: readonly PodFacts[]): PodFacts[] {
  const selector = selectorOf(service);
  if (Object.keys(selector).length === 0) return [];
  return sidecarPods(pods, service.metadata.namespace).filter((p) => selects(selector, p.labels));
}

/** A patch the proxies of a client take: outbound or any context (absent = ANY). */
const outbound = (context: string | undefined): boolean =>
  context === undefined || context === 'ANY' || context === 'SIDECAR_OUTBOUND';

/**
 * The pods that take a service's outbound filters: the sidecars of each namespace holding one of its filters with
 * an outbound patch, every sidecar when that namespace is the root namespace (Istio applies root-namespace
 * EnvoyFilters mesh-wide).
 */
export function clientPods(h: HandledService, pods: readonly PodFacts[], rootNamespace: string): PodFacts[] {
  const namespaces = new Set(
    h.filters.filter((f) => f.patches.some((p) => outbound(p.context))).map((f) => f.namespace),
  );
  if (namespaces.has(rootNamespace)) return sidecarPods(pods, undefined);
  return sidecarPods(pods, undefined).filter((p) => namespaces.has(p.namespace));
}
