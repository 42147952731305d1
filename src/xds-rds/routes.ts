/**
 * The MetaProtocol route builder: from the store view to the RDS resources (aeraki-core.md 9.2-9.3,
 * wire-formats.md 3.3). Pure: no I/O, no logging, no clock; same view, same output (byte for byte).
 */
import type {
  DestinationRule,
  MetaRoute,
  MetaRouteMatch,
  MetaRouter,
  ServiceEntry,
  ServicePort,
  TrafficPolicy,
} from '../model/objects.ts';
import type { ConfigView } from '../model/view.ts';
import { applicationProtocolOf, detectProtocol } from '../model/protocol.ts';
import { outboundClusterName, routeConfigName } from '../model/names.ts';
import { formatIssue, issue, type ConfigIssue, type ObjectRef } from '../model/result.ts';
import type {
  HashPolicyJson,
  HeaderMatcherJson,
  HeaderValueOptionJson,
  RouteActionJson,
  RouteConfigurationJson,
  RouteJson,
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
  const issues = new IssueSet();
  const byName = new Map<string, { se: ServiceEntry; route: RouteConfigurationJson }>();
  for (const se of view.serviceEntries()) {
    for (const route of routesOfServiceEntry(view, se, issues)) {
      const prev = byName.get(route.name);
      if (prev === undefined || isOlder(se, prev.se)) byName.set(route.name, { se, route });
    }
  }
  const routes = [...byName.keys()]
    .sort()
    .map((name) => (byName.get(name) as { route: RouteConfigurationJson }).route);
  return { routes, issues: issues.list() };
}

class IssueSet {
  private readonly byKey = new Map<string, ConfigIssue>();
  add(i: ConfigIssue): void {
    const key = formatIssue(i);
    if (!this.byKey.has(key)) this.byKey.set(key, i);
  }
  list(): ConfigIssue[] {
    return [...this.byKey.values()];
  }
}

function isOlder(a: ServiceEntry, b: ServiceEntry): boolean {
  const ta = a.metadata.creationTimestamp;
  const tb = b.metadata.creationTimestamp;
  return ta !== '' && tb !== '' && ta < tb;
}

function refOf(o: ServiceEntry | MetaRouter): ObjectRef {
  return { kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name };
}

function routesOfServiceEntry(view: ConfigView, se: ServiceEntry, issues: IssueSet): RouteConfigurationJson[] {
  const ports: { port: ServicePort; index: number }[] = [];
  se.spec.ports.forEach((port, index) => {
    if (detectProtocol(port.name) !== 'metaprotocol') return;
    const app = applicationProtocolOf(port.name);
    if (!app.ok) issues.add(issue(refOf(se), `spec.ports[${index}].name`, app.message));
    else ports.push({ port, index });
  });
  if (ports.length === 0) return [];
  const host = se.spec.hosts[0];
  if (host === undefined || host === '') {
    issues.add(issue(refOf(se), 'spec.hosts', 'a MetaProtocol service needs at least one host'));
    return [];
  }
  const ns = se.metadata.namespace;
  const dr = view.destinationRuleForHost(host, ns);
  let metaRouter = view.metaRouterForHost(host, ns);
  if (metaRouter !== undefined && metaRouter.spec.routes.length === 0) metaRouter = undefined;
  if (metaRouter !== undefined) {
    const problems = validateMetaRouter(metaRouter);
    problems.forEach((p) => issues.add(p));
    if (problems.length > 0) metaRouter = undefined;
  }
  return ports.map(({ port }) => {
    const routes = metaRouter
      ? metaRouter.spec.routes.map((r) => buildRoute(r, port.number, dr))
      : [defaultRoute(host, port.number, dr)];
    return {
      name: routeConfigName(host, port.number),
      virtualHosts: [{ name: 'dummy', domains: ['*'], routes }],
    };
  });
}

/** Problems that would make a route unusable by the proxy; any of them makes the whole MetaRouter count as absent. */
function validateMetaRouter(mr: MetaRouter): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  mr.spec.routes.forEach((r, i) => {
    const path = `spec.routes[${i}]`;
    if (r.route.length === 0) out.push(issue(refOf(mr), `${path}.route`, 'at least one destination is required'));
    r.route.forEach((d, j) => {
      if (!d.destination.host) {
        out.push(issue(refOf(mr), `${path}.route[${j}].destination.host`, 'a destination host is required'));
      }
    });
    if (r.mirror !== undefined && !r.mirror.host) {
      out.push(issue(refOf(mr), `${path}.mirror.host`, 'a mirror host is required'));
    }
    const pct = r.mirrorPercentage?.value;
    if (pct !== undefined && !(Number.isFinite(pct) && pct >= 0 && pct <= 100)) {
      out.push(issue(refOf(mr), `${path}.mirrorPercentage.value`, `must be between 0 and 100, got ${pct}`));
    }
  });
  return out;
}

