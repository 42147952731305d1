/**
 * The redis_proxy of one chain of an Istio waypoint: the outbound proxy of the bound RedisService (routes, mirrors,
 * faults, downstream auth from its Secret), as the sidecar's, to the waypoint's clusters: the VIP cluster
 * `inbound-vip|<port>|tcp|<host>` for a host of this service, the outbound cluster the waypoint also builds for
 * another (WaypointContext.clusterOf); without a RedisService, everything to the host's VIP cluster.
 *
 * A RedisDestination is not applied: on a sidecar it replaces Istio's outbound cluster, but a waypoint's VIP clusters
 * go through no cluster patch (istio/istio release-1.30 @b9a2bbd2 pilot/pkg/networking/core/cluster.go:346-364,
 * docs/ambient-istio.md section 4.2), so one that applies gets a warning.
 */
import type { WaypointContext, WaypointFilter } from '../../model/generator.ts';
import { fail, issue, ok, refOf, warning, type ConfigIssue, type Result } from '../../model/result.ts';
import { resolveAuth } from './auth.ts';
import { REDIS_PROXY_FILTER, REDIS_PROXY_TYPE } from './constants.ts';
import type { RedisContext } from './context.ts';
import type { RedisClusterOf } from './ports.ts';
import { catchAllProxy, DEFAULT_OP_TIMEOUT, serviceProxy } from './proxy.ts';

export function generateRedisWaypoint(ctx: WaypointContext<RedisContext>): Result<WaypointFilter> {
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
  const rd = redis.destination;
  if (rd) {
    const { namespace, name } = ctx.waypoint;
    const message = `not applied on waypoint ${namespace}/${name}: its cluster ${own} takes no cluster patch`;
    issues.push(warning(refOf(rd), 'spec.trafficPolicy', message));
  }
  return ok({ filterName: REDIS_PROXY_FILTER, typeUrl: REDIS_PROXY_TYPE, config }, issues);
}
