/**
 * The cluster that replaces Istio's `outbound|<port>||<hosts[0]>` (Aeraki internal/plugin/redis/outboundcluster.go,
 * util.go:142-172, with D13 for tcpKeepalive), as envoy.config.cluster.v3.Cluster in proto3 JSON:
 * https://www.envoyproxy.io/docs/envoy/latest/api-v3/config/cluster/v3/cluster.proto
 * Without a RedisDestination connection pool: EDS over ADS, MAGLEV, 10 s connect timeout, unlimited circuit
 * breaker. With one: the pool's settings, Redis Cluster mode, upstream auth, Istio service metadata, the TCP
 * metadata exchange and a raw-buffer transport socket (mTLS to Redis is off, istio#30022).
 */
import type { ServiceEntry, ServicePort } from '../../model/objects.ts';
import type { RedisConnectionPool, RedisDestination, TcpKeepalive } from './types.ts';
import { inline, type Credentials } from './auth.ts';
import { REDIS_PROXY_FILTER } from './constants.ts';

type Json = Record<string, unknown>;

const UNLIMITED = 4294967295;
const PROTOCOL_OPTIONS_TYPE =
  'type.googleapis.com/envoy.extensions.filters.network.redis_proxy.v3.RedisProtocolOptions';
const METADATA_EXCHANGE_TYPE = 'type.googleapis.com/envoy.tcp.metadataexchange.config.MetadataExchange';

export function defaultCluster(name: string): Json {
  return {
    name,
    type: 'EDS',
    edsClusterConfig: { edsConfig: { ads: {}, resourceApiVersion: 'V3' } },
    connectTimeout: '10s',
    lbPolicy: 'MAGLEV',
    circuitBreakers: { thresholds: [threshold(UNLIMITED)] },
  };
}

function threshold(maxConnections: number): Json {
  return {
    maxConnections,
    maxPendingRequests: UNLIMITED,
    maxRequests: UNLIMITED,
    maxRetries: UNLIMITED,
  };
}

/** Whole seconds of a proto3 JSON duration (`"600s"`, `"0.500s"`). */
function wholeSeconds(duration: string): number {
  return Math.floor(Number(duration.slice(0, -1)));
}

/** D13: as Istio writes a DestinationRule's tcpKeepalive. */
function keepalive(k: TcpKeepalive): Json {
  return {
    ...(k.probes !== undefined && k.probes > 0 ? { keepaliveProbes: k.probes } : {}),
    ...(k.time !== undefined ? { keepaliveTime: wholeSeconds(k.time) } : {}),
    ...(k.interval !== undefined ? { keepaliveInterval: wholeSeconds(k.interval) } : {}),
  };
}

function clusterMode(name: string, pool: RedisConnectionPool, rd: RedisDestination, port: number): Json {
  const seeds = pool.redis?.discoveryEndpoints ?? [];
  const endpoints = seeds.length > 0 ? seeds : [{ address: rd.spec.host }];
  return {
    clusterType: { name: 'envoy.clusters.redis' },
    lbPolicy: 'CLUSTER_PROVIDED',
    loadAssignment: {
      clusterName: name,
      endpoints: [
        {
          lbEndpoints: endpoints.map((e) => ({
            endpoint: { address: { socketAddress: { address: e.address, portValue: e.port ?? port } } },
          })),
        },
      ],
    },
  };
}

/** The replacement cluster `name` of `se`'s `port` for the RedisDestination `rd` and its resolved upstream auth. */
export function destinationCluster(
  name: string,
  se: ServiceEntry,
  port: ServicePort,
  rd: RedisDestination | undefined,
  auth: Credentials,
): Json {
  const base = defaultCluster(name);
  const pool = rd?.spec.trafficPolicy?.connectionPool;
  if (!rd || !pool) return base;
  const { type: _type, edsClusterConfig: _eds, ...withoutEds } = base;
  const cluster: Json =
    pool.redis?.mode === 'CLUSTER' ? { ...withoutEds, ...clusterMode(name, pool, rd, port.number) } : base;
  const password = inline(auth.password);
  const username = inline(auth.username);
  if (password || username) {
    cluster['typedExtensionProtocolOptions'] = {
      [REDIS_PROXY_FILTER]: {
        '@type': PROTOCOL_OPTIONS_TYPE,
        ...(password ? { authPassword: password } : {}),
        ...(username ? { authUsername: username } : {}),
      },
    };
  }
  const tcp = pool.tcp;
  if (tcp?.connectTimeout !== undefined) cluster['connectTimeout'] = tcp.connectTimeout;
  if (tcp?.maxConnections !== undefined && tcp.maxConnections > 0) {
    cluster['circuitBreakers'] = { thresholds: [threshold(tcp.maxConnections)] };
  }
  if (tcp?.tcpKeepalive) cluster['upstreamConnectionOptions'] = { tcpKeepalive: keepalive(tcp.tcpKeepalive) };
  const service = {
    host: rd.spec.host,
    name: se.metadata.name.replace(/^synthetic-/, ''),
    namespace: se.metadata.namespace,
  };
  return {
    ...cluster,
    metadata: { filterMetadata: { istio: { default_original_port: port.number, services: [service] } } },
    filters: [
      {
        name: 'istio.metadata_exchange',
        typedConfig: { '@type': METADATA_EXCHANGE_TYPE, protocol: 'istio-peer-exchange' },
      },
    ],
    transportSocketMatches: [
      { name: 'tlsMode-disabled', transportSocket: { name: 'envoy.transport_sockets.raw_buffer' } },
    ],
  };
}
