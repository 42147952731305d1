/**
 * AER0107 ConflictingEnvoyFilter: an EnvoyFilter not written by this controller (no `manager: Aeraki` label) that
 * REPLACEs, REMOVEs or MERGEs into the filter this controller's EnvoyFilters patch on the same listener (tcp_proxy,
 * or the protocol filter that replaced it): one undoes the other, and which wins depends on priority and creation
 * time (istio pilot/pkg/model/push_context.go, EnvoyFilter ordering).
 * A listener is the same when both patches name it (`10.96.10.20_20880`), else when both give its port (a name's
 * `_<port>` suffix counts). The shared `virtualInbound`/`virtualOutbound` listeners need the port on both sides:
 * an inbound patch's filter chain destinationPort, or its portNumber (analyze/patch-match.ts).
 * The other EnvoyFilters are the cluster's and those of the files analysed with it (a file's definition wins), so
 * a fix is checked before it is applied. Two EnvoyFilters in different namespaces, neither the root namespace,
 * reach different proxies and never conflict.
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
  sameContext,
  sameListener,
  sameProxies,
} from '../patch-match.ts';
import { ORDERS_ENTRY } from '../examples.ts';

export const CONFLICTING_ENVOY_FILTER: AnalysisCode = {
  code: 'AER0107',
  name: 'ConflictingEnvoyFilter',
  severity: 'warning',
  why: "Another EnvoyFilter replaces, removes or merges into the filter this controller's EnvoyFilter patches on the same listener: one undoes the other.",
  fix: 'Remove the other EnvoyFilter, or narrow its match (listener, port, workloadSelector) so it leaves this service alone.',
  live: true,
  example: `${ORDERS_ENTRY}  resolution: STATIC
# In the cluster: EnvoyFilter istio-system/legacy-dubbo (no manager label) REPLACEs
# envoy.filters.network.tcp_proxy on listener portNumber 20880, context SIDECAR_OUTBOUND.`,
};

const UNDOING = new Set(['REPLACE', 'REMOVE', 'MERGE']);

function conflicts(theirs: EnvoyFilterPatchFacts, ours: EnvoyFilterPatchFacts): boolean {
  return (
    UNDOING.has(theirs.operation) &&
    theirs.filterName !== undefined &&
    CONTESTED_FILTERS.has(theirs.filterName) &&
    ours.filterName !== undefined &&
    sameContext(theirs, ours) &&
    sameListener(theirs, ours)
  );
}

function analyze(input: AnalysisInput): AnalysisMessage[] {
  if (!input.cluster) return [];
  const others = othersEnvoyFilters(input);
  const out: AnalysisMessage[] = [];
  for (const other of others) {
    const hits = new Map<string, { ours: EnvoyFilterFacts; theirs: EnvoyFilterPatchFacts; index: number }>();
    other.patches.forEach((theirs, index) => {
      for (const ours of input.generated) {
        if (!sameProxies(other, ours, input.options.rootNamespace)) continue;
        const key = `${ours.namespace}/${ours.name}`;
        if (!hits.has(key) && ours.patches.some((p) => conflicts(theirs, p)))
          hits.set(key, { ours, theirs, index });
      }
    });
    for (const [key, { ours, theirs, index }] of [...hits].sort((a, b) => a[0].localeCompare(b[0]))) {
      out.push({
        code: CONFLICTING_ENVOY_FILTER,
        ref: { kind: 'EnvoyFilter', namespace: other.namespace, name: other.name },
        path: `spec.configPatches[${index}]`,
        message:
          `${theirs.operation} of ${theirs.filterName ?? ''} on ${listenerText(theirs)} patches the filter ` +
          `this controller's EnvoyFilter ${key}${ours.source ? ` (for ${ours.source})` : ''} patches: one undoes the other`,
      });
    }
  }
  return out;
}

export const conflictingAnalyzer: Analyzer = { codes: [CONFLICTING_ENVOY_FILTER], analyze };
