/**
 * The endpoints our own waypoint sends to (EDS): ready pod IPs of a Service's EndpointSlices (Pods read for their
 * labels only, to select DestinationRule subsets), or a ServiceEntry's `endpoints` and the WorkloadEntries its
 * `workloadSelector` selects. Never a service VIP: ztunnel sends a connection to a VIP that has a waypoint back to
 * the waypoint (docs/waypoint-own.md section 1, "Loop avoidance").
 */
import type { ServiceEntry, ServicePort } from '../objects.ts';

export interface WorkloadEndpoint {
  /** An IP address (v4 or v6). */
  readonly address: string;
  /** The port the workload receives the service port on (targetPort resolved). */
  readonly port: number;
  /** The workload's labels (the Pod's, the WorkloadEntry's, the ServiceEntry endpoint's). */
  readonly labels: Readonly<Record<string, string>>;
  /** Load-balancing weight (WorkloadEntry / ServiceEntry endpoint `weight`); absent: 1. */
  readonly weight?: number;
}

/** A Service or ServiceEntry whose endpoints changed, by kind, namespace and name. */
export interface EndpointsOwner {
  readonly kind: 'Service' | 'ServiceEntry';
  readonly namespace: string;
  readonly name: string;
}

/**
 * Ready endpoints by service. Implementations keep only what is read (addresses, ports, the labels of the Pods that
 * back a Service) and call the subscribers with the owners whose endpoints changed (batched, in any order).
 */
export interface EndpointsView {
  /** The ready endpoints of one port of `service`, sorted by address then port; empty when none are known. */
  endpointsOf(service: ServiceEntry, port: ServicePort): readonly WorkloadEndpoint[];
  /** Calls `listener` with the owners whose endpoints changed; returns the unsubscribe function. */
  subscribe(listener: (changed: readonly EndpointsOwner[]) => void): () => void;
  /** True once every source of endpoints listed once (before that, an empty answer means "not known yet"). */
  synced(): boolean;
}

export const NO_ENDPOINTS: EndpointsView = {
  endpointsOf: () => [],
  subscribe: () => () => {},
  synced: () => true,
};
