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
import { accessLog, tracing } from './mesh.ts';

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

interface MeshParts {
  readonly accessLog: Record<string, unknown>[] | undefined;
  readonly tracing: Record<string, unknown> | undefined;
}

/**
 * The access log and tracing blocks depend on the mesh config alone: built once per (immutable) MeshConfig and
 * shared, read-only, by every proxy config (generation output is never mutated).
 */
const meshParts = new WeakMap<MeshConfig, MeshParts>();

function meshPartsOf(mesh: MeshConfig): MeshParts {
  let parts = meshParts.get(mesh);
  if (parts === undefined) {
    parts = { accessLog: accessLog(mesh), tracing: tracing(mesh) };
    meshParts.set(mesh, parts);
  }
  return parts;
}

/**
 * `{name: codec}` per codec name, frozen and shared (codecs are few: the built-ins and one per
 * ApplicationProtocol). Bounded: cleared if it ever holds more than MAX_CODECS names.
 */
const codecs = new Map<string, Readonly<Record<string, unknown>>>();
const MAX_CODECS = 1024;
const NO_CODEC: Readonly<Record<string, unknown>> = Object.freeze({});

function codecOf(name: string): Readonly<Record<string, unknown>> {
  if (!name) return NO_CODEC;
  let codec = codecs.get(name);
  if (codec === undefined) {
    if (codecs.size >= MAX_CODECS) codecs.clear();
    codec = Object.freeze({ name });
    codecs.set(name, codec);
  }
  return codec;
}

/**
 * The config as one object literal per combination of the optional mesh parts, keys in the proto field order
 * (statPrefix, rds | routeConfig, applicationProtocol, codec, metaProtocolFilters, accessLog, tracing): a literal
 * keeps every field in the object itself, where adding fields to a smaller one would give each of the two
 * configs of every service a second, out-of-object, property store.
 */
function proxyConfig(
  statPrefix: string,
  routeKind: 'rds' | 'routeConfig',
  route: unknown,
  basics: ProxyBasics,
  filters: readonly MetaProtocolFilter[],
): Record<string, unknown> {
  const { accessLog: log, tracing: trace } = meshPartsOf(basics.mesh);
  const applicationProtocol = basics.applicationProtocol;
  const codec = codecOf(basics.codec);
  const metaProtocolFilters = filters;
  if (!applicationProtocol) {
    // Not reached by the MetaProtocol generator (an application protocol is required), kept for completeness.
    const config: Record<string, unknown> = { statPrefix, [routeKind]: route, codec, metaProtocolFilters };
    if (log) config['accessLog'] = log;
    if (trace) config['tracing'] = trace;
    return config;
  }
  if (routeKind === 'rds') {
    const rds = route;
    if (log && trace) {
      return {
        statPrefix,
        rds,
        applicationProtocol,
        codec,
        metaProtocolFilters,
        accessLog: log,
        tracing: trace,
      };
    }
    if (log) return { statPrefix, rds, applicationProtocol, codec, metaProtocolFilters, accessLog: log };
    if (trace) return { statPrefix, rds, applicationProtocol, codec, metaProtocolFilters, tracing: trace };
    return { statPrefix, rds, applicationProtocol, codec, metaProtocolFilters };
  }
  const routeConfig = route;
  if (log && trace) {
    return {
      statPrefix,
      routeConfig,
      applicationProtocol,
      codec,
      metaProtocolFilters,
      accessLog: log,
      tracing: trace,
    };
  }
  if (log)
    return { statPrefix, routeConfig, applicationProtocol, codec, metaProtocolFilters, accessLog: log };
  if (trace)
    return { statPrefix, routeConfig, applicationProtocol, codec, metaProtocolFilters, tracing: trace };
  return { statPrefix, routeConfig, applicationProtocol, codec, metaProtocolFilters };
}

/** Outbound (sidecar and gateway): routes over RDS, resource `<host>_<port>`, stats as `outbound|<port>||<host>`. */
export function outboundProxy(
  host: string,
  port: number,
  basics: ProxyBasics,
  filters: readonly MetaProtocolFilter[],
): Record<string, unknown> {
  const rds = { configSource: RDS_CONFIG_SOURCE, routeConfigName: routeConfigName(host, port) };
  return proxyConfig(outboundClusterName(port, undefined, host), 'rds', rds, basics, filters);
}

/**
 * The static route config of an inbound proxy: one route to the local `inbound|<port>||` cluster. It depends on
 * the port alone: one frozen object per port number, shared by every service on that port.
 */
const inboundRoutes = new Map<number, { readonly cluster: string; readonly routeConfig: unknown }>();

function inboundRouteOf(port: number): { readonly cluster: string; readonly routeConfig: unknown } {
  let r = inboundRoutes.get(port);
  if (r === undefined) {
    const cluster = inboundClusterName(port);
    r = { cluster, routeConfig: deepFreeze({ name: cluster, routes: [{ route: { cluster } }] }) };
    inboundRoutes.set(port, r); // at most 65,536 entries: one per port number
  }
  return r;
}

/** Inbound: one static route to the local `inbound|<port>||` cluster. */
export function inboundProxy(
  port: number,
  basics: ProxyBasics,
  filters: readonly MetaProtocolFilter[],
): Record<string, unknown> {
  const { cluster, routeConfig } = inboundRouteOf(port);
  return proxyConfig(cluster, 'routeConfig', routeConfig, basics, filters);
}

/** The network filter (for patch-builders) carrying a MetaProtocolProxy config. */
export function metaProtocolNetworkFilter(config: Record<string, unknown>): NetworkFilter {
  return { filterName: META_PROTOCOL_PROXY_FILTER, typeUrl: META_PROTOCOL_PROXY_TYPE, config };
}
