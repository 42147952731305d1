/**
 * Waypoint Gateways as istiod sees them (istio/istio pilot/pkg/serviceregistry/ambient/waypoints.go, release-1.30
 * @b9a2bbd2 and master @86c9f01f; docs/ambient-istio.md sections 2.1, 2.2 and 3): what is read of a Gateway and
 * its GatewayClass, the traffic type, which namespaces may bind to it, and the image its Deployment runs.
 */
import { HBONE_PORT, HBONE_PROTOCOL, PROXY_LISTENER_PROTOCOL, WAYPOINT_FOR_DEFAULT } from './labels.ts';
import { compareStrings } from '../order.ts';
import { selectorMatches, type LabelSelector } from './selector.ts';

/** A Gateway listener, with only what attachment reads (`spec.listeners[]`). */
export interface WaypointListener {
  readonly port: number;
  readonly protocol: string;
  /** `allowedRoutes.namespaces`; absent: `from: Same`. */
  readonly allowedNamespaces?: { readonly from?: string; readonly selector?: LabelSelector };
}

/** A `gateway.networking.k8s.io` Gateway, of any class (istiod does not check the class for binding). */
export interface WaypointGateway {
  readonly namespace: string;
  readonly name: string;
  /** `spec.gatewayClassName`. */
  readonly className: string;
  /** The `istio.io/waypoint-for` label, absent when not set. */
  readonly waypointFor?: string;
  /** The `sidecar.istio.io/proxyImage` annotation (metadata), absent when not set. */
  readonly proxyImage?: string;
  /**
   * The `aeraki.io/proxy-image` annotation (model/ambient/own-waypoint.ts OWN_WAYPOINT_IMAGE_ANNOTATION): the image
   * a Gateway of our own class runs instead of `--waypoint-image`; absent when not set.
   */
  readonly ownWaypointImage?: string;
  /** The `ambient.istio.io/waypoint-inbound-binding` annotation, absent when not set. */
  readonly inboundBinding?: string;
  /** `status.addresses` is non-empty: istiod counts a Gateway as a waypoint only then (gatewayToWaypointTransform). */
  readonly addressed: boolean;
  readonly listeners: readonly WaypointListener[];
}

/** A GatewayClass, with the two things a waypoint inherits from it. */
export interface WaypointGatewayClass {
  readonly name: string;
  readonly waypointFor?: string;
  readonly inboundBinding?: string;
}

/** Gateways by namespace and name and classes by name. Build with indexWaypoints. */
export interface WaypointIndex {
  gateway(namespace: string, name: string): WaypointGateway | undefined;
  gatewayClass(name: string): WaypointGatewayClass | undefined;
  /** Every Gateway read, ordered by namespace then name; the array must not be mutated. */
  gateways(): readonly WaypointGateway[];
}

export function indexWaypoints(
  gateways: readonly WaypointGateway[],
  classes: readonly WaypointGatewayClass[] = [],
): WaypointIndex {
  const byKey = new Map(gateways.map((g) => [`${g.namespace}/${g.name}`, g]));
  const byClass = new Map(classes.map((c) => [c.name, c]));
  let sorted: readonly WaypointGateway[] | undefined;
  const order = (a: WaypointGateway, b: WaypointGateway) =>
    compareStrings(a.namespace, b.namespace) || compareStrings(a.name, b.name);
  return {
    gateway: (namespace, name) => byKey.get(`${namespace}/${name}`),
    gatewayClass: (name) => byClass.get(name),
    gateways: () => (sorted ??= [...byKey.values()].sort(order)),
  };
}

/** The traffic type: the Gateway's label, else its class's, else `service` (gatewayToWaypointTransform). */
export function trafficTypeOf(gateway: WaypointGateway, gatewayClass?: WaypointGatewayClass): string {
  return gateway.waypointFor ?? gatewayClass?.waypointFor ?? WAYPOINT_FOR_DEFAULT;
}

/** istiod binds a Service or ServiceEntry only to a waypoint for `service` or `all` (fetchWaypointForService). */
export function takesServiceTraffic(trafficType: string): boolean {
  return trafficType === 'service' || trafficType === 'all';
}

interface InboundBinding {
  readonly protocol: 'NONE' | 'PROXY';
  readonly port: number;
}

/** makeInboundBinding: `NONE|PROXY[/port]`, from the Gateway, else its class; anything else is no binding. */
function inboundBindingOf(
  gateway: WaypointGateway,
  gatewayClass?: WaypointGatewayClass,
): InboundBinding | undefined {
  const value = gateway.inboundBinding ?? gatewayClass?.inboundBinding;
  if (value === undefined) return undefined;
  const parts = value.split('/');
  const protocol = parts[0];
  if (parts.length > 2 || (protocol !== 'NONE' && protocol !== 'PROXY')) return undefined;
  // strconv.ParseUint failing leaves the port 0 (istiod logs and goes on).
  const port = parts.length === 2 && /^[0-9]+$/.test(parts[1] ?? '') ? Number(parts[1]) : 0;
  return { protocol, port: port <= 0xffffffff ? port : 0 };
}

/** findBoundListener, then the HBONE listener on 15008 (makeAllowedRoutes); undefined: none (`Same`). */
function attachmentListener(
  gateway: WaypointGateway,
  gatewayClass?: WaypointGatewayClass,
): WaypointListener | undefined {
  const binding = inboundBindingOf(gateway, gatewayClass);
  const bound =
    binding === undefined
      ? undefined
      : binding.port !== 0
        ? gateway.listeners.find((l) => l.port === binding.port)
        : binding.protocol === 'PROXY'
          ? gateway.listeners.find((l) => l.protocol === PROXY_LISTENER_PROTOCOL)
          : undefined;
  return bound ?? gateway.listeners.find((l) => l.protocol === HBONE_PROTOCOL && l.port === HBONE_PORT);
}

/**
 * Whether a Service or ServiceEntry in `namespace` (with the namespace's labels) may bind to the waypoint:
 * Waypoint.AllowsAttachmentFromNamespace over makeAllowedRoutes/makeWaypointSelector. `All` admits every namespace,
 * `Selector` the namespaces its selector matches, and `Same` (the default, and any other value) only the Gateway's.
 */
export function allowsAttachment(
  gateway: WaypointGateway,
  gatewayClass: WaypointGatewayClass | undefined,
  namespace: string,
  namespaceLabels: Readonly<Record<string, string>>,
): boolean {
  const allowed = attachmentListener(gateway, gatewayClass)?.allowedNamespaces;
  const from = allowed?.from ?? 'Same';
  if (from === 'All') return true;
  if (from === 'Selector') return selectorMatches(allowed?.selector, namespaceLabels);
  return gateway.namespace === namespace;
}

/**
 * The image the waypoint Deployment runs instead of istiod's default, or undefined for the default
 * (files/waypoint.yaml:103-107): the Gateway's `sidecar.istio.io/proxyImage` annotation, used verbatim only when it
 * contains a `/`. (Without the annotation the install's `global.proxy.image` is tested the same way; this model
 * does not see install values.)
 */
export function waypointImageOverride(gateway: WaypointGateway): string | undefined {
  return gateway.proxyImage !== undefined && gateway.proxyImage.includes('/')
    ? gateway.proxyImage
    : undefined;
}
