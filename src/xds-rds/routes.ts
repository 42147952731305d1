/**
 * The MetaProtocol route builder: from the store view to the RDS resources (aeraki-core.md 9.2-9.3,
 * wire-formats.md 3.3). Pure: no I/O, no logging, no clock; same view, same output (byte for byte).
 */
import type {
  DestinationRule,
  MetaRoute,
  ServiceEntry,
  ServicePort,
  TrafficPolicy,
} from '../model/objects.ts';
import { attributeMatchers } from '../model/matchers.ts';
import { compareOldestFirst, compareStrings } from '../model/order.ts';
import type { ConfigView } from '../model/view.ts';
import { applicationProtocolOf, detectProtocol } from '../model/protocol.ts';
import { outboundClusterName, routeConfigName } from '../model/names.ts';
import { dedupeIssues, issue, refOf, type ConfigIssue } from '../model/result.ts';
import { pinShape } from '../util/shape.ts';
import type {
  HashPolicyJson,
  HeaderValueOptionJson,
  RouteActionJson,
  RouteConfigurationJson,
  RouteJson,
  RouteMatchJson,
} from './route-json.ts';

export interface RouteBuildResult {
  /** Sorted by name; names are unique. */
  readonly routes: RouteConfigurationJson[];
  /** Problems in user config; each object is reported once. */
  readonly issues: ConfigIssue[];
}

/**
 * One RouteConfiguration `<host>_<port>` per MetaProtocol port of every ServiceEntry (only `hosts[0]` is used).
 * Routes come from the ServiceEntry's MetaRouter (a MetaRouter without routes, or with an invalid route, counts
 * as absent: the default route is served), hash policies from its DestinationRule. A port whose name has no
 * application protocol (D1) gets nothing. When two ServiceEntries produce the same name, the oldest
 * (creationTimestamp, then namespace/name) wins, as in the D6 lookups.
 */
export function buildRouteConfigurations(view: ConfigView): RouteBuildResult {
  const issues: ConfigIssue[] = [];
  const shared = new SharedParts();
  // The routes, the ServiceEntry of each and each name in a flat array, filled while the route is in the caches.
  const built: RouteConfigurationJson[] = [];
  const owners: ServiceEntry[] = [];
  const names: string[] = [];
  // Loops over input arrays are indexed throughout: parsed config is frozen, and for-of over a frozen array
  // allocates an iterator result per element (V8 11).
  const serviceEntries = view.serviceEntries();
  for (let i = 0; i < serviceEntries.length; i++) {
    const se = serviceEntries[i] as ServiceEntry;
    const routes = routesOfServiceEntry(view, se, issues, shared);
    for (let k = 0; k < routes.length; k++) {
      const route = routes[k] as RouteConfigurationJson;
      built.push(route);
      owners.push(se);
      names.push(route.name);
    }
  }
  // Sorted by name, then kept: the first of each name, or on a collision (rare) the oldest ServiceEntry, the
  // first seen among equals (the sort is stable). Neighbours share a name: no table keyed by name, which with
  // tens of thousands of names costs a cache miss per insert, more than the sort. The sort compares strings
  // reached in one step from `names`, not through the route objects.
  const order: number[] = [];
  for (let i = 0; i < built.length; i++) order.push(i);
  order.sort((i, j) => compareStrings(names[i] as string, names[j] as string));
  const routes: RouteConfigurationJson[] = [];
  const n = order.length;
  for (let i = 0; i < n;) {
    let best = order[i] as number;
    const name = names[best] as string;
    let j = i + 1;
    for (; j < n && names[order[j] as number] === name; j++) {
      const other = order[j] as number;
      if (compareOldestFirst(owners[other] as ServiceEntry, owners[best] as ServiceEntry) < 0) best = other;
    }
    routes.push(built[best] as RouteConfigurationJson);
    i = j;
  }
  return { routes, issues: dedupeIssues(issues) };
}

/** Route parts that do not depend on the route: frozen, and shared by every route configuration. */
const MATCH_ANY: RouteMatchJson = Object.freeze({ prefix: '/' });
const ALL_DOMAINS = Object.freeze(['*'] as const);

/**
 * Parts shared within one build: a hash policy depends only on its header name, so the routes of every service
 * whose DestinationRule hashes on the same header share its objects (output is never mutated).
 */
class SharedParts {
  private readonly byHeader = new Map<string, readonly [HashPolicyJson]>();

  /** `[{header: {headerName}}]`: one frozen array per header name. */
  hashPolicies(headerName: string): readonly [HashPolicyJson] {
    let p = this.byHeader.get(headerName);
    if (p === undefined) {
      p = Object.freeze([Object.freeze({ header: Object.freeze({ headerName }) })] as const);
      this.byHeader.set(headerName, p);
    }
    return p;
  }

  /** `{header: {headerName}}`, shared. */
  hashPolicy(headerName: string): HashPolicyJson {
    return this.hashPolicies(headerName)[0];
  }
}

// One per build, garbage after it: without a live instance a full collection would drop its shape and the
// optimized route-building code with it (see pinShape).
pinShape(new SharedParts());

