/**
 * The chain of a `tcp-redis` port on our own waypoint (Generator.generateOwnWaypoint): redis_proxy as the Istio
 * waypoint's (waypoint.ts): the bound RedisService's prefix routes, mirrors, faults and downstream auth from its
 * Secret (waypoint-proxy.ts), to the waypoint's clusters `outbound|<port>||<host>` (ctx.clusterOf, for
 * the host's own port and for every route and mirror destination); without a RedisService everything goes to the
 * host's cluster. redis_proxy is terminal and its routes are inline (it has no RDS).
 *
 * A RedisDestination shapes the upstream cluster on a sidecar (cluster.ts). On this waypoint the translation builds
 * the clusters (plain EDS to pod IPs), and a generator only names them: the connection pool, Redis Cluster mode and
 * upstream auth are not applied, and a RedisDestination that binds the service gets a warning saying which fields.
 */
import type { OwnWaypointChain, OwnWaypointContext } from '../../model/generator.ts';
import { ok, refOf, warning, type ConfigIssue, type Result } from '../../model/result.ts';
import { typedFilter, waypointOf } from '../sdk/own-waypoint.ts';
import { REDIS_PROXY_FILTER, REDIS_PROXY_TYPE } from './constants.ts';
import type { RedisContext } from './context.ts';
import type { RedisDestination } from './types.ts';
import { waypointProxy } from './waypoint-proxy.ts';

/** The RedisDestination fields the waypoint's cluster does not carry, by path. */
function destinationFields(rd: RedisDestination): string[] {
  const pool = rd.spec.trafficPolicy?.connectionPool;
  const fields: string[] = [];
  if (pool?.tcp) fields.push('connectionPool.tcp');
  if (pool?.redis?.mode === 'CLUSTER') fields.push('connectionPool.redis.mode');
  if (pool?.redis?.auth) fields.push('connectionPool.redis.auth');
  if ((pool?.redis?.discoveryEndpoints.length ?? 0) > 0)
    fields.push('connectionPool.redis.discoveryEndpoints');
  return fields;
}

function destinationWarning(ctx: OwnWaypointContext, rd: RedisDestination): ConfigIssue | undefined {
  const fields = destinationFields(rd);
  if (fields.length === 0) return undefined;
  const message =
    `not applied on waypoint ${waypointOf(ctx)}: its cluster ${ctx.clusterOf()} is built by the waypoint ` +
    `(EDS to the pods, plain TCP) without ${fields.join(', ')}`;
  return warning(refOf(rd), 'spec.trafficPolicy', message);
}

export function generateRedisOwnWaypoint(
  ctx: OwnWaypointContext<RedisContext>,
): Result<OwnWaypointChain | undefined> {
  const proxy = waypointProxy(ctx);
  if (!proxy.ok) return proxy;
  const { redis, config, issues } = proxy.value;
  const rd = redis.destination && destinationWarning(ctx, redis.destination);
  if (rd) issues.push(rd);
  return ok({ filters: [typedFilter(REDIS_PROXY_FILTER, REDIS_PROXY_TYPE, config)] }, issues);
}
