/**
 * The warning of a ServiceEntry (or a Kubernetes Service, converted) with a handled port but no address: the outbound
 * filters match the listener `<address>_<port>` a sidecar has for a service with a VIP, so without one only inbound
 * filters (for the workloads it selects) are generated. Its words follow what the object is, as Istio converts
 * Services (istio/istio pilot/pkg/serviceregistry/kube/conversion.go ConvertService, at 1.24.0) and builds their
 * outbound listeners (pilot/pkg/networking/core/listener.go, at 1.24.0):
 * - a ServiceEntry: `spec.addresses` is what gives it the VIP;
 * - a Service of type ClusterIP with no `spec.clusterIP` in the file: the API server allocates one when the Service
 *   is created (https://kubernetes.io/docs/concepts/services-networking/service/#type-clusterip), so only the file
 *   lacks it;
 * - a headless Service (`spec.clusterIP: None`, https://kubernetes.io/docs/concepts/services-networking/service/#headless-services):
 *   Istio gives it no VIP (resolution Passthrough, address 0.0.0.0) and builds its clients' TCP listeners per pod
 *   (`<pod IP>_<port>`); a cluster IP cannot be added to an existing Service (`spec.clusterIP` is immutable);
 * - an ExternalName Service (a DNS alias, https://kubernetes.io/docs/concepts/services-networking/service/#externalname):
 *   no cluster IP and no pods (Istio: resolution Alias, address 0.0.0.0, its clients' listener the wildcard
 *   `0.0.0.0_<port>`), so nothing is generated; a ServiceEntry with an address for the external host is the way.
 */
import type { ServiceEntry } from '../model/objects.ts';
import { refOf, warning, type ConfigIssue } from '../model/result.ts';

const SERVICE_ENTRY =
  'no spec.addresses, so no outbound listener <address>_<port> to match: only inbound filters are generated ' +
  '(for the workloads the ServiceEntry selects), and its clients send plain TCP';

function inbound(se: ServiceEntry): string {
  return se.spec.workloadSelector !== undefined
    ? 'only inbound filters are generated (for the pods the Service selects)'
    : 'nothing is generated (the Service selects no pods)';
}

/** The path and words of the warning for `se` (a ServiceEntry, or a Service as converted). */
function words(se: ServiceEntry): { path: string; message: string } {
  if (se.kind !== 'Service') return { path: 'spec.addresses', message: SERVICE_ENTRY };
  if (se.spec.resolution === 'DNS' && se.spec.location === 'MESH_EXTERNAL') {
    return {
      path: 'spec.type',
      message:
        'an ExternalName Service is a DNS alias with no cluster IP and no pods: its clients get only the wildcard ' +
        'listener 0.0.0.0_<port>, which these filters do not match, so nothing is generated and they send plain ' +
        'TCP; for the protocol filters, write a ServiceEntry for the external host with spec.addresses',
    };
  }
  if (se.spec.resolution === 'NONE') {
    return {
      path: 'spec.clusterIP',
      message:
        'a headless Service (clusterIP: None) has no cluster IP: Istio gives its clients a listener per pod ' +
        `(<pod IP>_<port>), not <clusterIP>_<port>, so its clients send plain TCP and ${inbound(se)}; for the ` +
        'outbound filters, use a Service with a cluster IP (a new one: spec.clusterIP cannot be changed)',
    };
  }
  return {
    path: 'spec.clusterIP',
    message:
      'no spec.clusterIP in the file (the API server allocates one when the Service is created), so no outbound ' +
      `listener <clusterIP>_<port> to match here: ${inbound(se)}; in the cluster its clients get the outbound ` +
      'filters too (analyze the cluster, or give spec.clusterIP, to see them)',
  };
}

/** The `no-addresses` warning of `se` (ConfigIssue.rule, so analyze reports it as AER0004 whatever the words). */
export function noAddressWarning(se: ServiceEntry): ConfigIssue {
  const { path, message } = words(se);
  return { ...warning(refOf(se), path, message), rule: 'no-addresses' };
}
