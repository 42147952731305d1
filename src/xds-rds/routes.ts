/**
 * The MetaProtocol route builder: from the store view to the RDS resources (aeraki-core.md 9.2-9.3,
 * wire-formats.md 3.3). Pure: no I/O, no logging, no clock; same view, same output (byte for byte).
 */
import type { DestinationRule, MetaRoute, ServiceEntry, ServicePort } from '../model/objects.ts';
import { heldIssue, holdersOf } from '../model/held.ts';
import { attributeMatchers } from '../model/matchers.ts';
import { resolveClaims, type SourceClaims } from '../model/claims.ts';
import { configConflicts } from '../model/conflicts/conflicts.ts';
import { compareStrings } from '../model/order.ts';
import type { ConfigView } from '../model/view.ts';
import { applicationProtocolOf, selectsProtocol } from '../model/protocol.ts';
import { outboundClusterName, routeConfigName } from '../model/names.ts';
import { dedupeIssues, issue, refOf, type ConfigIssue } from '../model/result.ts';
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
  /**
   * Names of the routes withheld because their host is held (ConfigView.isHostHeld), sorted: not in `routes`;
   * whoever serves them keeps serving what it had (SnapshotCache.setRoutes), or nothing.
   */
  readonly held: string[];
}

/**
 * One RouteConfiguration `<host>_<port>` per MetaProtocol port of every ServiceEntry (only `hosts[0]` is used).
 * Routes come from the ServiceEntry's MetaRouter (a MetaRouter without routes, or with an invalid route, counts
 * as absent: the default route is served), hash policies from its DestinationRule. A port whose name has no
 * application protocol (D1) gets nothing. When two ServiceEntries produce the same name, the oldest
 * (creationTimestamp, then namespace/name) wins, as in the D6 lookups. Conflicts between MetaRouters (two for
 * one host, one for a host no ServiceEntry has), ApplicationProtocols, VirtualServices, DestinationRules and
 * Gateway ports (model/conflicts/conflicts.ts) are warnings after the rest.
 * The routes of a ServiceEntry with a held host (ConfigView.isHostHeld: an invalid VirtualService or
 * DestinationRule of its own namespace, whose filters are kept) are withheld: listed in `held` only, with a warning
 * naming the invalid objects holding it (model/held.ts), so the routes served match the filters kept.
 *
 * An invalid MetaRouter holds only what it contributes, its routes (DESIGN habit 17), and never its ServiceEntry:
 * - with a valid version known, the store keeps that version in the view, so its routes are served as they were,
 *   built on the ServiceEntry as it is now (a new port gets its `<host>_<port>` route, a removed one loses it);
 * - with none (invalid since the process started), it is absent from the view and the host gets the route its
 *   ServiceEntry and DestinationRule alone give: the default route. This process never served a route of that
 *   MetaRouter, so a route kept under that name would be the default route as it was (freezing the
 *   DestinationRule's and ServiceEntry's later changes, which are other owners') or nothing: a proxy reading the
 *   ServiceEntry's filters, which are written now, would then get a MetaProtocol proxy with no route at all. The
 *   default route is what the proxies had before the MetaRouter existed; proxies that still hold a route of a
 *   previous process lose its rules (subsets, splits, mirrors) but keep reaching the service, and the
 *   MetaRouter's status says so (status/conditions.ts).
 * `conflicts` is configConflicts(view), computed here unless the caller has it already for this pass.
 */
export function buildRouteConfigurations(
  view: ConfigView,
  conflicts: readonly ConfigIssue[] = configConflicts(view),
): RouteBuildResult {
  const issues: ConfigIssue[] = [];
  const held = new Set<string>();
  const claims: SourceClaims<ServiceEntry, RouteConfigurationJson>[] = [];
  for (const se of view.serviceEntries()) {
    const items = routesOfServiceEntry(view, se, issues);
    if (!isRouteHeld(view, se)) claims.push({ source: se, items });
    else {
      for (const r of items) held.add(r.name);
      if (items.length > 0) issues.push(heldIssue(se, holdersOf(view, se)));
    }
  }
  const routes = resolveClaims(claims, (route) => route.name).winners.sort((a, b) =>
    compareStrings(a.name, b.name),
  );
  issues.push(...conflicts);
  return { routes, issues: dedupeIssues(issues), held: [...held].sort(compareStrings) };
}

