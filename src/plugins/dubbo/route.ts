/**
 * Dubbo route configuration (envoy.extensions.filters.network.dubbo_proxy.v3.RouteConfiguration, proto3 JSON) from
 * the resolved VirtualService (Aeraki internal/plugin/dubbo/route.go).
 *
 * One route per `http` entry, in order; only `match[0]` of an entry is read (as Aeraki does; more
 * matches get a warning, vs-routes.ts). The method matcher comes
 * from `match[0].method` (exact / prefix / safeRegex, match-all `.*` regex when absent); header matchers from
 * `match[0].headers`, sorted by header name (D5). Clusters use the ServiceEntry host and this port's number with the
 * destination subset; destination host and port are not used. One destination gives `cluster`, several give
 * `weightedClusters` with `totalWeight` (the sum).
 *
 * Inputs Envoy cannot take make the whole VirtualService an input error (one issue per problem, on the
 * VirtualService), and the service is then routed as if it had no VirtualService:
 * - an `http` entry without destinations (Envoy requires a cluster; Aeraki indexes `route[0]` and panics);
 * - a split whose weights sum to 0 or overflow uint32 (Envoy requires a positive total);
 * - a header matcher with an empty name (HeaderMatcher.name has min_len 1).
 * Where Istio's meaning is clear and Envoy only lacks the spelling, it is translated instead:
 * - method `prefix: ""` matches every method: written as the match-all regex (StringMatcher.prefix has min_len 1);
 * - a header with no exact/prefix/regex, or `prefix: ""`, means "header present" (Istio): `presentMatch: true`
 *   (Aeraki drops such a header matcher, which silently widens the route).
 * A VirtualService without `http` entries routes like no VirtualService (Aeraki would write no routes at all).
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

export type StringMatcher =
  | { readonly exact: string }
  | { readonly prefix: string }
  | { readonly safeRegex: { readonly googleRe2: Record<string, never>; readonly regex: string } };

export type RouteAction =
  | { readonly cluster: string }
  | {
      readonly weightedClusters: {
        readonly clusters: readonly { readonly name: string; readonly weight: number }[];
        readonly totalWeight: number;
      };
    };

export type DubboRoute = {
  readonly match: {
    readonly method: { readonly name: StringMatcher };
    readonly headers?: readonly HeaderMatcherJson[];
  };
  readonly route: RouteAction;
};

export type DubboRouteConfiguration = {
  readonly name: string;
  readonly interface: string;
  readonly routes: readonly DubboRoute[];
};

const MAX_UINT32 = 4294967295;

function regex(value: string): StringMatcher {
  return { safeRegex: { googleRe2: {}, regex: value } };
}

/** The match-all method matcher Aeraki uses wherever no method is given (dubbo_proxy needs one). A fresh object. */
export function matchAllMethod(): StringMatcher {
  return regex('.*');
}

export function defaultRoute(cluster: string): DubboRoute {
  return { match: { method: { name: matchAllMethod() } }, route: { cluster } };
}

export type OutboundRoutes = SdkOutboundRoutes<DubboRoute>;
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
  return routesFromVirtualService(vs, fallback, `dubbo service ${host}:${port}`, (http, path, problems) => {
    const headers = vsHeaderMatchers(http, `${path}.match[0].headers`, problems);
    const route = routeAction(http, clusterOf, path, problems);
    return {
      match: {
        method: { name: methodMatcher(http.match[0]?.method) },
        ...(headers.length > 0 ? { headers } : {}),
      },
      route,
    };
  });
}

function methodMatcher(m: StringMatch | undefined): StringMatcher {
  if (m?.exact !== undefined) return { exact: m.exact };
  if (m?.prefix !== undefined && m.prefix !== '') return { prefix: m.prefix };
  if (m?.regex !== undefined) return regex(m.regex);
  return matchAllMethod();
}

function routeAction(
  http: HTTPRoute,
  clusterOf: ClusterOf,
  path: string,
  problems: FieldProblem[],
): RouteAction {
  const [first, ...rest] = http.route;
  if (first === undefined) {
    problems.push({ path: `${path}.route`, message: 'has no destination (Envoy needs a cluster per route)' });
    return { cluster: clusterOf(undefined) };
  }
  if (rest.length === 0) return { cluster: clusterOf(first.destination.subset) };
  const clusters = http.route.map((d) => ({
    name: clusterOf(d.destination.subset),
    weight: d.weight ?? 0,
  }));
  const totalWeight = clusters.reduce((sum, c) => sum + c.weight, 0);
  if (totalWeight === 0) {
    problems.push({ path: `${path}.route`, message: 'the weights of the split sum to 0' });
  } else if (totalWeight > MAX_UINT32) {
    problems.push({
      path: `${path}.route`,
      message: `the weights of the split sum to more than ${MAX_UINT32}`,
    });
  }
  return { weightedClusters: { clusters, totalWeight } };
}
