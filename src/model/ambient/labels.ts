/**
 * The label, annotation and class names ambient mode is configured with, as istiod reads them. Read in istio/istio
 * release-1.30 @b9a2bbd2 and master @86c9f01f, and istio/api @2e43f07b30b6 (label/labels.gen.go); see
 * docs/ambient-istio.md section 1.
 */

/** `istio.io/dataplane-mode` (api IoIstioDataplaneMode) on a Namespace or a Pod. */
export const DATAPLANE_MODE_LABEL = 'istio.io/dataplane-mode';
/** pkg/config/constants/constants.go DataplaneModeAmbient. */
export const DATAPLANE_MODE_AMBIENT = 'ambient';
/** pkg/config/constants/constants.go DataplaneModeNone: a pod (or a waypoint's pods) left out of ambient. */
export const DATAPLANE_MODE_NONE = 'none';

/** `istio.io/use-waypoint` (api IoIstioUseWaypoint) on a Namespace, Service, ServiceEntry, Pod or WorkloadEntry. */
export const USE_WAYPOINT_LABEL = 'istio.io/use-waypoint';
/** `istio.io/use-waypoint-namespace` (api IoIstioUseWaypointNamespace): read only beside `istio.io/use-waypoint`. */
export const USE_WAYPOINT_NAMESPACE_LABEL = 'istio.io/use-waypoint-namespace';
/** The `istio.io/use-waypoint` value that opts out (waypoints.go getUseWaypoint: "Istio reserves the word none"). */
export const USE_WAYPOINT_NONE = 'none';

/** `istio.io/waypoint-for` (api IoIstioWaypointFor) on a Gateway or its GatewayClass. */
export const WAYPOINT_FOR_LABEL = 'istio.io/waypoint-for';
/** The values istiod knows (constants.go ServiceTraffic, WorkloadTraffic, AllTraffic, NoTraffic). */
export const WAYPOINT_FOR_VALUES = ['service', 'workload', 'all', 'none'] as const;
/** The traffic type of a waypoint whose Gateway and GatewayClass carry no `istio.io/waypoint-for`. */
export const WAYPOINT_FOR_DEFAULT = 'service';

/** `istio.io/ingress-use-waypoint` (api IoIstioIngressUseWaypoint): ingress gateways send to the waypoint. */
export const INGRESS_USE_WAYPOINT_LABEL = 'istio.io/ingress-use-waypoint';

/** `gateway.istio.io/managed` (api GatewayManaged): on a waypoint's or east-west gateway's own Service. */
export const GATEWAY_MANAGED_LABEL = 'gateway.istio.io/managed';
/** constants.go ManagedGatewayMeshControllerLabel and ManagedGatewayEastWestControllerLabel. */
export const GATEWAY_MANAGED_NO_WAYPOINT = [
  'istio.io-mesh-controller',
  'istio.io-eastwest-controller',
] as const;

/** `gateway.networking.k8s.io/gateway-name` (api IoK8sNetworkingGatewayGatewayName): on a waypoint's pods. */
export const GATEWAY_NAME_LABEL = 'gateway.networking.k8s.io/gateway-name';

/** `ambient.istio.io/waypoint-inbound-binding` (Gateway, else GatewayClass): `NONE|PROXY[/port]`. */
export const WAYPOINT_INBOUND_BINDING_ANNOTATION = 'ambient.istio.io/waypoint-inbound-binding';

/** Gateway annotation the waypoint Deployment takes its image from (files/waypoint.yaml:103-107). */
export const PROXY_IMAGE_ANNOTATION = 'sidecar.istio.io/proxyImage';

/** constants.go WaypointGatewayClassName: the class of Istio's own waypoints. */
export const WAYPOINT_GATEWAY_CLASS = 'istio-waypoint';
/** The Gateway API group a waypoint Gateway (and an EnvoyFilter's targetRef to it) names. */
export const GATEWAY_API_GROUP = 'gateway.networking.k8s.io';
/** The listener Istio's waypoints take HBONE on (istioctl waypoint.go; waypoints.go makeAllowedRoutes). */
export const HBONE_PORT = 15008;
export const HBONE_PROTOCOL = 'HBONE';
/** constants.go WaypointSandwichListenerProxyProtocol: the listener protocol a PROXY inbound binding picks. */
export const PROXY_LISTENER_PROTOCOL = 'istio.io/PROXY';
