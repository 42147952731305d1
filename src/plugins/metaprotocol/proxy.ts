/**
 * MetaProtocolProxy configs (type.googleapis.com/aeraki.meta_protocol_proxy.v1alpha.MetaProtocolProxy) in
 * proto3 JSON (Aeraki internal/plugin/metaprotocol/metaprotocolproxy.go, route.go). Keys follow the proto field
 * order: statPrefix, rds | routeConfig, applicationProtocol, codec, metaProtocolFilters, accessLog, tracing.
 */
import {
  AERAKI_XDS_CLUSTER,
  META_PROTOCOL_PROXY_FILTER,
  META_PROTOCOL_PROXY_TYPE,
} from '../../model/constants.ts';
import { inboundClusterName, outboundClusterName, routeConfigName } from '../../model/names.ts';
import type { MeshConfig } from '../../model/objects.ts';
import type { NetworkFilter } from '../sdk/patches.ts';
import type { MetaProtocolFilter } from './filters.ts';
import { deepFreeze } from '../../util/json.ts';
import { configAccessLog, configTracing } from './mesh.ts';

/** What every MetaProtocolProxy of one port shares. */
export interface ProxyBasics {
  readonly applicationProtocol: string;
  readonly codec: string;
  readonly mesh: MeshConfig;
}

/**
 * RDS over gRPC from the controller, via the `aeraki-xds` cluster the sidecar bootstrap defines. One frozen
 * object shared by every outbound proxy config.
 */
const RDS_CONFIG_SOURCE: Readonly<Record<string, unknown>> = deepFreeze({
  resourceApiVersion: 'V3',
  apiConfigSource: {
    apiType: 'GRPC',
    transportApiVersion: 'V3',
    grpcServices: [{ envoyGrpc: { clusterName: AERAKI_XDS_CLUSTER } }],
  },
});

/** The config with its routes (`{rds}` or `{routeConfig}`), then the mesh's access log and tracing when set. */
function proxyConfig(
  statPrefix: string,
  routes: { readonly rds: unknown } | { readonly routeConfig: unknown },
  basics: ProxyBasics,
  filters: readonly MetaProtocolFilter[],
): Record<string, unknown> {
  const config: Record<string, unknown> = {
    statPrefix,
    ...routes,
    applicationProtocol: basics.applicationProtocol,
    codec: { name: basics.codec },
    metaProtocolFilters: filters,
  };
  configAccessLog(config, basics.mesh);
  configTracing(config, basics.mesh);
  return config;
}

/** Outbound (sidecar and gateway): routes over RDS, resource `<host>_<port>`, stats as `outbound|<port>||<host>`. */
export function outboundProxy(
  host: string,
  port: number,
  basics: ProxyBasics,
  filters: readonly MetaProtocolFilter[],
): Record<string, unknown> {
  const rds = { configSource: RDS_CONFIG_SOURCE, routeConfigName: routeConfigName(host, port) };
  return proxyConfig(outboundClusterName(port, undefined, host), { rds }, basics, filters);
}

/** Inbound: one static route to the local `inbound|<port>||` cluster. */
export function inboundProxy(
  port: number,
  basics: ProxyBasics,
  filters: readonly MetaProtocolFilter[],
): Record<string, unknown> {
  const cluster = inboundClusterName(port);
  const routeConfig = { name: cluster, routes: [{ route: { cluster } }] };
  return proxyConfig(cluster, { routeConfig }, basics, filters);
}

/** The network filter (for patch-builders) carrying a MetaProtocolProxy config. */
export function metaProtocolNetworkFilter(config: Record<string, unknown>): NetworkFilter {
  return { filterName: META_PROTOCOL_PROXY_FILTER, typeUrl: META_PROTOCOL_PROXY_TYPE, config };
}