function defaultRoute(host: string, port: number, dr: DestinationRule | undefined): RouteJson {
  const hash = hashHeaderOf(dr, undefined);
  return {
    name: 'default',
    match: { prefix: '/' },
    route: {
      cluster: outboundClusterName(port, undefined, host),
      ...(hash !== undefined ? { hashPolicy: [hashPolicy(hash)] } : {}),
    },
  };
}

function buildRoute(r: MetaRoute, sePort: number, dr: DestinationRule | undefined): RouteJson {
  const headers = headerMatchers(r.match);
  const requestHeaders = headerValues(r.requestMutation);
  const responseHeaders = headerValues(r.responseMutation);
  return {
    ...(r.name ? { name: r.name } : {}),
    match: headers.length > 0 ? { prefix: '/', headers } : { prefix: '/' },
    route: routeAction(r, sePort, dr),
    ...(requestHeaders.length > 0 ? { requestHeadersToAdd: requestHeaders } : {}),
    ...(responseHeaders.length > 0 ? { responseHeadersToAdd: responseHeaders } : {}),
  };
}

function clusterOf(d: { host: string; subset?: string; port?: { number?: number } }, sePort: number): string {
  const port = d.port?.number ? d.port.number : sePort;
  return outboundClusterName(port, d.subset, d.host);
}

function routeAction(r: MetaRoute, sePort: number, dr: DestinationRule | undefined): RouteActionJson {
  const hashes: HashPolicyJson[] = [];
  let target: Pick<RouteActionJson, 'cluster' | 'weightedClusters'>;
  const [only] = r.route;
  if (r.route.length === 1 && only !== undefined) {
    target = { cluster: clusterOf(only.destination, sePort) };
    const h = hashHeaderOf(dr, only.destination.subset);
    if (h !== undefined) hashes.push(hashPolicy(h));
  } else {
    let totalWeight = 0;
    const clusters = r.route.map((d) => {
      const weight = d.weight ?? 0;
      totalWeight += weight;
      const h = hashHeaderOf(dr, d.destination.subset);
      if (h !== undefined) hashes.push(hashPolicy(h));
      return { name: clusterOf(d.destination, sePort), weight };
    });
    target = { weightedClusters: { clusters, totalWeight } };
  }
  const mirror = r.mirror;
  const percent = r.mirrorPercentage?.value ? r.mirrorPercentage.value : 100;
  return {
    ...target,
    ...(hashes.length > 0 ? { hashPolicy: hashes } : {}),
    ...(mirror !== undefined
      ? {
          requestMirrorPolicies: [
            {
              cluster: clusterOf(mirror, sePort),
              // Aeraki: uint32(percent * 10000) over MILLION (truncated, as Go converts).
              runtimeFraction: {
                defaultValue: { numerator: Math.trunc(percent * 10000), denominator: 'MILLION' as const },
              },
            },
          ],
        }
      : {}),
  };
}

function hashPolicy(headerName: string): HashPolicyJson {
  return { header: { headerName } };
}

/** Aeraki GetHashPolicy: the subset's own policy for a subset (no fallback), the top-level policy otherwise. */
function hashHeaderOf(dr: DestinationRule | undefined, subset: string | undefined): string | undefined {
  if (dr === undefined) return undefined;
  let policy: TrafficPolicy | undefined;
  if (!subset) policy = dr.spec.trafficPolicy;
  else policy = dr.spec.subsets.find((s) => s.name === subset)?.trafficPolicy;
  const header = policy?.loadBalancer?.consistentHash?.httpHeaderName;
  return header ? header : undefined;
}

/** Attributes in sorted key order (D5); `null` or regex `*` means "present"; an empty match is skipped (as Aeraki). */
function headerMatchers(match: MetaRouteMatch | undefined): HeaderMatcherJson[] {
  if (match === undefined) return [];
  const out: HeaderMatcherJson[] = [];
  for (const name of Object.keys(match.attributes).sort()) {
    const m = match.attributes[name];
    if (m === null || m === undefined || m.regex === '*') out.push({ name, presentMatch: true });
    else if (m.exact !== undefined) out.push({ name, exactMatch: m.exact });
    else if (m.prefix !== undefined) out.push({ name, prefixMatch: m.prefix });
    else if (m.regex !== undefined) out.push({ name, safeRegexMatch: { googleRe2: {}, regex: m.regex } });
  }
  return out;
}

function headerValues(kvs: readonly { key: string; value: string }[]): HeaderValueOptionJson[] {
  return kvs.map((kv) => ({ header: { key: kv.key, value: kv.value } }));
}
