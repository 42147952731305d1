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
import { accessLogOf, tracingOf } from './mesh.ts';

/**
 * What the MetaProtocolProxies of one port (outbound and inbound) have in common, built once per port and shared
 * by both configs (generation output is never mutated).
 */
export interface ProxyBasics {
  readonly applicationProtocol: string;
  readonly codec: { readonly name: string };
  /** From the mesh config: absent when the mesh has no access log file, or disables tracing. */
  readonly accessLog: readonly Record<string, unknown>[] | undefined;
  readonly tracing: Readonly<Record<string, unknown>> | undefined;
}

/** The parts of ProxyBasics that come from the application protocol, its codec and the mesh config. */
export function proxyBasics(applicationProtocol: string, codec: string, mesh: MeshConfig): ProxyBasics {
  return {
    applicationProtocol,
    codec: { name: codec },
    accessLog: accessLogOf(mesh),
    tracing: tracingOf(mesh),
  };
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

/** Adds the access log and tracing to a proxy config when the mesh sets them (Aeraki configAccessLog, configTracing). */
function withMeshParts(config: Record<string, unknown>, basics: ProxyBasics): Record<string, unknown> {
  if (basics.accessLog) config['accessLog'] = basics.accessLog;
  if (basics.tracing) config['tracing'] = basics.tracing;
  return config;
}

/** Outbound (sidecar and gateway): routes over RDS, resource `<host>_<port>`, stats as `outbound|<port>||<host>`. */
export function outboundProxy(
  host: string,
  port: number,
  basics: ProxyBasics,
  filters: readonly MetaProtocolFilter[],
): Record<string, unknown> {
  return withMeshParts(
    {
      statPrefix: outboundClusterName(port, undefined, host),
      rds: { configSource: RDS_CONFIG_SOURCE, routeConfigName: routeConfigName(host, port) },
      applicationProtocol: basics.applicationProtocol,
      codec: basics.codec,
      metaProtocolFilters: filters,
    },
    basics,
  );
}

/** Inbound: one static route to the local `inbound|<port>||` cluster. */
export function inboundProxy(
  port: number,
  basics: ProxyBasics,
  filters: readonly MetaProtocolFilter[],
): Record<string, unknown> {
  return staticProxy(inboundClusterName(port), basics, filters);
}

/** One static route to `cluster`, which also names the stats and the route configuration. */
export function staticProxy(
  cluster: string,
  basics: ProxyBasics,
  filters: readonly MetaProtocolFilter[],
): Record<string, unknown> {
  return withMeshParts(
    {
      statPrefix: cluster,
      routeConfig: { name: cluster, routes: [{ route: { cluster } }] },
      applicationProtocol: basics.applicationProtocol,
      codec: basics.codec,
      metaProtocolFilters: filters,
    },
    basics,
  );
}

/** The network filter (for patch-builders) carrying a MetaProtocolProxy config. */
export function metaProtocolNetworkFilter(config: Record<string, unknown>): NetworkFilter {
  return { filterName: META_PROTOCOL_PROXY_FILTER, typeUrl: META_PROTOCOL_PROXY_TYPE, config };
}
