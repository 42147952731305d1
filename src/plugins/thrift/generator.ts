/**
 * Sidecar filters of one `tcp-thrift` port (Aeraki internal/plugin/thrift/generator.go, thriftproxy.go), with this
 * port's own number (D4): outbound thrift_proxy filters (one per address) routing by the VirtualService (D9), and
 * an inbound one (when the ServiceEntry selects workloads, D2) routing every method to `inbound|<port>||`.
 * Transport and protocol are AUTO_TRANSPORT / AUTO_PROTOCOL, the zero enum values, hence absent.
 */
import { THRIFT_PROXY_FILTER, THRIFT_PROXY_TYPE } from '../../model/constants.ts';
import type { FilterDraft, SidecarContext, WaypointContext, WaypointFilter } from '../../model/generator.ts';
import { inboundClusterName, outboundClusterName } from '../../model/names.ts';
import { fail, issue, ok, refOf, type Result } from '../../model/result.ts';
import { inboundDraft, outboundDrafts, type NetworkFilter } from '../sdk/patches.ts';
import { defaultRoute, outboundRoutes, type ThriftRouteConfiguration } from './route.ts';

export const THRIFT_ROUTER_FILTER = 'envoy.filters.thrift.router';

export type ThriftProxyConfig = {
  readonly statPrefix: string;
  readonly routeConfig: ThriftRouteConfiguration;
  readonly thriftFilters: readonly { readonly name: string }[];
};

function networkFilter(routeConfig: ThriftRouteConfiguration): NetworkFilter {
  const config: ThriftProxyConfig = {
    statPrefix: routeConfig.name,
    routeConfig,
    thriftFilters: [{ name: THRIFT_ROUTER_FILTER }],
  };
  return { filterName: THRIFT_PROXY_FILTER, typeUrl: THRIFT_PROXY_TYPE, config };
}

export function generateThriftSidecar(ctx: SidecarContext): Result<readonly FilterDraft[]> {
  const se = ctx.serviceEntry;
  const host = se.spec.hosts[0];
  if (host === undefined) {
    return fail([issue(refOf(se), 'spec.hosts', 'has no host; a thrift service needs hosts[0]')]);
  }
  const port = ctx.port.number;

  const routes = outboundRoutes(ctx.virtualService, host, port);
  const outbound = networkFilter({ name: outboundClusterName(port, undefined, host), routes: routes.routes });
  const inbound = (workloadPort: number) => {
    const inboundCluster = inboundClusterName(workloadPort);
    return networkFilter({ name: inboundCluster, routes: [defaultRoute(inboundCluster)] });
  };

  const inboundFilter = inboundDraft(ctx, inbound);
  const issues = [...routes.issues, ...inboundFilter.issues];
  if (!inboundFilter.ok) return fail(issues);
  const drafts: FilterDraft[] = outboundDrafts(se, ctx.port, outbound);
  if (inboundFilter.value) drafts.push(inboundFilter.value);
  return ok(drafts, issues);
}

/**
 * The thrift_proxy of one chain of an Istio waypoint: the outbound routes of the VirtualService to the waypoint's
 * VIP clusters of the host (`inbound-vip|<port>|tcp[/<subset>]|<host>`).
 */
export function generateThriftWaypoint(ctx: WaypointContext): Result<WaypointFilter> {
  const routes = outboundRoutes(ctx.virtualService, ctx.host, ctx.port.number, (s) => ctx.clusterOf(s));
  return ok(networkFilter({ name: ctx.clusterOf(), routes: routes.routes }), routes.issues);
}
