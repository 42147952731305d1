/**
 * The chain of a MetaProtocol port on our own waypoint (Generator.generateOwnWaypoint), by what the waypoint runs
 * (ctx.image.kind):
 * - a MetaProtocol proxy image, any codec: meta_protocol_proxy as the sidecars' outbound proxy (proxy.ts
 *   outboundProxy: stats, codec, mesh access log and tracing) with the filters of the Istio waypoint's (waypoint.ts:
 *   the MetaRouter's rate limits, metadata exchange, stats, router), its routes over RDS from the waypoint's ADS
 *   stream (`rds.config_source: {ads: {}}`, name `ctx.routeName`): the RDS server's own RouteConfiguration of that
 *   name, served by the ADS side. Every cluster those routes name (each destination and mirror of the MetaRouter's
 *   routes, the default route's, a global rate limit's service) is named through ctx.clusterOf, so the waypoint has
 *   it. The filter goes as a TypedStruct (the ADS server does not encode the MetaProtocol proxy's API).
 * - stock Envoy with the Dubbo codec: dubbo_proxy (own-waypoint-dubbo.ts).
 * - stock Envoy with any other codec: no chain, and a warning naming the service, the port, the waypoint and its
 *   image.
 */
import {
  BUILTIN_CODECS,
  META_PROTOCOL_PROXY_FILTER,
  META_PROTOCOL_PROXY_TYPE,
} from '../../model/constants.ts';
import type { OwnWaypointChain, OwnWaypointContext } from '../../model/generator.ts';
import type { MetaRouter } from '../../model/objects.ts';
import { ok, refOf, warning, type ConfigIssue, type Result } from '../../model/result.ts';
import {
  adsConfigSource,
  ownWaypointImageWarning,
  typedStructFilter,
  waypointOf,
} from '../sdk/own-waypoint.ts';
import { commonFilters, inboundFilters } from './filters.ts';
import { protocolBasics } from './generator.ts';
import { dubboProxyChain, destinationCluster } from './own-waypoint-dubbo.ts';
import { outboundProxy, type ProxyBasics } from './proxy.ts';

/** `outbound|<port>|<subset>|<host>` read back into its parts; undefined for any other name. */
function outboundParts(cluster: string): { port: number; subset: string; host: string } | undefined {
  const parts = cluster.split('|');
  const [direction, port, subset, host] = parts;
  if (parts.length !== 4 || direction !== 'outbound' || !host || !/^[1-9]\d{0,4}$/.test(port ?? ''))
    return undefined;
  return { port: Number(port), subset: subset ?? '', host };
}

/**
 * Names through ctx.clusterOf the clusters the RDS routes of this port and its filters reach: the default route's,
 * every destination and mirror of the MetaRouter's routes, the global rate limit's service; a rate-limit service
 * that is not such a cluster gets a warning (the waypoint has no other clusters).
 */
function nameClusters(ctx: OwnWaypointContext, mr: MetaRouter | undefined, issues: ConfigIssue[]): void {
  ctx.clusterOf();
  for (const route of mr?.spec.routes ?? []) {
    for (const d of route.route) destinationCluster(ctx, d.destination);
    if (route.mirror) destinationCluster(ctx, route.mirror);
  }
  const service = mr?.spec.globalRateLimit?.rateLimitService;
  if (mr === undefined || service === undefined) return;
  const parts = outboundParts(service);
  if (parts) ctx.clusterOf(parts.subset || undefined, parts.host, parts.port);
  else {
    const message = `names no cluster waypoint ${waypointOf(ctx)} has: it builds only "outbound|<port>|<subset>|<host>" clusters of services`;
    issues.push(warning(refOf(mr), 'spec.globalRateLimit.rateLimitService', message));
  }
}

function metaProtocolChain(ctx: OwnWaypointContext, basics: ProxyBasics): Result<OwnWaypointChain> {
  const filters = inboundFilters(ctx.metaRouter, commonFilters(ctx.host));
  if (!filters.ok) return filters;
  const issues: ConfigIssue[] = [...filters.issues];
  nameClusters(ctx, ctx.metaRouter, issues);
  const proxy = outboundProxy(ctx.host, ctx.port.number, basics, filters.value);
  const value = { ...proxy, rds: { config_source: adsConfigSource(), route_config_name: ctx.routeName } };
  return ok(
    { filters: [typedStructFilter(META_PROTOCOL_PROXY_FILTER, META_PROTOCOL_PROXY_TYPE, value)] },
    issues,
  );
}

export function generateMetaProtocolOwnWaypoint(
  ctx: OwnWaypointContext,
): Result<OwnWaypointChain | undefined> {
  const ref = refOf(ctx.serviceEntry);
  const basics = protocolBasics(ctx.port.name, ctx, ref, `spec.ports[${ctx.portIndex}].name`);
  if (!basics.ok) return basics;
  if (ctx.image.kind === 'metaprotocol') return metaProtocolChain(ctx, basics.value);
  if (basics.value.codec.name === BUILTIN_CODECS['dubbo']) return dubboProxyChain(ctx);
  return ok(undefined, [
    ownWaypointImageWarning(ctx, META_PROTOCOL_PROXY_FILTER, 'a MetaProtocol proxy image'),
  ]);
}
