/**
 * AER0102 AmbientNamespace: a service this controller writes EnvoyFilters for lives in a namespace in ambient mode
 * (`istio.io/dataplane-mode=ambient`). Ambient workloads have no sidecar; ztunnel and waypoints ignore
 * EnvoyFilters (istio/istio#43720, open), so nothing written for the service takes effect.
 * https://istio.io/latest/docs/ambient/usage/add-workloads/
 */
import { refOf } from '../../model/result.ts';
import type { AnalysisCode, AnalysisInput, AnalysisMessage, Analyzer } from '../types.ts';
import { handledServices } from './services.ts';

export const DATAPLANE_MODE_LABEL = 'istio.io/dataplane-mode';

export const AMBIENT_NAMESPACE: AnalysisCode = {
  code: 'AER0102',
  name: 'AmbientNamespace',
  severity: 'warning',
  why: 'EnvoyFilters are ignored in ambient mode (istio#43720): the protocol filters written for this service never run.',
  fix: 'Run the service and its clients with sidecars (namespace label istio-injection=enabled, no istio.io/dataplane-mode=ambient).',
  live: true,
  example: `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: { name: orders, namespace: shop }
spec:
  hosts: [orders.shop.svc.cluster.local]
  addresses: [240.240.0.10]
  ports: [{ number: 20880, name: tcp-metaprotocol-dubbo, protocol: TCP }]
  resolution: STATIC
# In the cluster: namespace shop is labelled istio.io/dataplane-mode=ambient.`,
};

function analyze(input: AnalysisInput): AnalysisMessage[] {
  const cluster = input.cluster;
  if (!cluster) return [];
  const ambient = new Set(
    cluster.namespaces.filter((n) => n.labels[DATAPLANE_MODE_LABEL] === 'ambient').map((n) => n.name),
  );
  return handledServices(input)
    .filter((h) => ambient.has(h.service.metadata.namespace))
    .map((h) => ({
      code: AMBIENT_NAMESPACE,
      ref: refOf(h.service),
      message:
        `namespace ${h.service.metadata.namespace} is in ambient mode (${DATAPLANE_MODE_LABEL}=ambient): its ` +
        `workloads have no sidecar and istiod does not apply EnvoyFilters to ztunnel or waypoints (istio#43720), ` +
        `so the ${h.filters.length} EnvoyFilter(s) written for this service take no effect`,
    }));
}

export const ambientAnalyzer: Analyzer = { codes: [AMBIENT_NAMESPACE], analyze };
