/**
 * AER0102 AmbientNamespace: a service this controller writes EnvoyFilters for lives in a namespace in ambient mode
 * (`istio.io/dataplane-mode=ambient`). Ambient workloads have no sidecar; ztunnel and waypoints ignore
 * EnvoyFilters (istio/istio#43720, open), so nothing written for the service takes effect. A pod with a sidecar
 * is not captured by ambient even there, so a service whose selected pods all run istio-proxy is not reported.
 * https://istio.io/latest/docs/ambient/usage/add-workloads/
 *
 * Only a waypoint runs L7 there (issue 38): the message points at `--waypoint-envoyfilters` and the waypoint the
 * service needs (../ambient-advice.ts): with the flag off, turn it on (and bind to a waypoint); with it on, the
 * waypoint to bind to. A service bound to a waypoint with the flag on is not reported: its waypoint filters carry
 * its RPC (AER0017 reports a port the waypoint's image cannot run). Offline, AER0014 reports an unbound service.
 */
import { refOf } from '../../model/result.ts';
import type { ServiceEntry } from '../../model/objects.ts';
import type {
  AnalysisCode,
  AnalysisInput,
  AnalysisMessage,
  Analyzer,
  ClusterFacts,
  PodFacts,
} from '../types.ts';
import { handledServices, selectorOf, selects } from './services.ts';
import { unreadable } from './unreadable.ts';
import { ORDERS_ENTRY } from '../examples.ts';
import { bindingOf, waypointAdvice } from '../ambient-advice.ts';
import { DATAPLANE_MODE_AMBIENT, DATAPLANE_MODE_LABEL } from '../../model/ambient/labels.ts';

export const AMBIENT_NAMESPACE: AnalysisCode = {
  code: 'AER0102',
  name: 'AmbientNamespace',
  severity: 'warning',
  why: 'Ambient workloads have no sidecar: the sidecar filters written for this service never run, and only a waypoint runs L7 for it.',
  fix: 'Turn on --waypoint-envoyfilters and bind the service to an Istio waypoint (the message names it), or run the service and its clients with sidecars (namespace label istio-injection=enabled, no istio.io/dataplane-mode=ambient).',
  live: true,
  example: `${ORDERS_ENTRY}  resolution: STATIC
# In the cluster: namespace shop is labelled istio.io/dataplane-mode=ambient.`,
};

/** The pods a service selects in its namespace, sidecar or not; undefined when that cannot be told. */
function selectedPods(service: ServiceEntry, cluster: ClusterFacts): PodFacts[] | undefined {
  const selector = selectorOf(service);
  if (Object.keys(selector).length === 0 || unreadable(cluster, 'Pod')) return undefined;
  return cluster.pods.filter(
    (p) => p.namespace === service.metadata.namespace && selects(selector, p.labels),
  );
}

function analyze(input: AnalysisInput): AnalysisMessage[] {
  const cluster = input.cluster;
  if (!cluster) return [];
  const ambient = new Set(
    cluster.namespaces
      .filter((n) => n.labels[DATAPLANE_MODE_LABEL] === DATAPLANE_MODE_AMBIENT)
      .map((n) => n.name),
  );
  const out: AnalysisMessage[] = [];
  for (const h of handledServices(input)) {
    if (!ambient.has(h.service.metadata.namespace)) continue;
    const pods = selectedPods(h.service, cluster);
    const withoutSidecar = pods?.filter((p) => p.proxyImage === undefined);
    if (pods && pods.length > 0 && withoutSidecar?.length === 0) continue; // sidecars win over ambient
    const binding = bindingOf(input, h.service);
    const advice = binding === undefined ? '' : waypointAdvice(input, h.service, binding);
    if (binding?.bound === true && advice === '') continue; // the waypoint filters carry it
    const which =
      withoutSidecar && withoutSidecar.length > 0 ? ` (${withoutSidecar.length} pod(s) without one)` : '';
    out.push({
      code: AMBIENT_NAMESPACE,
      ref: refOf(h.service),
      message:
        `namespace ${h.service.metadata.namespace} is in ambient mode (${DATAPLANE_MODE_LABEL}=ambient): workloads ` +
        `without a sidecar${which} are served by ztunnel and waypoints, which run no RPC filter of their own (istio#43720), so the ${h.filters.length} sidecar ` +
        `EnvoyFilter(s) written for this service take no effect there` +
        (advice !== '' ? `; ${advice}` : ''),
    });
  }
  return out;
}

export const ambientAnalyzer: Analyzer = { codes: [AMBIENT_NAMESPACE], analyze };
