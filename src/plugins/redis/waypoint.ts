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
import { ok, refOf, warning, type Result } from '../../model/result.ts';
import { REDIS_PROXY_FILTER, REDIS_PROXY_TYPE } from './constants.ts';
import type { RedisContext } from './context.ts';
import { waypointProxy } from './waypoint-proxy.ts';

export function generateRedisWaypoint(ctx: WaypointContext<RedisContext>): Result<WaypointFilter> {
  const proxy = waypointProxy(ctx);
  if (!proxy.ok) return proxy;
  const { redis, config, issues } = proxy.value;
  const rd = redis.destination;
  if (rd) {
    const { namespace, name } = ctx.waypoint;
    const message = `not applied on waypoint ${namespace}/${name}: its cluster ${ctx.clusterOf()} takes no cluster patch`;
    issues.push(warning(refOf(rd), 'spec.trafficPolicy', message));
  }
  return ok({ filterName: REDIS_PROXY_FILTER, typeUrl: REDIS_PROXY_TYPE, config }, issues);
}
