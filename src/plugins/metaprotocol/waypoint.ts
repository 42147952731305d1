/**
 * The MetaProtocolProxy of one chain of an Istio waypoint, only when the waypoint runs a known MetaProtocol proxy
 * image (WaypointContext.metaProtocolImage: istio-proxy has no meta_protocol_proxy, and a waypoint that rejected its
 * listener would stop every service bound to it); otherwise no filter and a warning naming the service and the
 * waypoint. The proxy has the inbound side's shape (rate limits of the MetaRouter, metadata exchange, stats, router)
 * with one static route to the waypoint's VIP cluster of the host: a waypoint has no `aeraki-xds` cluster to fetch
 * RDS routes from (the bootstrap ConfigMap is the sidecars'), so a MetaRouter's routes are not applied there; a
 * MetaRouter with routes gets a warning.
 */
import { META_PROTOCOL_PROXY_FILTER } from '../../model/constants.ts';
import type { WaypointContext, WaypointFilter } from '../../model/generator.ts';
import { ok, refOf, warning, type Result } from '../../model/result.ts';
import { waypointImageWarning } from '../sdk/waypoint.ts';
import { commonFilters, inboundFilters } from './filters.ts';
import { protocolBasics } from './generator.ts';
import { metaProtocolNetworkFilter, staticProxy } from './proxy.ts';

export function generateMetaProtocolWaypoint(ctx: WaypointContext): Result<WaypointFilter | undefined> {
  if (!ctx.metaProtocolImage) return ok(undefined, [waypointImageWarning(ctx, META_PROTOCOL_PROXY_FILTER)]);
  const se = ctx.serviceEntry;
  const basics = protocolBasics(ctx.port.name, ctx, refOf(se), `spec.ports[${ctx.portIndex}].name`);
  if (!basics.ok) return basics;
  const filters = inboundFilters(ctx.metaRouter, commonFilters(ctx.host));
  if (!filters.ok) return filters;
  const mr = ctx.metaRouter;
  const issues =
    mr !== undefined && mr.spec.routes.length > 0
      ? [
          warning(
            refOf(mr),
            'spec.routes',
            `not applied on waypoint ${ctx.waypoint.namespace}/${ctx.waypoint.name}: every request to ${ctx.host}:${ctx.port.number} through it goes to ${ctx.clusterOf()}`,
          ),
        ]
      : [];
  const proxy = staticProxy(ctx.clusterOf(), basics.value, filters.value);
  return ok(metaProtocolNetworkFilter(proxy), [...filters.issues, ...issues]);
}
