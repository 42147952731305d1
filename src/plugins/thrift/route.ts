/**
 * Thrift route configuration (envoy.extensions.filters.network.thrift_proxy.v3.RouteConfiguration, proto3 JSON)
 * from the resolved VirtualService (Aeraki internal/plugin/thrift/route.go, with D9).
 *
 * One route per `http` entry, in order; only `match[0]` of an entry is read (more matches get a warning). D9: `match[0].method.exact` becomes
 * `match.methodName`; without a method match `methodName` is "" (any method; also for `prefix: ""`, which matches
 * every method). Header matchers come from `match[0].headers`, sorted by name (D5); Envoy evaluates them against
 * Thrift headers, which only header-carrying transports/protocols send (THeader), so such a route never matches
 * plain framed/unframed requests (Aeraki ignores VirtualService headers for Thrift). Clusters use the ServiceEntry
 * host and this port's number with the destination subset; one destination gives `cluster`, several give
 * `weightedClusters` without `totalWeight` (thrift_proxy's own WeightedCluster has none). Destinations of a split
 * with weight 0 (or none) are left out: they receive no traffic, and thrift_proxy rejects weights below 1.
 *
 * Inputs thrift_proxy cannot take make the whole VirtualService an input error (one issue per problem, on the
 * VirtualService), and the service is then routed as if it had no VirtualService:
 * - a `prefix` or `regex` method match (thrift_proxy matches exact method names only; D9);
 * - an `http` entry without destinations, or a split whose weights are all 0;
 * - a header matcher with an empty name.
 * A VirtualService without `http` entries routes like no VirtualService.
 */
import type { HeaderMatcherJson } from '../../model/matchers.ts';
import {
  routesFromVirtualService,
  vsHeaderMatchers,
  type ClusterOf,
  type FieldProblem,
  type OutboundRoutes as SdkOutboundRoutes,
} from '../sdk/vs-routes.ts';
import { outboundClusterName } from '../../model/names.ts';
import type { HTTPRoute, StringMatch, VirtualService } from '../../model/objects.ts';

export type RouteAction =
  | { readonly cluster: string }
  | {
      readonly weightedClusters: {
        readonly clusters: readonly { readonly name: string; readonly weight: number }[];
      };
    };

export type ThriftRoute = {
  readonly match: { readonly methodName: string; readonly headers?: readonly HeaderMatcherJson[] };
  readonly route: RouteAction;
};

export type ThriftRouteConfiguration = {
  readonly name: string;
  readonly routes: readonly ThriftRoute[];
};

type Problem = FieldProblem;

/** `methodName: ""` matches any method. */
export function defaultRoute(cluster: string): ThriftRoute {
  return { match: { methodName: '' }, route: { cluster } };
}

export type OutboundRoutes = SdkOutboundRoutes<ThriftRoute>;
export type { ClusterOf };

/**
 * Routes of the outbound route configuration of `host:port`; `clusterOf` names the clusters (default: the
 * sidecar's `outbound|<port>|<subset>|<host>`; a waypoint names its VIP clusters).
 */
export function outboundRoutes(
  vs: VirtualService | undefined,
  host: string,
  port: number,
  clusterOf: ClusterOf = (subset) => outboundClusterName(port, subset, host),
): OutboundRoutes {
  const fallback = [defaultRoute(clusterOf(undefined))];
  return routesFromVirtualService(vs, fallback, `thrift service ${host}:${port}`, (http, path, problems) => {
    const methodName = methodNameOf(http.match[0]?.method, `${path}.match[0].method`, problems);
    const headers = vsHeaderMatchers(http, `${path}.match[0].headers`, problems);
    const route: ThriftRoute = {
      match: { methodName, ...(headers.length > 0 ? { headers } : {}) },
      route: routeAction(http, clusterOf, path, problems),
    };
    return route;
  });
}

function methodNameOf(m: StringMatch | undefined, path: string, problems: Problem[]): string {
  if (m?.exact !== undefined) return m.exact;
  if (m?.prefix !== undefined && m.prefix !== '') {
    problems.push({
      path,
      message: `prefix "${m.prefix}" cannot be expressed: Envoy thrift_proxy matches exact method names only`,
    });
  } else if (m?.regex !== undefined) {
    problems.push({
      path,
      message: `regex "${m.regex}" cannot be expressed: Envoy thrift_proxy matches exact method names only`,
    });
  }
  return '';
}

function routeAction(http: HTTPRoute, clusterOf: ClusterOf, path: string, problems: Problem[]): RouteAction {
  const [first, ...rest] = http.route;
  if (first === undefined) {
    problems.push({ path: `${path}.route`, message: 'has no destination (Envoy needs a cluster per route)' });
    return { cluster: clusterOf(undefined) };
  }
  if (rest.length === 0) return { cluster: clusterOf(first.destination.subset) };
  const clusters = http.route
    .filter((d) => (d.weight ?? 0) > 0)
    .map((d) => ({ name: clusterOf(d.destination.subset), weight: d.weight ?? 0 }));
  if (clusters.length === 0) {
    problems.push({ path: `${path}.route`, message: 'the weights of the split are all 0' });
  }
  return { weightedClusters: { clusters } };
}
