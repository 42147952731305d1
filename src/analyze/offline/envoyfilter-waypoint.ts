/**
 * EnvoyFilters (given in files, or live read from the cluster) that never reach a waypoint, by istiod's rules:
 *
 * - AER0015 EnvoyFilterSelectsWaypoint: `spec.workloadSelector.labels` carries
 *   `gateway.networking.k8s.io/gateway-name: <name>` of a waypoint Gateway (class `istio-waypoint`) of the filter's
 *   namespace, and the filter has no `targetRefs`. Every pod of a waypoint carries that label (istio/istio master
 *   @86c9f01f manifests/charts/istio-control/istio-discovery/files/waypoint.yaml:69; docs/ambient-istio.md
 *   section 3), and a waypoint ignores every EnvoyFilter without `targetRefs` ("waypoints never use selector",
 *   pilot/pkg/model/policyattachment.go ShouldAttachPolicy, release-1.30 @b9a2bbd2 and master; docs section 4.3).
 *   Sidecars lack the label, so the filter reaches no proxy. A root-namespace filter is checked against the root
 *   namespace's Gateways only (the Gateways of other namespaces are looked up by name, not listed).
 * - AER0016 EnvoyFilterWaypointContext: a patch with `match.context: WAYPOINT`. istio/api added the value
 *   (istio/api#3577) and hid it again (#3623); validation skips such patches and no istiod (1.30, master) applies
 *   them (pkg/config/validation/envoyfilter/envoyfilter.go:78; docs section 4.2).
 *
 * Both are errors, as istioctl analyze rates a patch istiod always ignores (IST0153 EnvoyFilterUsesAddOperation-
 * Incorrectly, IST0154 ...RemoveOperationIncorrectly: Error; pkg/config/analysis/msg/messages.yaml @86c9f01f),
 * not as a selector that matches no workload today (IST0127 NoMatchingWorkloadsFound: Warning): no later workload
 * or rollout makes them apply.
 */
import { GATEWAY_API_GROUP, GATEWAY_NAME_LABEL, WAYPOINT_GATEWAY_CLASS } from '../../model/ambient/labels.ts';
import type { AnalysisCode, AnalysisInput, AnalysisMessage, Analyzer, EnvoyFilterFacts } from '../types.ts';

const WAYPOINT_GATEWAY = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: waypoint, namespace: shop}
spec:
  gatewayClassName: istio-waypoint
  listeners: [{name: mesh, port: 15008, protocol: HBONE}]
`;

export const ENVOY_FILTER_SELECTS_WAYPOINT: AnalysisCode = {
  code: 'AER0015',
  name: 'EnvoyFilterSelectsWaypoint',
  severity: 'error',
  why: 'A waypoint ignores every EnvoyFilter without targetRefs (istiod: "waypoints never use selector"), and sidecars lack the waypoint label: the filter reaches no proxy.',
  fix: "Replace spec.workloadSelector with spec.targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: <waypoint>}], the EnvoyFilter in the waypoint's namespace.",
  live: false,
  example: `${WAYPOINT_GATEWAY}---
apiVersion: networking.istio.io/v1alpha3
kind: EnvoyFilter
metadata: {name: rpc-audit, namespace: shop}
spec:
  workloadSelector: {labels: {gateway.networking.k8s.io/gateway-name: waypoint}}
  configPatches:
  - applyTo: NETWORK_FILTER
    match:
      context: SIDECAR_INBOUND
      listener: {name: main_internal, filterChain: {filter: {name: envoy.filters.network.tcp_proxy}}}
    patch: {operation: INSERT_BEFORE, value: {name: envoy.filters.network.rbac}}
`,
};

export const ENVOY_FILTER_WAYPOINT_CONTEXT: AnalysisCode = {
  code: 'AER0016',
  name: 'EnvoyFilterWaypointContext',
  severity: 'error',
  why: 'Istio accepts the patch context WAYPOINT but no istiod applies it (the API value was withdrawn): the patch never runs.',
  fix: "Use context SIDECAR_INBOUND (a waypoint's listeners are patched as inbound) with spec.targetRefs to the waypoint's Gateway.",
  live: false,
  example: `${WAYPOINT_GATEWAY}---
apiVersion: networking.istio.io/v1alpha3
kind: EnvoyFilter
metadata: {name: rpc-audit, namespace: shop}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: waypoint}]
  configPatches:
  - applyTo: NETWORK_FILTER
    match:
      context: WAYPOINT
      listener: {name: main_internal, filterChain: {filter: {name: envoy.filters.network.tcp_proxy}}}
    patch: {operation: INSERT_BEFORE, value: {name: envoy.filters.network.rbac}}
`,
};

/** The files' EnvoyFilters, then the cluster's not redefined by a file (all of them, this controller's too). */
function envoyFiltersOf(input: AnalysisInput): EnvoyFilterFacts[] {
  const files = input.envoyFilters ?? [];
  const key = (f: EnvoyFilterFacts) => `${f.namespace}/${f.name}`;
  const given = new Set(files.map(key));
  return [...files, ...(input.cluster?.envoyFilters ?? []).filter((f) => !given.has(key(f)))];
}

function selectsWaypoint(input: AnalysisInput, f: EnvoyFilterFacts): AnalysisMessage | undefined {
  if ((f.targetRefs ?? []).length > 0 || f.workloadLabels === undefined) return undefined;
  const name = f.workloadLabels[GATEWAY_NAME_LABEL];
  if (name === undefined) return undefined;
  const gateway = input.ambient?.waypoints().gateway(f.namespace, name);
  if (gateway?.className !== WAYPOINT_GATEWAY_CLASS) return undefined;
  return {
    code: ENVOY_FILTER_SELECTS_WAYPOINT,
    ref: { kind: 'EnvoyFilter', namespace: f.namespace, name: f.name },
    path: `spec.workloadSelector.labels.${GATEWAY_NAME_LABEL}`,
    message:
      `workloadSelector selects the pods of waypoint ${f.namespace}/${name} (${GATEWAY_NAME_LABEL}=${name}), and a ` +
      `waypoint ignores every EnvoyFilter without targetRefs: this filter never attaches; use spec.targetRefs ` +
      `[{group: ${GATEWAY_API_GROUP}, kind: Gateway, name: ${name}}] instead`,
  };
}

function waypointContexts(f: EnvoyFilterFacts): AnalysisMessage[] {
  const out: AnalysisMessage[] = [];
  f.patches.forEach((p, i) => {
    if (p.context !== 'WAYPOINT') return;
    out.push({
      code: ENVOY_FILTER_WAYPOINT_CONTEXT,
      ref: { kind: 'EnvoyFilter', namespace: f.namespace, name: f.name },
      path: `spec.configPatches[${i}].match.context`,
      message:
        'context WAYPOINT is accepted by validation and applied by no istiod: this patch never runs; use ' +
        "SIDECAR_INBOUND with spec.targetRefs to the waypoint's Gateway",
    });
  });
  return out;
}

function analyze(input: AnalysisInput): AnalysisMessage[] {
  return envoyFiltersOf(input).flatMap((f) => {
    const selected = selectsWaypoint(input, f);
    return [...(selected ? [selected] : []), ...waypointContexts(f)];
  });
}

export const envoyFilterWaypointAnalyzer: Analyzer = {
  codes: [ENVOY_FILTER_SELECTS_WAYPOINT, ENVOY_FILTER_WAYPOINT_CONTEXT],
  analyze,
};
