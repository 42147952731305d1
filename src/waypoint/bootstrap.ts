/**
 * The Envoy bootstrap of a waypoint proxy (proto3 JSON of `envoy.config.bootstrap.v3.Bootstrap`, fields from
 * ../shared/protos-2026 `envoy/config/bootstrap/v3/bootstrap.proto` and `config/core/v3/*.proto`, as
 * docs/waypoint-own.md section 4 lays out), passed inline with `--config-yaml` (JSON is YAML):
 *
 * - `node.cluster` = `W.N` (waypointNodeCluster): the Gateway the proxy serves. `node.id` is not in the bootstrap:
 *   the container passes its pod name with `--service-node` (`Node.id` may be set "either in this message or via
 *   :option:`--service-node`", protos-2026 envoy/config/core/v3/base.proto:150-156; Envoy's
 *   docs/root/operations/cli.rst), so one bootstrap, passed with `--config-yaml` alone (no `-c`: cli.rst
 *   "If this flag is missing, --config-yaml is required"), serves every replica.
 * - One static cluster to the controller's xDS address over HTTP/2 (`typed_extension_protocol_options`
 *   `envoy.extensions.upstreams.http.v3.HttpProtocolOptions`) and mTLS, SAN-checked against the controller's
 *   identity. The credential comes from the mounted Secret (`tls.crt`, `tls.key`, `ca.crt`) through SDS from
 *   files: Envoy reloads file-based certificates only when they are delivered by SDS (`TlsCertificate.
 *   watched_directory`, protos-2026 extensions/transport_sockets/tls/v3/common.proto:244-254), and a Secret volume
 *   is updated by a symlink swap in its directory, which `watched_directory` is made for
 *   (config/core/v3/config_source.proto:177-191). The two SDS files (sdsFiles) are static keys of the same Secret.
 * - ADS (`api_type: GRPC`, `transport_api_version: V3`) for LDS and CDS (`{ads: {}, resource_api_version: V3}`);
 *   `AGGREGATED_GRPC` is not-implemented-hide (config_source.proto:67-75).
 * - The admin interface on 127.0.0.1 only (never reachable from outside the pod).
 */
import { isIP } from 'node:net';
import { waypointNodeCluster } from '../model/ambient/own-waypoint.ts';

/** Where the Secret `W-xds` is mounted in the waypoint's container. */
export const XDS_MOUNT = '/etc/aeraki/xds';
/** The SDS files the Secret holds besides the credential (their content: sdsFiles). */
export const SDS_IDENTITY_FILE = 'sds-identity.json';
export const SDS_ROOT_FILE = 'sds-root.json';
export const XDS_CLUSTER = 'aeraki-xds';
/** The SDS secret names the bootstrap refers to. */
const IDENTITY_SECRET = 'waypoint-identity';
const ROOT_SECRET = 'controller-root';
export const ADMIN_PORT = 15000;

const SECRET_TYPE = 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret';
const TLS_TYPE = 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext';
const HTTP_OPTIONS = 'envoy.extensions.upstreams.http.v3.HttpProtocolOptions';

export interface WaypointBootstrapOptions {
  readonly namespace: string;
  readonly name: string;
  /** The controller's xDS server: a DNS name (the controller's Service) or an IP, and its port. */
  readonly xdsHost: string;
  readonly xdsPort: number;
  /**
   * The identity the controller's server certificate must carry: `spiffe://...` is checked as a URI SAN, anything
   * else as a DNS SAN (default: `xdsHost` as a DNS SAN).
   */
  readonly serverIdentity?: string;
}

const file = (name: string) => ({ filename: `${XDS_MOUNT}/${name}` });
const watched = { path: XDS_MOUNT };

function sdsSource(fileName: string): Record<string, unknown> {
  return {
    path_config_source: { path: `${XDS_MOUNT}/${fileName}`, watched_directory: watched },
    resource_api_version: 'V3',
  };
}

/** The SAN matcher of the controller's identity (CertificateValidationContext.match_typed_subject_alt_names). */
function sanMatcher(identity: string): Record<string, unknown> {
  return { san_type: identity.startsWith('spiffe://') ? 'URI' : 'DNS', matcher: { exact: identity } };
}

function xdsCluster(o: WaypointBootstrapOptions): Record<string, unknown> {
  const identity = o.serverIdentity ?? o.xdsHost;
  return {
    name: XDS_CLUSTER,
    type: isIP(o.xdsHost) === 0 ? 'STRICT_DNS' : 'STATIC',
    connect_timeout: '5s',
    load_assignment: {
      cluster_name: XDS_CLUSTER,
      endpoints: [
        {
          lb_endpoints: [
            { endpoint: { address: { socket_address: { address: o.xdsHost, port_value: o.xdsPort } } } },
          ],
        },
      ],
    },
    typed_extension_protocol_options: {
      [HTTP_OPTIONS]: {
        '@type': `type.googleapis.com/${HTTP_OPTIONS}`,
        explicit_http_config: { http2_protocol_options: {} },
      },
    },
    transport_socket: {
      name: 'envoy.transport_sockets.tls',
      typed_config: {
        '@type': TLS_TYPE,
        ...(isIP(o.xdsHost) === 0 ? { sni: o.xdsHost } : {}),
        common_tls_context: {
          tls_certificate_sds_secret_configs: [
            { name: IDENTITY_SECRET, sds_config: sdsSource(SDS_IDENTITY_FILE) },
          ],
          combined_validation_context: {
            default_validation_context: { match_typed_subject_alt_names: [sanMatcher(identity)] },
            validation_context_sds_secret_config: { name: ROOT_SECRET, sds_config: sdsSource(SDS_ROOT_FILE) },
          },
        },
      },
    },
  };
}

/** The bootstrap of Gateway `namespace/name`'s proxies. */
export function waypointBootstrap(o: WaypointBootstrapOptions): Record<string, unknown> {
  const ads = { ads: {}, resource_api_version: 'V3' };
  return {
    node: { cluster: waypointNodeCluster(o.namespace, o.name) },
    static_resources: { clusters: [xdsCluster(o)] },
    dynamic_resources: {
      ads_config: {
        api_type: 'GRPC',
        transport_api_version: 'V3',
        grpc_services: [{ envoy_grpc: { cluster_name: XDS_CLUSTER } }],
      },
      lds_config: ads,
      cds_config: ads,
    },
    admin: { address: { socket_address: { address: '127.0.0.1', port_value: ADMIN_PORT } } },
  };
}

/**
 * The two SDS files (each a `envoy.service.discovery.v3.DiscoveryResponse` in JSON, the format of a
 * `path_config_source`): the waypoint's credential and the root that verifies the controller, both read from the
 * Secret's files and reloaded when the directory's symlink is swapped.
 */
export function sdsFiles(): Record<string, string> {
  const response = (secret: Record<string, unknown>) =>
    JSON.stringify({ resources: [{ '@type': SECRET_TYPE, ...secret }] });
  return {
    [SDS_IDENTITY_FILE]: response({
      name: IDENTITY_SECRET,
      tls_certificate: {
        certificate_chain: file('tls.crt'),
        private_key: file('tls.key'),
        watched_directory: watched,
      },
    }),
    [SDS_ROOT_FILE]: response({
      name: ROOT_SECRET,
      validation_context: { trusted_ca: file('ca.crt'), watched_directory: watched },
    }),
  };
}
