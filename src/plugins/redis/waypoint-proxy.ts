/**
 * The redis_proxy config both waypoints carry (waypoint.ts for Istio's, own-waypoint.ts for ours): the outbound
 * proxy of the bound RedisService (routes, mirrors, faults, downstream auth from its Secret; proxy.ts serviceProxy,
 * auth.ts) to the waypoint's clusters (ctx.clusterOf, for the host's own port and for every route and mirror
 * destination); without a RedisService, everything to the host's cluster. Each caller words its own warning for a
 * RedisDestination, which neither waypoint applies.
 */
import type { OwnWaypointContext, WaypointContext } from '../../model/generator.ts';
import { fail, issue, ok, refOf, type ConfigIssue, type Result } from '../../model/result.ts';
import { resolveAuth } from './auth.ts';
import type { RedisContext } from './context.ts';
import type { RedisClusterOf } from './ports.ts';
import { catchAllProxy, DEFAULT_OP_TIMEOUT, serviceProxy } from './proxy.ts';

/** What the proxy reads of either waypoint's context. */
type RedisWaypointContext = Pick<
  WaypointContext<RedisContext> | OwnWaypointContext<RedisContext>,
  'serviceEntry' | 'host' | 'port' | 'clusterOf' | 'extension'
>;

/** The proxy and the issues of its RedisService; fails without a host or when the downstream auth fails. */
export function waypointProxy(
  ctx: RedisWaypointContext,
): Result<{ redis: RedisContext; config: Record<string, unknown>; issues: ConfigIssue[] }> {
  const redis = ctx.extension;
  if (redis === undefined) {
    return fail([
      issue(refOf(ctx.serviceEntry), 'spec.hosts', 'has no host; a redis service needs hosts[0]'),
    ]);
  }
  const clusterOf: RedisClusterOf = (port, host) => ctx.clusterOf(undefined, host, port);
  const issues: ConfigIssue[] = [];
  let config: Record<string, unknown> | undefined;
  const rs = redis.service;
  if (rs) {
    const auth = resolveAuth(redis, rs.spec.settings?.auth, refOf(rs), 'spec.settings.auth');
    if (!auth.ok) return fail(auth.issues);
    issues.push(...auth.issues);
    if (auth.value) config = serviceProxy(redis, rs, ctx.host, ctx.port, auth.value, clusterOf);
  }
  const own = ctx.clusterOf();
  config ??= catchAllProxy(own, own, DEFAULT_OP_TIMEOUT);
  return ok({ redis, config, issues });
}
