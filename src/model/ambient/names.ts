/**
 * The names istiod gives a waypoint's inbound side, which a waypoint EnvoyFilter matches and routes to
 * (istio/istio pilot/pkg/networking/core, release-1.30 @b9a2bbd2 and master @86c9f01f, the same in both;
 * docs/ambient-istio.md section 4).
 */

/** waypoint.go MainInternalName: the internal listener every service's chains hang off. */
export const WAYPOINT_LISTENER = 'main_internal';

/** pilot/pkg/model/service.go TrafficDirectionInboundVIP. */
export const INBOUND_VIP = 'inbound-vip';

/** The two chain kinds istiod builds per service port, and the prefix of every VIP cluster's subset slot. */
export type WaypointChainKind = 'tcp' | 'http';

/**
 * model.BuildSubsetKey(TrafficDirectionInboundVIP, subset, host, port) (service.go:1782):
 * `inbound-vip|<port>|<subset>|<host>`.
 */
export function inboundVipSubsetKey(subset: string, host: string, port: number): string {
  return `${INBOUND_VIP}|${port}|${subset}|${host}`;
}

/**
 * The filter chain of a service port on `main_internal` (listener_waypoint.go buildWaypointInternal :461-495):
 * `inbound-vip|<port>|tcp|<host>` or `inbound-vip|<port>|http|<host>`. The tcp chain ends in
 * `envoy.filters.network.tcp_proxy`.
 */
export function waypointChainName(kind: WaypointChainKind, host: string, port: number): string {
  return inboundVipSubsetKey(kind, host, port);
}

/**
 * A VIP cluster of a service port (cluster_waypoint.go buildWaypointInboundVIP :319):
 * `inbound-vip|<port>|tcp|<host>` and, per DestinationRule subset, `inbound-vip|<port>|tcp/<subset>|<host>`
 * (`http` the same). The cluster without a subset has the chain's name.
 */
export function waypointVipClusterName(
  kind: WaypointChainKind,
  host: string,
  port: number,
  subset?: string,
): string {
  return inboundVipSubsetKey(subset ? `${kind}/${subset}` : kind, host, port);
}

/** pkg/config/protocol/instance.go Instance values (the ones a waypoint tells apart). */
export type IstioProtocol =
  | 'TCP'
  | 'UDP'
  | 'GRPC'
  | 'GRPC-Web'
  | 'HTTP'
  | 'HTTP_PROXY'
  | 'HTTP2'
  | 'HTTPS'
  | 'TLS'
  | 'Mongo'
  | 'Redis'
  | 'MySQL'
  | 'UnsupportedProtocol';

const PARSED: Readonly<Record<string, IstioProtocol>> = {
  tcp: 'TCP',
  udp: 'UDP',
  grpc: 'GRPC',
  'grpc-web': 'GRPC-Web',
  http: 'HTTP',
  http_proxy: 'HTTP_PROXY',
  http2: 'HTTP2',
  https: 'HTTPS',
  tls: 'TLS',
  mongo: 'Mongo',
  redis: 'Redis',
  mysql: 'MySQL',
};

/** protocol.Parse (instance.go:68): case-insensitive; anything unknown is `UnsupportedProtocol` (sniffed). */
export function parseIstioProtocol(value: string): IstioProtocol {
  return PARSED[value.toLowerCase()] ?? 'UnsupportedProtocol';
}

/** A ServiceEntry port's Istio protocol (serviceentry/conversion.go:57): `protocol.Parse(port.protocol)`. */
export function serviceEntryPortProtocol(protocol: string | undefined): IstioProtocol {
  return parseIstioProtocol(protocol ?? '');
}

/** kube/conversion.go wellKnownPorts: SMTP, DNS, MySQL, MongoDB are TCP when the name says nothing. */
const WELL_KNOWN_TCP_PORTS: ReadonlySet<number> = new Set([25, 53, 3306, 27017]);

/** A Kubernetes Service port's Istio protocol: kube.ConvertProtocol (pkg/config/kube/conversion.go:48). */
export function servicePortProtocol(
  port: number,
  name: string,
  kubeProtocol: string | undefined,
  appProtocol?: string,
): IstioProtocol {
  if (kubeProtocol === 'UDP') return 'UDP';
  const value = appProtocol ?? name;
  if (appProtocol === 'kubernetes.io/h2c') return 'HTTP2';
  if (appProtocol === 'kubernetes.io/ws') return 'HTTP';
  if (appProtocol === 'kubernetes.io/wss') return 'HTTPS';
  if (value.toLowerCase().startsWith('grpc-web')) return 'GRPC-Web';
  const dash = value.indexOf('-');
  const parsed = parseIstioProtocol(dash >= 0 ? value.slice(0, dash) : value);
  return parsed === 'UnsupportedProtocol' && WELL_KNOWN_TCP_PORTS.has(port) ? 'TCP' : parsed;
}

const HTTP_LIKE: ReadonlySet<IstioProtocol> = new Set(['HTTP', 'HTTP2', 'HTTP_PROXY', 'GRPC', 'GRPC-Web']);

/**
 * The chains (and the VIP cluster kinds) istiod builds for a port of this protocol (buildWaypointInternal,
 * buildWaypointInboundVIP): sniffed → tcp and http; HTTP-like → http; UDP → none; every other (TCP, TLS, HTTPS,
 * Mongo, Redis, MySQL) → tcp. A filter replacing `tcp_proxy` needs `tcp` in the list.
 */
export function waypointChainKinds(protocol: IstioProtocol): readonly WaypointChainKind[] {
  if (protocol === 'UDP') return [];
  if (protocol === 'UnsupportedProtocol') return ['tcp', 'http'];
  return HTTP_LIKE.has(protocol) ? ['http'] : ['tcp'];
}

/** The Istio protocol istiod gives a port (kube.ConvertProtocol for a Service, protocol.Parse for a ServiceEntry). */
export function istioProtocolOf(
  se: { readonly kind: 'Service' | 'ServiceEntry' },
  port: { readonly number: number; readonly name: string; readonly protocol?: string | undefined },
): IstioProtocol {
  return se.kind === 'Service'
    ? servicePortProtocol(port.number, port.name, port.protocol)
    : serviceEntryPortProtocol(port.protocol);
}
