/**
 * The sidecar bootstrap override for MetaProtocol proxies (spec/aeraki-core.md 9.6, spec/aeraki-periphery.md
 * 5.2): ConfigMap `aeraki-bootstrap-config`, key `custom_bootstrap.json`, defining the static cluster
 * `aeraki-xds` through which a proxy reaches this controller's RDS server. Pods opt in with the annotation
 * `sidecar.istio.io/bootstrapOverride: aeraki-bootstrap-config`; istio-agent merges it into its bootstrap.
 *
 * Fixed against Aeraki: the document is built as an object and serialised (Aeraki spliced a port string
 * containing a colon into a JSON template, so `15010` without the colon produced invalid JSON); address and
 * port are two separate, validated values. HTTP/2 and `max_requests_per_connection` are set through
 * `typed_extension_protocol_options` (HttpProtocolOptions), as istio-agent's own `xds-grpc` cluster does; the
 * Cluster-level fields Aeraki used are deprecated
 * (https://www.envoyproxy.io/docs/envoy/latest/api-v3/config/cluster/v3/cluster.proto).
 */
import { CONTENT_HASH_ANNOTATION, MANAGED_LABELS, AERAKI_XDS_CLUSTER } from '../model/constants.ts';
import { fail, issue, ok, type ConfigIssue, type Result } from '../model/result.ts';
import { contentHash, type JsonObject } from '../util/json.ts';
import { isDns1123Subdomain } from '../util/names.ts';
import { isIP } from 'node:net';

export const BOOTSTRAP_CONFIGMAP_NAME = 'aeraki-bootstrap-config';
export const BOOTSTRAP_KEY = 'custom_bootstrap.json';
/** istio-agent's SDS cluster and the secret names it serves (workload certificate and mesh root). */
export const SDS_CLUSTER = 'sds-grpc';
export const SDS_CERT_SECRET = 'default';
export const SDS_ROOT_SECRET = 'ROOTCA';

/** Where MetaProtocol proxies reach the RDS server: the controller's Service name (or an IP) and the port. */
export interface BootstrapTarget {
  /** DNS name (e.g. `aeraki.istio-system`) or IP address, without a port. */
  readonly address: string;
  readonly port: number;
  /**
   * The SPIFFE ID the controller's certificate must carry (`--cert-provider istiod`); without it the proxy checks
   * only that the certificate chains to the mesh root.
   */
  readonly serverIdentity?: string;
}

export interface BootstrapConfigMap {
  readonly apiVersion: 'v1';
  readonly kind: 'ConfigMap';
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly labels: Readonly<Record<string, string>>;
    readonly annotations: Readonly<Record<string, string>>;
  };
  readonly data: Readonly<Record<string, string>>;
}

const TARGET_REF = { kind: 'BootstrapTarget', namespace: '', name: AERAKI_XDS_CLUSTER };

/** Problems with the address/port (empty when valid). */
export function validateBootstrapTarget(target: BootstrapTarget): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const a = target.address;
  if (!(isIP(a) !== 0 || isDns1123Subdomain(a.toLowerCase()))) {
    issues.push(
      issue(
        TARGET_REF,
        'address',
        `${JSON.stringify(a)} is not a DNS name or IP address (give the port separately)`,
      ),
    );
  }
  if (!Number.isInteger(target.port) || target.port < 1 || target.port > 65535) {
    issues.push(issue(TARGET_REF, 'port', `${String(target.port)} is not a port number (1-65535)`));
  }
  return issues;
}

function sdsSecret(name: string): JsonObject {
  return {
    name,
    sds_config: {
      api_config_source: {
        api_type: 'GRPC',
        grpc_services: [{ envoy_grpc: { cluster_name: SDS_CLUSTER } }],
        set_node_on_first_message_only: true,
        transport_api_version: 'V3',
      },
      initial_fetch_timeout: '0s',
      resource_api_version: 'V3',
    },
  };
}

/**
 * The mesh root from SDS; with a server identity, combined with a URI SAN match so only a certificate issued to
 * that identity is accepted
 * (https://www.envoyproxy.io/docs/envoy/latest/api-v3/extensions/transport_sockets/tls/v3/common.proto).
 */
function validation(serverIdentity: string | undefined): JsonObject {
  if (!serverIdentity) return { validation_context_sds_secret_config: sdsSecret(SDS_ROOT_SECRET) };
  return {
    combined_validation_context: {
      default_validation_context: {
        match_typed_subject_alt_names: [{ san_type: 'URI', matcher: { exact: serverIdentity } }],
      },
      validation_context_sds_secret_config: sdsSecret(SDS_ROOT_SECRET),
    },
  };
}

const THRESHOLD = { max_connections: 100000, max_pending_requests: 100000, max_requests: 100000 };

/** The Envoy bootstrap override (v3 JSON) for a valid target. */
export function buildBootstrap(target: BootstrapTarget): JsonObject {
  return {
    static_resources: {
      clusters: [
        {
          name: AERAKI_XDS_CLUSTER,
          type: 'STRICT_DNS',
          connect_timeout: '1s',
          circuit_breakers: { thresholds: [{ ...THRESHOLD }, { priority: 'HIGH', ...THRESHOLD }] },
          typed_extension_protocol_options: {
            'envoy.extensions.upstreams.http.v3.HttpProtocolOptions': {
              '@type': 'type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
              common_http_protocol_options: { max_requests_per_connection: 1 },
              explicit_http_config: { http2_protocol_options: {} },
            },
          },
          upstream_connection_options: { tcp_keepalive: { keepalive_time: 300 } },
          load_assignment: {
            cluster_name: AERAKI_XDS_CLUSTER,
            endpoints: [
              {
                lb_endpoints: [
                  {
                    endpoint: {
                      address: { socket_address: { address: target.address, port_value: target.port } },
                    },
                  },
                ],
              },
            ],
          },
          transport_socket: {
            name: 'envoy.transport_sockets.tls',
            typed_config: {
              '@type': 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext',
              common_tls_context: {
                tls_certificate_sds_secret_configs: [sdsSecret(SDS_CERT_SECRET)],
                ...validation(target.serverIdentity),
              },
            },
          },
        },
      ],
    },
  };
}

/** The ConfigMap for one namespace, labelled `manager: Aeraki`, annotated with the hash of its data. */
export function buildBootstrapConfigMap(
  namespace: string,
  target: BootstrapTarget,
): Result<BootstrapConfigMap> {
  const issues = validateBootstrapTarget(target);
  if (issues.length > 0) return fail(issues);
  const data = { [BOOTSTRAP_KEY]: `${JSON.stringify(buildBootstrap(target), null, 2)}\n` };
  return ok({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: BOOTSTRAP_CONFIGMAP_NAME,
      namespace,
      labels: { ...MANAGED_LABELS },
      annotations: { [CONTENT_HASH_ANNOTATION]: contentHash(data) },
    },
    data,
  });
}
