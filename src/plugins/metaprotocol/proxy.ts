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
import type { NetworkFilter } from '../../envoyfilter/patch-builders.ts';
import type { MetaProtocolFilter } from './filters.ts';
import { accessLog, tracing } from './mesh.ts';

/** What every MetaProtocolProxy of one port shares. */
export interface ProxyBasics {
  readonly applicationProtocol: string;
  readonly codec: string;
  readonly mesh: MeshConfig;
}

/** RDS over gRPC from the controller, via the `aeraki-xds` cluster the sidecar bootstrap defines. */
function rdsConfigSource(): Record<string, unknown> {
  return {
    resourceApiVersion: 'V3',
    apiConfigSource: {
      apiType: 'GRPC',
      transportApiVersion: 'V3',
      grpcServices: [{ envoyGrpc: { clusterName: AERAKI_XDS_CLUSTER } }],
    },
  };
}

function withCommon(
  head: Record<string, unknown>,
  basics: ProxyBasics,
  filters: readonly MetaProtocolFilter[],
): Record<string, unknown> {
  const log = accessLog(basics.mesh);
  const trace = tracing(basics.mesh);
  return {
    ...head,
    ...(basics.applicationProtocol ? { applicationProtocol: basics.applicationProtocol } : {}),
    codec: basics.codec ? { name: basics.codec } : {},
    metaProtocolFilters: filters,
    ...(log ? { accessLog: log } : {}),
    ...(trace ? { tracing: trace } : {}),
  };
}

/** Outbound (sidecar and gateway): routes over RDS, resource `<host>_<port>`, stats as `outbound|<port>||<host>`. */
export function outboundProxy(
  host: string,
  port: number,
  basics: ProxyBasics,
  filters: readonly MetaProtocolFilter[],
): Record<string, unknown> {
  const head = {
    statPrefix: outboundClusterName(port, undefined, host),
    rds: { configSource: rdsConfigSource(), routeConfigName: routeConfigName(host, port) },
  };
  return withCommon(head, basics, filters);
}

/** Inbound: one static route to the local `inbound|<port>||` cluster. */
export function inboundProxy(
  port: number,
  basics: ProxyBasics,
  filters: readonly MetaProtocolFilter[],
): Record<string, unknown> {
  const cluster = inboundClusterName(port);
  const head = {
    statPrefix: cluster,
    routeConfig: { name: cluster, routes: [{ route: { cluster } }] },
  };
  return withCommon(head, basics, filters);
}

/** The network filter (for patch-builders) carrying a MetaProtocolProxy config. */
export function metaProtocolNetworkFilter(config: Record<string, unknown>): NetworkFilter {
  return { filterName: META_PROTOCOL_PROXY_FILTER, typeUrl: META_PROTOCOL_PROXY_TYPE, config };
}
