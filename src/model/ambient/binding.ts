/**
 * Which waypoint a Service or ServiceEntry is bound to, as istiod decides it: fetchWaypointForService and
 * fetchWaypointForTarget in istio/istio pilot/pkg/serviceregistry/ambient/waypoints.go (release-1.30 @b9a2bbd2
 * :151 and :99, getUseWaypoint :200; master @86c9f01f the same, GetUseWaypoint :213). docs/ambient-istio.md
 * section 2 has the rules in order.
 *
 * The binding does not depend on the namespace's `istio.io/dataplane-mode`: istiod binds a service to a waypoint
 * whatever its namespace's mode, and ambient clients then send to the waypoint. `ambient` on the result says
 * whether the service's namespace is in ambient mode, for callers that care (analyze).
 *
 * Not modelled: master's ServiceEntry visibility rule (a NAMESPACE-visible ServiceEntry may not bind across
 * namespaces, from the mesh config; not in 1.30) and canary waypoints (master only).
 */
import {
  DATAPLANE_MODE_AMBIENT,
  DATAPLANE_MODE_LABEL,
  GATEWAY_MANAGED_LABEL,
  GATEWAY_MANAGED_NO_WAYPOINT,
  USE_WAYPOINT_LABEL,
  USE_WAYPOINT_NAMESPACE_LABEL,
  USE_WAYPOINT_NONE,
} from './labels.ts';
import {
  allowsAttachment,
  takesServiceTraffic,
  trafficTypeOf,
  type WaypointGateway,
  type WaypointIndex,
} from './waypoint.ts';

type Labels = Readonly<Record<string, string>>;

export interface AmbientNamespace {
  readonly name: string;
  readonly labels: Labels;
}

/** A Kubernetes Service or an Istio ServiceEntry: both bind the same way; a ServiceEntry binds all its hosts. */
export interface AmbientService {
  readonly kind: 'Service' | 'ServiceEntry';
  readonly namespace: string;
  readonly name: string;
  readonly labels: Labels;
}

export interface WaypointRef {
  readonly namespace: string;
  readonly name: string;
}

/** Where the deciding `istio.io/use-waypoint` label was: on the service itself or on its namespace. */
export type BindingSource = 'service' | 'namespace';

/**
 * Why a service has no waypoint:
 * - `no-label`: neither the service nor its namespace has `istio.io/use-waypoint` (istiod: no waypoint, no error);
 * - `opted-out`: the deciding label is `none` (no error);
 * - `is-gateway`: the service is a waypoint's or east-west gateway's own (`gateway.istio.io/managed`; no error);
 * - `gateway-missing`: no Gateway of that namespace and name (istiod: WaypointIsNotReady);
 * - `gateway-not-ready`: the Gateway has no `status.addresses`, so istiod has no waypoint for it (WaypointIsNotReady);
 * - `attachment-denied`: the waypoint's HBONE listener does not admit the service's namespace (AttachmentDenied);
 * - `not-service-traffic`: the waypoint's traffic type is not `service` or `all` (UnsupportedTrafficType).
 */
export type UnboundReason =
  | 'no-label'
  | 'opted-out'
  | 'is-gateway'
  | 'gateway-missing'
  | 'gateway-not-ready'
  | 'attachment-denied'
  | 'not-service-traffic';

export type WaypointBinding =
  | {
      readonly bound: true;
      readonly waypoint: WaypointRef;
      readonly gateway: WaypointGateway;
      readonly source: BindingSource;
      readonly ambient: boolean;
    }
  | {
      readonly bound: false;
      readonly reason: UnboundReason;
      /** The waypoint the labels name, when they name one. */
      readonly waypoint?: WaypointRef;
      readonly source?: BindingSource;
      readonly ambient: boolean;
    };

/** True when the namespace is labelled `istio.io/dataplane-mode: ambient`. */
export function isAmbientNamespace(namespace: AmbientNamespace | undefined): boolean {
  return namespace?.labels[DATAPLANE_MODE_LABEL] === DATAPLANE_MODE_AMBIENT;
}

type UseWaypoint = { readonly none: true } | { readonly none: false; readonly ref: WaypointRef } | undefined;

/** getUseWaypoint: the object's own `istio.io/use-waypoint` (and `-namespace` beside it), or undefined. */
export function useWaypointOf(labels: Labels, defaultNamespace: string): UseWaypoint {
  if (!Object.hasOwn(labels, USE_WAYPOINT_LABEL)) return undefined;
  const name = labels[USE_WAYPOINT_LABEL] ?? '';
  if (name === USE_WAYPOINT_NONE) return { none: true };
  const namespace = Object.hasOwn(labels, USE_WAYPOINT_NAMESPACE_LABEL)
    ? (labels[USE_WAYPOINT_NAMESPACE_LABEL] ?? '')
    : defaultNamespace;
  return { none: false, ref: { namespace, name } };
}

/**
 * The waypoint `service` is bound to. `namespace` is the service's Namespace (undefined when unknown: no namespace
 * label applies and attachment reads no namespace labels); `waypoints` holds the Gateways and GatewayClasses read.
 */
export function waypointOf(
  service: AmbientService,
  namespace: AmbientNamespace | undefined,
  waypoints: WaypointIndex,
): WaypointBinding {
  const ambient = isAmbientNamespace(namespace);
  const managed = service.labels[GATEWAY_MANAGED_LABEL];
  if (managed !== undefined && (GATEWAY_MANAGED_NO_WAYPOINT as readonly string[]).includes(managed)) {
    return { bound: false, reason: 'is-gateway', ambient };
  }
  const own = useWaypointOf(service.labels, service.namespace);
  const fromNamespace =
    own === undefined && namespace ? useWaypointOf(namespace.labels, service.namespace) : undefined;
  const use = own ?? fromNamespace;
  const source: BindingSource = own !== undefined ? 'service' : 'namespace';
  if (use === undefined) return { bound: false, reason: 'no-label', ambient };
  if (use.none) return { bound: false, reason: 'opted-out', source, ambient };
  const waypoint = use.ref;
  const unbound = (reason: UnboundReason): WaypointBinding => ({
    bound: false,
    reason,
    waypoint,
    source,
    ambient,
  });
  const gateway = waypoints.gateway(waypoint.namespace, waypoint.name);
  if (gateway === undefined) return unbound('gateway-missing');
  if (!gateway.addressed) return unbound('gateway-not-ready');
  const gatewayClass = waypoints.gatewayClass(gateway.className);
  if (!allowsAttachment(gateway, gatewayClass, service.namespace, namespace?.labels ?? {})) {
    return unbound('attachment-denied');
  }
  if (!takesServiceTraffic(trafficTypeOf(gateway, gatewayClass))) return unbound('not-service-traffic');
  return { bound: true, waypoint, gateway, source, ambient };
}
