/**
 * The ports an inbound filter matches (deviation D16). A sidecar keys its inbound filter chains by the port the
 * workload receives on, not the service port (istio pilot/pkg/networking/core/v1alpha3/listener_inbound.go:
 * `FilterChainMatch.destinationPort` and the cluster `inbound|<port>||` come from the endpoint's port), so Aeraki's
 * match on the service port (spec aeraki-core.md 7.3) installs nothing when `targetPort` differs. Resolved, in order:
 * 1. for a Kubernetes Service (a converted one, or istiod's synthetic ServiceEntry over MCP, which carries no
 *    targetPort), the ports its EndpointSlices give for the Service port's name, where they are read;
 * 2. the port's numeric `targetPort`;
 * 3. the service port; for a named `targetPort` where EndpointSlices are not read, with a warning.
 */
import type { SidecarContext } from '../model/generator.ts';
import { kubeServiceOf } from '../model/names.ts';
import type { ServiceEntry, ServicePort } from '../model/objects.ts';
import { refOf, warning, type ConfigIssue } from '../model/result.ts';
import type { ConfigView } from '../model/view.ts';

/** The ports the workloads receive `port` of `se` on: sorted, distinct, at least one. */
export function inboundPortsOf(view: ConfigView, se: ServiceEntry, port: ServicePort): readonly number[] {
  const service = kubeServiceOf(se);
  if (service !== undefined) {
    const fromSlices = view.endpointPorts(se.metadata.namespace, service)?.get(port.name);
    if (fromSlices !== undefined && fromSlices.length > 0) return fromSlices;
  }
  return [port.targetPort ?? port.number];
}

function selectsWorkloads(se: ServiceEntry): boolean {
  const labels = se.spec.workloadSelector?.labels;
  return (
    (labels !== undefined && Object.keys(labels).length > 0) || 'workloadSelector' in se.metadata.annotations
  );
}

/**
 * The warning of a port whose named `targetPort` cannot be resolved because EndpointSlices are not read here
 * (render, validate, the directory source): its inbound filter matches the service port. undefined otherwise, and
 * when no inbound filter is generated (no workloads selected, D2).
 */
export function unresolvedTargetPortWarning(view: ConfigView, ctx: SidecarContext): ConfigIssue | undefined {
  const { serviceEntry: se, port, portIndex } = ctx;
  if (port.targetPortName === undefined || !selectsWorkloads(se)) return undefined;
  const service = kubeServiceOf(se);
  if (service !== undefined && view.endpointPorts(se.metadata.namespace, service) !== undefined)
    return undefined;
  return warning(
    refOf(se),
    `spec.ports[${portIndex}].targetPort`,
    `named target port "${port.targetPortName}" cannot be resolved offline (EndpointSlices are read only with ` +
      `Kubernetes API access); the inbound filter matches the service port ${port.number}`,
  );
}
