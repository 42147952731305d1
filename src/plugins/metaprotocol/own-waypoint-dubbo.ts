/**
 * A `tcp-metaprotocol-dubbo` port on our own waypoint running stock Envoy (`envoy` or `envoy-contrib` image): Envoy's
 * dubbo_proxy instead of the MetaProtocol proxy, with its routes over ADS (`drds`, a MultipleRouteConfiguration named
 * `ctx.routeName`) from the host's MetaRouter, as far as dubbo_proxy can express them.
 *
 * The MetaProtocol Dubbo codec's attributes are `interface`, `method` and every attachment of the call
 * (aeraki-mesh/meta-protocol-proxy src/application_protocols/dubbo/dubbo_codec.cc `toMetadata`, @830594ac).
 * dubbo_proxy matches `interface` on a route configuration (exact, `*` any non-empty, `x*` / `*x` for longer names),
 * the method with a StringMatcher and the attachments as headers, and tries the route configurations in order,
 * going on to the next one when no route of a matching configuration matches (envoyproxy/envoy
 * source/extensions/filters/network/dubbo_proxy/router/route_matcher.cc `MultiRouteMatcher::route`,
 * `InterfaceMatcher`). So each MetaRouter route becomes a route configuration of its own, in order, and the first
 * matching MetaRouter route still wins; as with the RDS routes, nothing follows the MetaRouter's routes.
 *
 * What dubbo_proxy cannot do is reported on the MetaRouter, naming the field and the waypoint: a regex on
 * `interface` (the route is left out: requests it would take go on to the next routes), mirrors, request and
 * response mutation, local and global rate limits, and the DestinationRule's consistent-hash headers (not applied).
 */
import { DUBBO_PROXY_FILTER, DUBBO_PROXY_TYPE } from '../../model/constants.ts';
import type { OwnWaypointChain, OwnWaypointContext } from '../../model/generator.ts';
import type { ProtoJson } from '../../model/ambient/xds.ts';
import type {
  Destination,
  DestinationRule,
  MetaRoute,
  MetaRouter,
  StringMatch,
} from '../../model/objects.ts';
import { sortedKeys } from '../../util/json.ts';
import { ok, refOf, warning, type ConfigIssue, type Result } from '../../model/result.ts';
import { dubboProxyFilter, dubboRouteResource, waypointOf } from '../sdk/own-waypoint.ts';

type Attribute = StringMatch | null | undefined;

const ANY_INTERFACE = '*';

/** The cluster of a MetaRouter destination: its host, subset and port (default: this port), as the RDS routes. */
export function destinationCluster(ctx: OwnWaypointContext, d: Destination): string {
  return ctx.clusterOf(d.subset, d.host, d.port?.number ? d.port.number : ctx.port.number);
}

// A `null` match or the regex `*` asks only that the attribute be there (model/matchers.ts attributeMatchers).

/**
 * The `interface` values of the route configurations that match `m`, or undefined when dubbo_proxy cannot match it.
 * A prefix needs two: dubbo_proxy's `x*` takes only names longer than `x`.
 */
function interfacesOf(m: Attribute): string[] | undefined {
  if (m === undefined || m === null || m.regex === '*') return [ANY_INTERFACE];
  if (m.exact !== undefined) return m.exact.startsWith('*') || m.exact.endsWith('*') ? undefined : [m.exact];
  if (m.prefix !== undefined) return m.prefix === '' ? [ANY_INTERFACE] : [m.prefix, `${m.prefix}*`];
  if (m.regex !== undefined) return undefined;
  return [ANY_INTERFACE];
}

function regex(value: string): ProtoJson {
  return { safe_regex: { regex: value } };
}

/** The method's StringMatcher (dubbo_proxy needs one: `.*` when the route does not match on the method). */
function methodOf(m: Attribute): ProtoJson {
  if (m === undefined) return regex('.*');
  if (m === null || m.regex === '*') return regex('.+');
  if (m.exact !== undefined) return { exact: m.exact };
  if (m.prefix !== undefined) return m.prefix === '' ? regex('.*') : { prefix: m.prefix };
  if (m.regex !== undefined) return regex(m.regex);
  return regex('.*');
}

/** A header matcher on an attachment, or undefined for a match that sets no condition. */
function headerOf(name: string, m: Attribute): ProtoJson | undefined {
  if (m === undefined) return undefined;
  if (m === null || m.regex === '*' || m.prefix === '') return { name, present_match: true };
  if (m.exact !== undefined) return { name, string_match: { exact: m.exact } };
  if (m.prefix !== undefined) return { name, string_match: { prefix: m.prefix } };
  if (m.regex !== undefined) return { name, string_match: regex(m.regex) };
  return undefined;
}

