/**
 * AER0014 AmbientServiceWithoutWaypoint: a service with a port this controller handles, in a namespace labelled
 * `istio.io/dataplane-mode: ambient` (a Namespace given in files, or live read from the cluster), bound to no
 * waypoint istiod uses (model/ambient/binding.ts waypointOf). Its workloads have no sidecar and no waypoint runs
 * L7 for it, so its RPC is plain TCP through ztunnel: nothing written for it takes effect. The advice follows
 * `--waypoint-envoyfilters` (ambient-advice.ts). Live, AER0102 reports the same service, knowing which of its pods
 * have sidecars (a pod with one is not captured), so this code stays silent there: one problem, one message.
 */
import { protocolSegment } from '../../model/protocol.ts';
import { refOf, type ConfigIssue } from '../../model/result.ts';
import type { ServiceEntry } from '../../model/objects.ts';
import { bindingOf, inAmbientNamespace, unboundText, waypointAdvice } from '../ambient-advice.ts';
import { handledServices } from '../live/services.ts';
import type { AnalysisCode, AnalysisInput, AnalysisMessage, Analyzer } from '../types.ts';
import { ORDERS_ENTRY } from '../examples.ts';

export const AMBIENT_SERVICE_WITHOUT_WAYPOINT: AnalysisCode = {
  code: 'AER0014',
  name: 'AmbientServiceWithoutWaypoint',
  severity: 'warning',
  why: 'In an ambient namespace only a waypoint runs L7: a service with RPC ports and no waypoint carries them as plain TCP, and no EnvoyFilter written for it takes effect.',
  fix: 'Turn on --waypoint-envoyfilters and bind the service to an Istio waypoint (label istio.io/use-waypoint on it or its namespace); the message names the waypoint.',
  live: false,
  example: `apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {istio.io/dataplane-mode: ambient}}
---
${ORDERS_ENTRY}`,
};

/** The names of the ports of `service` some generator handles. */
function handledPortNames(input: AnalysisInput, service: ServiceEntry): string[] {
  const handled = new Set(input.handledProtocols ?? input.detectedProtocols);
  return service.spec.ports
    .filter((p) => {
      const protocol = protocolSegment(p.name);
      return protocol !== undefined && handled.has(protocol);
    })
    .map((p) => `"${p.name}"`);
}

function analyze(input: AnalysisInput): AnalysisMessage[] {
  if (input.cluster !== undefined) return []; // live: AER0102
  const out: AnalysisMessage[] = [];
  for (const { service } of handledServices(input)) {
    const ns = service.metadata.namespace;
    if (!inAmbientNamespace(input, ns)) continue;
    const binding = bindingOf(input, service);
    if (binding === undefined || binding.bound || binding.reason === 'is-gateway') continue;
    const ports = handledPortNames(input, service);
    out.push({
      code: AMBIENT_SERVICE_WITHOUT_WAYPOINT,
      ref: refOf(service),
      path: 'metadata.labels',
      message:
        `namespace ${ns} is in ambient mode and this service has no waypoint (${unboundText(binding, ns)}): ` +
        `the RPC of port(s) ${ports.join(', ')} is plain TCP through ztunnel; ${waypointAdvice(input, service, binding)}`,
    });
  }
  return out;
}

/** Generation's warning about a waypoint the labels name that istiod does not use (envoyfilter/waypoint.ts). */
function covers(issue: ConfigIssue, input: AnalysisInput): boolean {
  return (
    input.cluster === undefined &&
    issue.path === 'metadata.labels' &&
    issue.message.includes('which istiod does not use') &&
    inAmbientNamespace(input, issue.ref.namespace)
  );
}

export const ambientWithoutWaypointAnalyzer: Analyzer = {
  codes: [AMBIENT_SERVICE_WITHOUT_WAYPOINT],
  analyze,
  covers,
};
