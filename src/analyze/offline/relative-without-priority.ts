/**
 * AER0013 EnvoyFilterRelativeWithoutPriority: an EnvoyFilter of others (no `manager: Aeraki` label; given in files,
 * or live, read from the cluster) inserts a network or HTTP filter relative to another one (INSERT_BEFORE,
 * INSERT_AFTER, INSERT_FIRST) without a `priority`, on a listener this controller's EnvoyFilters patch (the same
 * listener name or port, analyze/patch-match.ts; a match on no listener at all counts when it anchors on tcp_proxy
 * or a filter this controller puts in its place). This controller's REPLACE has no priority either, so which one
 * applies first depends on namespaces and creation times (Istio orders EnvoyFilters by priority, then root
 * namespace first, then age): the insert can land, or find its anchor gone. istioctl's IST0151, for these listeners.
 * Only filters that reach the same proxies count (the root namespace's reach all, any other its own namespace's).
 */
import type {
  AnalysisCode,
  AnalysisInput,
  AnalysisMessage,
  Analyzer,
  EnvoyFilterFacts,
  EnvoyFilterPatchFacts,
} from '../types.ts';
import {
  CONTESTED_FILTERS,
  listenerText,
  othersEnvoyFilters,
  portOf,
  sameContext,
  sameListener,
  sameProxies,
} from '../patch-match.ts';
import { ORDERS_ENTRY } from '../examples.ts';

export const ENVOY_FILTER_RELATIVE_WITHOUT_PRIORITY: AnalysisCode = {
  code: 'AER0013',
  name: 'EnvoyFilterRelativeWithoutPriority',
  severity: 'warning',
  why: "Another EnvoyFilter inserts a filter relative to another one, without a priority, on a listener this controller's EnvoyFilters patch: which applies first depends on namespaces and creation times, so the insert may land or find its anchor replaced.",
  fix: "Give the other EnvoyFilter a `spec.priority` (positive: after this controller's REPLACE, negative: before it), or anchor it on the filter this controller writes.",
  live: false,
  example: `${ORDERS_ENTRY}---
apiVersion: networking.istio.io/v1alpha3
kind: EnvoyFilter
metadata: {name: rpc-audit, namespace: istio-system}
spec:
  configPatches:
  - applyTo: NETWORK_FILTER
    match:
      context: SIDECAR_OUTBOUND
      listener:
        portNumber: 20880
        filterChain: {filter: {name: envoy.filters.network.tcp_proxy}}
    patch:
      operation: INSERT_BEFORE
      value: {name: envoy.filters.network.rbac}
`,
};

const RELATIVE = new Set(['INSERT_BEFORE', 'INSERT_AFTER', 'INSERT_FIRST']);
const FILTERS = new Set(['NETWORK_FILTER', 'HTTP_FILTER']);

/** Whether `theirs` reaches the listener (and context) one of this controller's patches is for. */
function reaches(theirs: EnvoyFilterPatchFacts, ours: EnvoyFilterPatchFacts): boolean {
  if (ours.filterName === undefined || !sameContext(theirs, ours)) return false;
  const anywhere = theirs.listenerName === undefined && portOf(theirs) === undefined;
  if (anywhere) return theirs.filterName !== undefined && CONTESTED_FILTERS.has(theirs.filterName);
  return sameListener(theirs, ours);
}

function whereText(p: EnvoyFilterPatchFacts): string {
  return p.listenerName === undefined && portOf(p) === undefined
    ? `every listener's ${p.filterName ?? ''}`
    : listenerText(p);
}

function analyze(input: AnalysisInput): AnalysisMessage[] {
  if (input.generated.length === 0) return [];
  const out: AnalysisMessage[] = [];
  for (const other of othersEnvoyFilters(input)) {
    if ((other.priority ?? 0) !== 0) continue;
    other.patches.forEach((theirs, index) => {
      if (!RELATIVE.has(theirs.operation) || !FILTERS.has(theirs.applyTo)) return;
      const ours: EnvoyFilterFacts[] = input.generated.filter(
        (f) =>
          sameProxies(other, f, input.options.rootNamespace) && f.patches.some((p) => reaches(theirs, p)),
      );
      if (ours.length === 0) return;
      const names = ours.map((f) => `${f.namespace}/${f.name}`).sort();
      const first = ours.find((f) => `${f.namespace}/${f.name}` === names[0]);
      const more = names.length > 1 ? ` and ${names.length - 1} more` : '';
      out.push({
        code: ENVOY_FILTER_RELATIVE_WITHOUT_PRIORITY,
        ref: { kind: 'EnvoyFilter', namespace: other.namespace, name: other.name },
        path: `spec.configPatches[${index}]`,
        message:
          `${theirs.operation} of a ${theirs.applyTo} on ${whereText(theirs)} without a priority: its order ` +
          `against this controller's EnvoyFilter ${names[0] ?? ''}${first?.source ? ` (for ${first.source})` : ''}` +
          `${more} depends on namespaces and creation times; set spec.priority`,
      });
    });
  }
  return out;
}

export const relativeWithoutPriorityAnalyzer: Analyzer = {
  codes: [ENVOY_FILTER_RELATIVE_WITHOUT_PRIORITY],
  analyze,
};