/** The MetaProtocol ports of `se`, or undefined when one of them names no application protocol (D1). */
function metaProtocolPorts(se: ServiceEntry, issues: ConfigIssue[]): ServicePort[] | undefined {
  const ports: ServicePort[] = [];
  let invalid = false;
  se.spec.ports.forEach((port, index) => {
    if (!selectsProtocol(port.name, 'metaprotocol')) return;
    const app = applicationProtocolOf(port.name, refOf(se), `spec.ports[${index}].name`);
    issues.push(...app.issues);
    if (app.ok) ports.push(port);
    else invalid = true;
  });
  return invalid ? undefined : ports;
}

/** True when a host of `se` is held (by an invalid object of its own namespace): its routes are withheld. */
export function isRouteHeld(view: ConfigView, se: ServiceEntry): boolean {
  return se.spec.hosts.some((h) => view.isHostHeld(h, se.metadata.namespace));
}

/** The routes of one ServiceEntry (before claims and holds), its problems appended to `issues`. */
export function routesOfServiceEntry(
  view: ConfigView,
  se: ServiceEntry,
  issues: ConfigIssue[],
): RouteConfigurationJson[] {
  const ports = metaProtocolPorts(se, issues);
  // D1: a ServiceEntry with an invalid MetaProtocol port is rendered not at all, as its EnvoyFilters are not.
  if (ports === undefined || ports.length === 0) return [];
  const host = se.spec.hosts[0];
  if (host === undefined || host === '') {
    issues.push(issue(refOf(se), 'spec.hosts', 'a MetaProtocol service needs at least one host'));
    return [];
  }
  const { destinationRule: dr, metaRouter } = view.configForHost(host, se.metadata.namespace);
  const metaRoutes = metaRouter?.spec.routes ?? [];
  return ports.map((port) => ({
    name: routeConfigName(host, port.number),
    virtualHosts: [
      {
        name: 'dummy',
        domains: ALL_DOMAINS,
        routes:
          metaRoutes.length > 0
            ? metaRoutes.map((r) => buildRoute(r, port.number, dr))
            : [defaultRoute(host, port.number, dr)],
      },
    ],
  }));
}

/** Route parts that do not depend on the route: shared constants. */
const MATCH_ANY: RouteMatchJson = Object.freeze({ prefix: '/' });
const ALL_DOMAINS = Object.freeze(['*'] as const);

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function defaultRoute(host: string, port: number, dr: DestinationRule | undefined): RouteJson {
  const action: Mutable<RouteActionJson> = { cluster: outboundClusterName(port, undefined, host) };
  const hash = hashHeaderOf(dr, undefined);
  if (hash !== undefined) action.hashPolicy = [hashPolicy(hash)];
  return { name: 'default', match: MATCH_ANY, route: action };
}

function buildRoute(r: MetaRoute, sePort: number, dr: DestinationRule | undefined): RouteJson {
  const headers = attributeMatchers(r.match);
  const route: Mutable<RouteJson> = {
    match: headers.length > 0 ? { prefix: '/', headers } : MATCH_ANY,
    route: routeAction(r, sePort, dr),
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

function routeAction(r: MetaRoute, sePort: number, dr: DestinationRule | undefined): RouteActionJson {
  const action: Mutable<RouteActionJson> = {};
  const only = r.route.length === 1 ? r.route[0] : undefined;
  if (only !== undefined) {
    action.cluster = clusterOf(only.destination, sePort);
    const h = hashHeaderOf(dr, only.destination.subset);
    if (h !== undefined) action.hashPolicy = [hashPolicy(h)];
  } else {
    const hashes: HashPolicyJson[] = [];
    let totalWeight = 0;
    const clusters: { name: string; weight: number }[] = [];
    for (const d of r.route) {
      const weight = d.weight ?? 0;
      totalWeight += weight;
      const h = hashHeaderOf(dr, d.destination.subset);
      if (h !== undefined) hashes.push(hashPolicy(h));
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
  const policy = subset
    ? dr.spec.subsets.find((s) => s.name === subset)?.trafficPolicy
    : dr.spec.trafficPolicy;
  const header = policy?.loadBalancer?.consistentHash?.httpHeaderName;
  return header ? header : undefined;
}

function hashPolicy(headerName: string): HashPolicyJson {
  return { header: { headerName } };
}

function headerValues(kvs: readonly { key: string; value: string }[]): HeaderValueOptionJson[] {
  return kvs.map((kv) => ({ header: { key: kv.key, value: kv.value } }));
}
