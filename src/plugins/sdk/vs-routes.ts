/**
 * Routes of the native proxies (dubbo_proxy, thrift_proxy) from the `http` entries of a VirtualService, shared by
 * their plugins: all or nothing, with every problem reported on the VirtualService.
 */
import { istioHeaderMatchers, type HeaderMatcherJson } from '../../model/matchers.ts';
import type { HTTPRoute, VirtualService } from '../../model/objects.ts';
import { issue, refOf, warning, type ConfigIssue } from '../../model/result.ts';

/** The cluster of a destination subset of the service (undefined: the service itself). */
export type ClusterOf = (subset: string | undefined) => string;

/** A native proxy's routes for one service port, from its VirtualService (routesFromVirtualService). */
export interface OutboundRoutes<R> {
  readonly routes: readonly R[];
  /**
   * Problems of the VirtualService: when any is an error, `routes` is the default route (the VS was ignored);
   * warnings (matches after `match[0]`, which are not read) leave the VirtualService in use.
   */
  readonly issues: readonly ConfigIssue[];
}

/** Something a proxy cannot express in one field of a VirtualService. */
export interface FieldProblem {
  readonly path: string;
  readonly message: string;
}

/**
 * Routes from the `http` entries of a VirtualService, all or nothing (dubbo_proxy, thrift_proxy): `build` turns
 * entry `i` (field path `spec.http[i]`) into a route and records what the proxy cannot express. Any problem makes
 * the whole VirtualService an input error (one issue per problem, on the VirtualService) and `fallback` is used,
 * as if there were no VirtualService; so is a missing VirtualService or one without `http` entries.
 * Only `match[0]` of an entry is read (the proxies take one match per route): when the VirtualService is used,
 * an entry with more matches gets a warning at `spec.http[i].match[1]`.
 */
export function routesFromVirtualService<R>(
  vs: VirtualService | undefined,
  fallback: readonly R[],
  service: string,
  build: (http: HTTPRoute, path: string, problems: FieldProblem[]) => R,
): OutboundRoutes<R> {
  if (vs === undefined || vs.spec.http.length === 0) return { routes: fallback, issues: [] };
  const problems: FieldProblem[] = [];
  const routes = vs.spec.http.map((http, i) => build(http, `spec.http[${i}]`, problems));
  const ref = refOf(vs);
  if (problems.length === 0) return { routes, issues: extraMatchWarnings(vs, service) };
  const suffix = `; the VirtualService is ignored for ${service}`;
  return { routes: fallback, issues: problems.map((p) => issue(ref, p.path, p.message + suffix)) };
}

/** Header matchers of `match[0]` (Istio semantics, sorted by name); an empty header name is a problem. */
export function vsHeaderMatchers(
  http: HTTPRoute,
  path: string,
  problems: FieldProblem[],
): HeaderMatcherJson[] {
  const matchers = istioHeaderMatchers(http.match[0]?.headers);
  if (matchers.some((m) => m.name === '')) problems.push({ path, message: 'a header name is empty' });
  return matchers;
}

/** A warning per `http` entry with more than one match: only `match[0]` is used for `service`. */
function extraMatchWarnings(vs: VirtualService, service: string): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  vs.spec.http.forEach((http, i) => {
    if (http.match.length < 2) return;
    const ignored = http.match.length - 1;
    out.push(
      warning(
        refOf(vs),
        `spec.http[${i}].match[1]`,
        `only match[0] is used for ${service} (one match per route): ${ignored} more ` +
          `${ignored === 1 ? 'match is' : 'matches are'} ignored`,
      ),
    );
  });
  return out;
}
