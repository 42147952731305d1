/**
 * RedisProxy configs (envoy.extensions.filters.network.redis_proxy.v3.RedisProxy, proto3 JSON):
 * https://www.envoyproxy.io/docs/envoy/latest/api-v3/extensions/filters/network/redis_proxy/v3/redis_proxy.proto
 * Outbound from the bound RedisService (Aeraki internal/plugin/redis/outbound.go, with D10, D11, D13), or the
 * default that sends everything to the service's own cluster; inbound always to `inbound|<port>||`.
 */
import type { ServicePort } from '../../model/objects.ts';
import type { RedisContext } from './context.ts';
import { inboundClusterName } from '../../model/names.ts';
import type { RedisFault, RedisMirror, RedisRoute, RedisService, RedisSettings } from './types.ts';
import { inline, type Credentials } from './auth.ts';
import { destinationCluster, OUTBOUND_CLUSTERS, type RedisClusterOf } from './ports.ts';

type Json = Record<string, unknown>;

export const DEFAULT_OP_TIMEOUT = '60s';
export const INBOUND_OP_TIMEOUT = '3600s';

/** `percent` as a RuntimeFractionalPercent default (numerator left out when 0, as proto3 JSON does). */
function fraction(percent: number): Json {
  const numerator = Math.trunc(percent * 10000);
  return { defaultValue: { ...(numerator !== 0 ? { numerator } : {}), denominator: 'MILLION' } };
}

/** Proxy that sends every command to `cluster`. */
export function catchAllProxy(statPrefix: string, cluster: string, opTimeout: string): Json {
  return { statPrefix, settings: { opTimeout }, prefixRoutes: { catchAllRoute: { cluster } } };
}

export function inboundProxy(port: number): Json {
  const cluster = inboundClusterName(port);
  return catchAllProxy(cluster, cluster, INBOUND_OP_TIMEOUT);
}

function settingsOf(s: RedisSettings | undefined): Json {
  return {
    opTimeout: s?.opTimeout ?? DEFAULT_OP_TIMEOUT,
    ...(s?.enableCommandStats ? { enableCommandStats: true } : {}),
    ...(s?.enableHashtagging ? { enableHashtagging: true } : {}),
    ...(s?.enableRedirection ? { enableRedirection: true } : {}),
    ...(s?.maxBufferSizeBeforeFlush ? { maxBufferSizeBeforeFlush: s.maxBufferSizeBeforeFlush } : {}),
    ...(s?.bufferFlushTimeout !== undefined ? { bufferFlushTimeout: s.bufferFlushTimeout } : {}),
    ...(s?.maxUpstreamUnknownConnections !== undefined
      ? { maxUpstreamUnknownConnections: s.maxUpstreamUnknownConnections }
      : {}),
    ...(s?.readPolicy !== undefined && s.readPolicy !== 'MASTER' ? { readPolicy: s.readPolicy } : {}),
  };
}

function mirrorPolicy(
  ctx: RedisContext,
  m: RedisMirror,
  listener: ServicePort,
  clusterOf: RedisClusterOf,
): Json {
  return {
    cluster: destinationCluster(ctx, m.route, listener, clusterOf),
    runtimeFraction: fraction(m.percentage ?? 100),
    ...(m.excludeReadCommands ? { excludeReadCommands: true } : {}),
  };
}

function route(ctx: RedisContext, r: RedisRoute, listener: ServicePort, clusterOf: RedisClusterOf): Json {
  const mirrors = r.mirror.map((m) => mirrorPolicy(ctx, m, listener, clusterOf));
  return {
    ...(r.match && r.match.prefix !== '' ? { prefix: r.match.prefix } : {}),
    ...(r.match?.removePrefix ? { removePrefix: true } : {}),
    cluster: destinationCluster(ctx, r.route, listener, clusterOf),
    ...(mirrors.length > 0 ? { requestMirrorPolicy: mirrors } : {}),
  };
}

function prefixRoutes(
  ctx: RedisContext,
  rs: RedisService,
  host: string,
  listener: ServicePort,
  clusterOf: RedisClusterOf,
): Json {
  const routes: Json[] = [];
  let catchAll: Json | undefined;
  if (rs.spec.redis.length === 0) catchAll = { cluster: clusterOf(listener.number, host) };
  for (const r of rs.spec.redis) {
    if (r.match) routes.push(route(ctx, r, listener, clusterOf));
    else catchAll = route(ctx, r, listener, clusterOf);
  }
  return {
    ...(rs.spec.settings?.caseInsensitive ? { caseInsensitive: true } : {}),
    ...(routes.length > 0 ? { routes } : {}),
    ...(catchAll ? { catchAllRoute: catchAll } : {}),
  };
}

function fault(f: RedisFault): Json {
  return {
    ...(f.type !== 'DELAY' ? { faultType: f.type } : {}),
    faultEnabled: fraction(f.percentage),
    ...(f.delay !== undefined ? { delay: f.delay } : {}),
    ...(f.commands.length > 0 ? { commands: f.commands } : {}),
  };
}

/**
 * The outbound proxy of `listener` for the RedisService `rs` found by `host`, with its resolved auth; `clusterOf`
 * names the clusters (default: the sidecar's outbound ones; a waypoint's differ).
 */
export function serviceProxy(
  ctx: RedisContext,
  rs: RedisService,
  host: string,
  listener: ServicePort,
  auth: Credentials,
  clusterOf: RedisClusterOf = OUTBOUND_CLUSTERS,
): Json {
  const password = inline(auth.password);
  const username = inline(auth.username);
  const faults = rs.spec.faults.map(fault);
  return {
    statPrefix: clusterOf(listener.number, host),
    settings: settingsOf(rs.spec.settings),
    prefixRoutes: prefixRoutes(ctx, rs, host, listener, clusterOf),
    ...(password ? { downstreamAuthPassword: password } : {}),
    ...(username ? { downstreamAuthUsername: username } : {}),
    ...(faults.length > 0 ? { faults } : {}),
  };
}