/** Where a MetaRouter is read by dubbo_proxy: the waypoint, its image and the port. */
function onStockEnvoy(ctx: OwnWaypointContext): string {
  return `on waypoint ${waypointOf(ctx)}, whose image ${ctx.image.ref} routes ${ctx.host}:${ctx.port.number} with dubbo_proxy`;
}

function routeAction(ctx: OwnWaypointContext, route: MetaRoute): ProtoJson | undefined {
  const [only, ...more] = route.route;
  if (only === undefined) return undefined;
  if (more.length === 0) return { cluster: destinationCluster(ctx, only.destination) };
  const clusters = route.route
    .filter((d) => (d.weight ?? 0) > 0)
    .map((d) => ({ name: destinationCluster(ctx, d.destination), weight: d.weight ?? 0 }));
  return clusters.length > 0 ? { weighted_clusters: { clusters } } : undefined;
}

/** The route configurations of MetaRouter route `i`, pushing to `issues` what they leave out. */
function routeConfigs(
  ctx: OwnWaypointContext,
  mr: MetaRouter,
  route: MetaRoute,
  i: number,
  issues: ConfigIssue[],
): ProtoJson[] {
  const where = onStockEnvoy(ctx);
  const path = `spec.routes[${i}]`;
  const attributes = route.match?.attributes ?? {};
  const interfaces = interfacesOf(attributes['interface']);
  const action = interfaces && routeAction(ctx, route);
  if (interfaces === undefined || action === undefined) {
    const why =
      interfaces === undefined
        ? 'dubbo_proxy matches "interface" exactly or by prefix only (no regex, no name starting or ending in "*")'
        : 'no destination has a weight';
    issues.push(
      warning(
        refOf(mr),
        interfaces === undefined ? `${path}.match.attributes.interface` : `${path}.route`,
        `route left out ${where}: ${why}`,
      ),
    );
    return [];
  }
  for (const field of ['mirror', 'requestMutation', 'responseMutation'] as const) {
    const value = route[field];
    if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    issues.push(warning(refOf(mr), `${path}.${field}`, `not applied ${where}`));
  }
  const headers = sortedKeys(attributes)
    .filter((name) => name !== 'interface' && name !== 'method')
    .flatMap((name) => headerOf(name, attributes[name]) ?? []);
  const match = {
    method: { name: methodOf(attributes['method']) },
    ...(headers.length > 0 ? { headers } : {}),
  };
  const name = route.name || `${ctx.routeName}-${i}`;
  return interfaces.map((iface) => ({ name, interface: iface, routes: [{ match, route: action }] }));
}

/** The paths of the DestinationRule's consistent-hash headers (the RDS routes' hash policies: xds-rds/routes.ts). */
function hashPaths(dr: DestinationRule): string[] {
  const field = 'loadBalancer.consistentHash.httpHeaderName';
  const paths = dr.spec.trafficPolicy?.loadBalancer?.consistentHash?.httpHeaderName
    ? [`spec.trafficPolicy.${field}`]
    : [];
  dr.spec.subsets.forEach((s, i) => {
    if (s.trafficPolicy?.loadBalancer?.consistentHash?.httpHeaderName)
      paths.push(`spec.subsets[${i}].trafficPolicy.${field}`);
  });
  return paths;
}

/** dubbo_proxy and its route resource for the MetaRouter of the host (none: every call to the host's cluster). */
export function dubboProxyChain(ctx: OwnWaypointContext): Result<OwnWaypointChain> {
  const mr = ctx.metaRouter;
  const issues: ConfigIssue[] = [];
  const configs: ProtoJson[] = [];
  for (const [i, route] of (mr?.spec.routes ?? []).entries()) {
    if (mr) configs.push(...routeConfigs(ctx, mr, route, i, issues));
  }
  if (mr === undefined || mr.spec.routes.length === 0) {
    const match = { method: { name: regex('.*') } };
    configs.push({
      name: ctx.routeName,
      interface: ANY_INTERFACE,
      routes: [{ match, route: { cluster: ctx.clusterOf() } }],
    });
  }
  for (const field of ['localRateLimit', 'globalRateLimit'] as const) {
    if (mr?.spec[field] === undefined) continue;
    const message = `not applied ${onStockEnvoy(ctx)}, which has no rate limit (a MetaProtocol proxy image has)`;
    issues.push(warning(refOf(mr), `spec.${field}`, message));
  }
  const dr = ctx.destinationRule;
  const hashNote = `not applied ${onStockEnvoy(ctx)}, which hashes on no header`;
  if (dr) for (const path of hashPaths(dr)) issues.push(warning(refOf(dr), path, hashNote));
  const proxy = dubboProxyFilter(DUBBO_PROXY_FILTER, DUBBO_PROXY_TYPE, ctx.clusterOf(), ctx.routeName);
  return ok({ filters: [proxy], routes: [dubboRouteResource(ctx.routeName, configs)] }, issues);
}
