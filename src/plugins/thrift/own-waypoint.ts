/**
 * The chain of a `tcp-thrift` port on our own waypoint (Generator.generateOwnWaypoint): thrift_proxy with its routes
 * over ADS (`trds`: the thrift_proxy RouteConfiguration named `ctx.routeName`, the sidecars' outbound routes from the
 * host's VirtualService, route.ts, to the waypoint's clusters `ctx.clusterOf(subset)`). The router carries its typed
 * config: stock Envoy finds thrift filters by that type (sdk/own-waypoint.ts).
 */
import { THRIFT_PROXY_FILTER, THRIFT_PROXY_TYPE } from '../../model/constants.ts';
import { THRIFT_ROUTE_TYPE } from '../../model/ambient/xds.ts';
import type { OwnWaypointChain, OwnWaypointContext } from '../../model/generator.ts';
import { ok, type Result } from '../../model/result.ts';
import { adsConfigSource, routeResource, typedFilter } from '../sdk/own-waypoint.ts';
import { THRIFT_ROUTER_FILTER } from './generator.ts';
import { outboundRoutes } from './route.ts';

export const THRIFT_ROUTER_TYPE =
  'type.googleapis.com/envoy.extensions.filters.network.thrift_proxy.router.v3.Router';

export function generateThriftOwnWaypoint(ctx: OwnWaypointContext): Result<OwnWaypointChain | undefined> {
  const routes = outboundRoutes(ctx.virtualService, ctx.host, ctx.port.number, (s) => ctx.clusterOf(s));
  const proxy = typedFilter(THRIFT_PROXY_FILTER, THRIFT_PROXY_TYPE, {
    stat_prefix: ctx.clusterOf(),
    trds: { config_source: adsConfigSource(), route_config_name: ctx.routeName },
    thrift_filters: [{ name: THRIFT_ROUTER_FILTER, typed_config: { '@type': THRIFT_ROUTER_TYPE } }],
  });
  const route = routeResource(THRIFT_ROUTE_TYPE, ctx.routeName, {
    name: ctx.routeName,
    routes: routes.routes,
  });
  return ok({ filters: [proxy], routes: [route] }, routes.issues);
}
