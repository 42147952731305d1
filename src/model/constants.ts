/** Labels, filter names and type URLs shared by generators, the reconciler and the RDS server. */

export const MANAGER_LABEL = 'manager';
export const MANAGER_VALUE = 'Aeraki';
export const MANAGED_LABELS: Readonly<Record<string, string>> = Object.freeze({
  [MANAGER_LABEL]: MANAGER_VALUE,
});

/** Annotation carrying the content hash of the spec the controller wrote (lets unchanged filters cost no write). */
export const CONTENT_HASH_ANNOTATION = 'aeraki.io/content-hash';

/** Field manager of every write to the Kubernetes API. */
export const FIELD_MANAGER = 'aeraki';

/** API group of the Istio kinds read and written. */
export const ISTIO_GROUP = 'networking.istio.io';

export const DEFAULT_ROOT_NAMESPACE = 'istio-system';
export const CLUSTER_DOMAIN = 'cluster.local';

export const TCP_PROXY_FILTER = 'envoy.filters.network.tcp_proxy';
export const TYPED_STRUCT_TYPE = 'type.googleapis.com/udpa.type.v1.TypedStruct';

export const META_PROTOCOL_PROXY_FILTER = 'envoy.filters.network.meta_protocol_proxy';
export const META_PROTOCOL_PROXY_TYPE =
  'type.googleapis.com/aeraki.meta_protocol_proxy.v1alpha.MetaProtocolProxy';
export const DUBBO_PROXY_FILTER = 'envoy.filters.network.dubbo_proxy';
export const DUBBO_PROXY_TYPE =
  'type.googleapis.com/envoy.extensions.filters.network.dubbo_proxy.v3.DubboProxy';
export const THRIFT_PROXY_FILTER = 'envoy.filters.network.thrift_proxy';
export const THRIFT_PROXY_TYPE =
  'type.googleapis.com/envoy.extensions.filters.network.thrift_proxy.v3.ThriftProxy';

/** The cluster MetaProtocol sidecars use to reach this controller's RDS server (defined by the bootstrap override). */
export const AERAKI_XDS_CLUSTER = 'aeraki-xds';

export const ROUTE_CONFIGURATION_TYPE = 'type.googleapis.com/envoy.config.route.v3.RouteConfiguration';

/** Built-in MetaProtocol codecs; more come from ApplicationProtocol objects. */
export const BUILTIN_CODECS: Readonly<Record<string, string>> = Object.freeze({
  dubbo: 'aeraki.meta_protocol.codec.dubbo',
  thrift: 'aeraki.meta_protocol.codec.thrift',
});

/**
 * Annotation on every generated object naming the config object it was generated from (`ServiceEntry/<ns>/<name>`
 * or `Gateway/<ns>/<name>`), so the reconciler can keep the output of a source whose generation failed.
 */
export const SOURCE_ANNOTATION = 'aeraki.io/source';
