// Random ADS requests and waypoint cache changes for the ADS fuzz suites: requests as the objects a client encodes
// (type URLs among the waypoint types and junk, wildcard and named subscriptions, random, old and empty nonces,
// ACKs and NACKs with long details, node.cluster for the stream's Gateway, another one, empty or oversized), and
// `apply()` changes adding, changing and removing services and Gateways.
import {
  isWildcardType,
  WAYPOINT_TYPES,
  type ServiceContribution,
  type WaypointChange,
} from '../../src/model/ambient/xds.ts';
import type { AdsCache } from '../../src/xds-rds/ads-cache.ts';
import { metaRoute } from '../xds-rds/ads-harness.ts';
import {
  dubbo,
  LISTENER_TEMPLATE,
  META_ROUTE_NAME,
  metaProtocol,
  redis,
  thrift,
  zookeeper,
} from '../xds-rds/ads-shapes.ts';
import type { Rng } from './prng.ts';

export const GATEWAY = 'shop/wp';
export const OTHER_GATEWAY = 'shop/other';
/** The peer of every fuzzed stream: the SPIFFE id of GATEWAY's proxy. */
export const PEER = 'spiffe://cluster.local/ns/shop/sa/wp';

const JUNK_TYPES = [
  '',
  'type.googleapis.com/envoy.config.route.v3.ScopedRouteConfiguration',
  'x'.repeat(3000),
];
const BAD_NODE_CLUSTERS = ['other.shop', '', 'wp', `${'w'.repeat(9000)}.shop`];

type Make = (ips: readonly string[]) => ServiceContribution;
const SERVICES: Readonly<Record<string, Make>> = {
  'Service/shop/dubbo': (ips) => dubbo('dubbo.shop.svc.cluster.local', '10.96.0.10', ips),
  'Service/shop/thrift': (ips) => thrift('thrift.shop.svc.cluster.local', '10.96.0.11', ips),
  'Service/shop/redis': (ips) => redis('redis.shop.svc.cluster.local', '10.96.0.12', ips),
  'Service/shop/zk': (ips) => zookeeper('zk.shop.svc.cluster.local', '10.96.0.13', ips),
  'Service/shop/trpc': (ips) => metaProtocol('trpc.shop.svc.cluster.local', '10.96.0.14', ips),
  'Service/shop/extra': (ips) => thrift('extra.shop.svc.cluster.local', '10.96.0.20', ips),
};
const IPS = [['10.244.0.10'], ['10.244.0.11', '10.244.0.12'], ['10.244.0.13']];

function someServices(r: Rng): Map<string, ServiceContribution | undefined> {
  const m = new Map<string, ServiceContribution | undefined>();
  for (const [key, make] of Object.entries(SERVICES)) {
    const roll = r.int(4);
    if (roll === 0) m.set(key, undefined);
    else if (roll === 1) m.set(key, make(r.pick(IPS)));
  }
  return m;
}

/** A random cache change: services of GATEWAY or OTHER_GATEWAY, a Gateway removed or (re)added, or an RDS route. */
export function randomChange(r: Rng, ads: AdsCache, rds: { setRoutes(routes: never[]): unknown }): string {
  const gateway = r.int(5) === 0 ? OTHER_GATEWAY : GATEWAY;
  const roll = r.int(10);
  if (roll === 0) {
    ads.apply([{ gateway, listener: null, services: new Map() }]);
    return `${gateway} removed`;
  }
  if (roll === 1) {
    rds.setRoutes([metaRoute(`outbound|8000||c${r.int(3)}.shop.svc.cluster.local`)] as never[]);
    return 'rds route';
  }
  const change: WaypointChange = {
    gateway,
    ...(roll === 2 || !ads.serves(gateway) ? { listener: LISTENER_TEMPLATE } : {}),
    services: someServices(r),
  };
  ads.apply(r.int(8) === 0 ? [change, { gateway, services: someServices(r) }] : [change]);
  return `${gateway} services`;
}

/** What the fuzz needs to know of a stream's state per type to build its next request. */
export interface TypeView {
  readonly lastNonce: string;
  readonly nonces: readonly string[];
}

export function randomType(r: Rng): string {
  return r.int(25) === 0 ? r.pick(JUNK_TYPES) : r.pick(WAYPOINT_TYPES);
}

function names(r: Rng, ads: AdsCache, typeUrl: string): string[] {
  const pool = [
    ...ads.resources(GATEWAY, typeUrl).keys(),
    META_ROUTE_NAME,
    'unknown.fuzz_1',
    'unknown.fuzz_2',
  ];
  if (isWildcardType(typeUrl)) pool.push('*');
  if (r.int(60) === 0) pool.push('n'.repeat(400));
  return Array.from({ length: r.int(4) }, () => r.pick(pool));
}

function nonce(r: Rng, view: TypeView | undefined, all: readonly string[]): string {
  switch (r.int(6)) {
    case 0:
      return '';
    case 1:
      return all.length > 0 ? r.pick(all) : 'junk';
    case 2:
      return r.pick(['junk', '999999', 'x'.repeat(500)]);
    default:
      return view?.lastNonce ?? '';
  }
}

function node(r: Rng, first: boolean): Record<string, unknown> {
  if (!first && r.int(4) > 0) return {};
  return { node: { id: 'wp-0.shop', cluster: r.int(6) > 0 ? 'wp.shop' : r.pick(BAD_NODE_CLUSTERS) } };
}

function detail(r: Rng, responseNonce: string): Record<string, unknown> {
  if (responseNonce === '' || r.int(3) > 0) return {};
  return { errorDetail: { code: 13, message: `bad ${'e'.repeat(r.pick([10, 5000]))}` } };
}

/** A DiscoveryRequest (object form for encodeSotwRequest). */
export function sotwRequest(
  r: Rng,
  ads: AdsCache,
  typeUrl: string,
  view: TypeView | undefined,
  all: readonly string[],
  first: boolean,
): Record<string, unknown> {
  const responseNonce = nonce(r, view, all);
  return {
    ...node(r, first),
    typeUrl,
    resourceNames: names(r, ads, typeUrl),
    versionInfo: r.pick(['', 'old', '0000000000000000']),
    responseNonce,
    ...detail(r, responseNonce),
  };
}

/** A DeltaDiscoveryRequest (object form for encodeDeltaRequest). */
export function deltaRequest(
  r: Rng,
  ads: AdsCache,
  typeUrl: string,
  view: TypeView | undefined,
  all: readonly string[],
  first: boolean,
): Record<string, unknown> {
  const responseNonce = nonce(r, view, all);
  const initial: Record<string, string> = {};
  if (first) {
    const current = ads.resources(GATEWAY, typeUrl);
    for (const n of names(r, ads, typeUrl)) {
      initial[n] = r.pick([current.get(n)?.version ?? 'gone', 'old', '', 'v'.repeat(100)]);
    }
  }
  return {
    ...node(r, first),
    typeUrl,
    resourceNamesSubscribe: names(r, ads, typeUrl),
    resourceNamesUnsubscribe: r.int(3) === 0 ? names(r, ads, typeUrl) : [],
    initialResourceVersions: initial,
    responseNonce,
    ...detail(r, responseNonce),
  };
}
