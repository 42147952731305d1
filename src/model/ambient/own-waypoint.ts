/**
 * Our own RPC waypoint (issue 39; docs/waypoint-own.md): a Gateway of class `aeraki-waypoint` runs stock upstream
 * Envoy, ztunnel hands it plain TCP behind a PROXY v2 header (binding `PROXY/15088`), and the controller programs it
 * over its own ADS. The names and constants both sides (the Gateway controller and the xDS translation) share.
 */
import { imageRepository, isKnownImage } from '../proxy-images.ts';

/** The GatewayClass we ship and accept (manifests/waypoint). */
export const OWN_WAYPOINT_CLASS = 'aeraki-waypoint';
/** `spec.controllerName` of that class. */
export const OWN_WAYPOINT_CONTROLLER = 'aeraki.io/waypoint-controller';
/** The binding on the class: ztunnel prepends a PROXY header and sends to 15088 (waypoints.go makeInboundBinding). */
export const OWN_WAYPOINT_BINDING = 'PROXY/15088';
/** The one listener a Gateway of our class has: `{name: proxy, port: 15088, protocol: istio.io/PROXY}`. */
export const OWN_WAYPOINT_LISTENER_NAME = 'proxy';
export const OWN_WAYPOINT_PORT = 15088;
/** The Envoy listener's name (kgateway's waypoint translator calls it the same). */
export const OWN_WAYPOINT_ENVOY_LISTENER = 'proxy_protocol_inbound';
/** The Gateway annotation naming the image its Deployment runs instead of `--waypoint-image`. */
export const OWN_WAYPOINT_IMAGE_ANNOTATION = 'aeraki.io/proxy-image';
/**
 * The default `--waypoint-image`: the Envoy release whose API is `../shared/protos-2026` (tag v1.38.3's API; v1.38.4
 * is the first release containing istio-proxy 1.30's pin, same API: protos-2026/SOURCES.md "Envoy release").
 */
export const DEFAULT_WAYPOINT_IMAGE = 'docker.io/envoyproxy/envoy:v1.38.4';
/** The Secret holding the waypoint's xDS client credential: `<gateway>-xds` with tls.crt, tls.key, ca.crt. */
export function waypointSecretName(gateway: string): string {
  return `${gateway}-xds`;
}
/** The Envoy node cluster a waypoint proxy announces (`node.cluster`): `<gateway>.<namespace>`. */
export function waypointNodeCluster(namespace: string, name: string): string {
  return `${name}.${namespace}`;
}
/** `<namespace>/<name>` of a Gateway: the key of its snapshot. */
export type GatewayKey = string;
export function gatewayKey(namespace: string, name: string): GatewayKey {
  return `${namespace}/${name}`;
}

/**
 * What an image can run (docs/waypoint-own.md section 3): stock Envoy has dubbo_proxy, thrift_proxy, redis_proxy,
 * zookeeper_proxy; Envoy's contrib build adds kafka_broker; a MetaProtocol proxy image adds meta_protocol_proxy
 * (and is built on Envoy, so it has the rest too).
 */
export type WaypointImageKind = 'envoy' | 'envoy-contrib' | 'metaprotocol';

export interface WaypointImage {
  readonly ref: string;
  readonly kind: WaypointImageKind;
}

/** Envoy's contrib images: `envoyproxy/envoy-contrib:<tag>`, or `envoyproxy/envoy:contrib-<tag>`. */
function isContribImage(image: string): boolean {
  const repo = imageRepository(image);
  if (repo === 'docker.io/envoyproxy/envoy-contrib') return true;
  if (repo !== 'docker.io/envoyproxy/envoy') return false;
  const tag = image.slice(image.lastIndexOf(':') + 1);
  return image.lastIndexOf(':') > image.lastIndexOf('/') && tag.startsWith('contrib-');
}

/** The kind of `image`, given the images known to carry the MetaProtocol proxy (model/proxy-images.ts). */
export function waypointImageOf(image: string, metaProtocolImages: readonly string[]): WaypointImage {
  if (isKnownImage(image, metaProtocolImages)) return { ref: image, kind: 'metaprotocol' };
  return { ref: image, kind: isContribImage(image) ? 'envoy-contrib' : 'envoy' };
}