function routesOfServiceEntry(
  view: ConfigView,
  se: ServiceEntry,
  issues: ConfigIssue[],
  shared: SharedParts,
): RouteConfigurationJson[] {
  const ports: ServicePort[] = [];
  let invalid = false;
  const sePorts = se.spec.ports;
  for (let index = 0; index < sePorts.length; index++) {
    const port = sePorts[index] as ServicePort;
    if (detectProtocol(port.name) !== 'metaprotocol') continue;
    const app = applicationProtocolOf(port.name, refOf(se), `spec.ports[${index}].name`);
    issues.push(...app.issues);
    if (app.ok) ports.push(port);
    else invalid = true;
  }
  // D1: a ServiceEntry with an invalid MetaProtocol port is rendered not at all, as its EnvoyFilters are not.
  if (invalid || ports.length === 0) return [];
  const host = se.spec.hosts[0];
  if (host === undefined || host === '') {
    issues.push(issue(refOf(se), 'spec.hosts', 'a MetaProtocol service needs at least one host'));
    return [];
  }
  const ns = se.metadata.namespace;
  const { destinationRule: dr, metaRouter: found } = view.configForHost(host, ns);
  let metaRouter = found;
  if (metaRouter !== undefined && metaRouter.spec.routes.length === 0) metaRouter = undefined;
  const out: RouteConfigurationJson[] = [];
  for (const port of ports) {
    const routes: RouteJson[] = [];
    if (metaRouter) {
      const metaRoutes = metaRouter.spec.routes;
      for (let i = 0; i < metaRoutes.length; i++) {
        routes.push(buildRoute(metaRoutes[i] as MetaRoute, port.number, dr, shared));
      }
    } else routes.push(defaultRoute(host, port.number, dr, shared));
    out.push({
      name: routeConfigName(host, port.number),
      virtualHosts: [{ name: 'dummy', domains: ALL_DOMAINS, routes }],
    });
  }
  return out;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

// The builders below assign optional fields imperatively instead of spreading conditional objects: route
// building is on the hot path of every rebuild, and the spreads cost more than the whole JSON encoding.

function defaultRoute(
  host: string,
  port: number,
  dr: DestinationRule | undefined,
  shared: SharedParts,
): RouteJson {
  const action: Mutable<RouteActionJson> = { cluster: outboundClusterName(port, undefined, host) };
  const hash = hashHeaderOf(dr, undefined);
  if (hash !== undefined) action.hashPolicy = shared.hashPolicies(hash);
  return { name: 'default', match: MATCH_ANY, route: action };
}

function buildRoute(
  r: MetaRoute,
  sePort: number,
  dr: DestinationRule | undefined,
  shared: SharedParts,
): RouteJson {
  const headers = attributeMatchers(r.match);
  const route: Mutable<RouteJson> = {
    match: headers.length > 0 ? { prefix: '/', headers } : MATCH_ANY,
    route: routeAction(r, sePort, dr, shared),
  };
  if (r.name) route.name = r.name;
  if (r.requestMutation.length > 0) route.requestHeadersToAdd = headerValues(r.requestMutation);
  if (r.responseMutation.length > 0) route.responseHeadersToAdd = headerValues(r.responseMutation);
  return route;
}

function clusterOf(d: { host: string; subset?: string; port?: { number?: number } }, sePort: number): string {
  const port = d.port?.number ? d.port.number : sePort;
  return outboundClusterName(port, d.subset, d.host);
}

function routeAction(
  r: MetaRoute,
  sePort: number,
  dr: DestinationRule | undefined,
  shared: SharedParts,
): RouteActionJson {
  const action: Mutable<RouteActionJson> = {};
  const only = r.route.length === 1 ? r.route[0] : undefined;
  if (only !== undefined) {
    action.cluster = clusterOf(only.destination, sePort);
    const h = hashHeaderOf(dr, only.destination.subset);
    if (h !== undefined) action.hashPolicy = shared.hashPolicies(h);
  } else {
    const hashes: HashPolicyJson[] = [];
    let totalWeight = 0;
    const clusters: { name: string; weight: number }[] = [];
    for (let i = 0; i < r.route.length; i++) {
      const d = r.route[i] as MetaRoute['route'][number];
      const weight = d.weight ?? 0;
      totalWeight += weight;
      const h = hashHeaderOf(dr, d.destination.subset);
      if (h !== undefined) hashes.push(shared.hashPolicy(h));
      clusters.push({ name: clusterOf(d.destination, sePort), weight });
    }
    action.weightedClusters = { clusters, totalWeight };
    if (hashes.length > 0) action.hashPolicy = hashes;
  }
  if (r.mirror !== undefined) {
    const percent = r.mirrorPercentage?.value ? r.mirrorPercentage.value : 100;
    action.requestMirrorPolicies = [
      {
        cluster: clusterOf(r.mirror, sePort),
        // Aeraki: uint32(percent * 10000) over MILLION (truncated, as Go converts).
        runtimeFraction: { defaultValue: { numerator: Math.trunc(percent * 10000), denominator: 'MILLION' } },
      },
    ];
  }
  return action;
}

/** Aeraki GetHashPolicy: the subset's own policy for a subset (no fallback), the top-level policy otherwise. */
function hashHeaderOf(dr: DestinationRule | undefined, subset: string | undefined): string | undefined {
  if (dr === undefined) return undefined;
  let policy: TrafficPolicy | undefined;
  if (!subset) policy = dr.spec.trafficPolicy;
  else {
    const subsets = dr.spec.subsets;
    for (let i = 0; i < subsets.length; i++) {
      const s = subsets[i] as DestinationRule['spec']['subsets'][number];
      if (s.name === subset) {
        policy = s.trafficPolicy;
        break;
      }
    }
  }
  const header = policy?.loadBalancer?.consistentHash?.httpHeaderName;
  return header ? header : undefined;
}

function headerValues(kvs: readonly { key: string; value: string }[]): HeaderValueOptionJson[] {
  return kvs.map((kv) => ({ header: { key: kv.key, value: kv.value } }));
}
