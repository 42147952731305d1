/**
 * Fields of the networking.istio.io kinds that no generator uses but that Istio validates (validate/istio.ts):
 * read with their types checked so the rules can name a bad value, and kept out of the model when absent.
 * Reference: https://istio.io/latest/docs/reference/config/networking/
 */
import type {
  ConnectionPoolSettings,
  HTTPRetry,
  HTTPRoute,
  RouteDestination,
  ServiceEntryEndpoint,
  TLSRoute,
} from '../objects.ts';
import { readDestination } from './common.ts';
import { hygiene } from '../result.ts';
import { Fields, type Raw } from './fields.ts';

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

type HttpExtras = Pick<HTTPRoute, 'mirror' | 'mirrorPercentage' | 'timeout' | 'retries'>;

/** mirror, mirrorPercentage, timeout and retries of an HTTP route; only the fields given. */
export function readHttpExtras(f: Fields, o: Raw, path: string): HttpExtras {
  const out: { -readonly [K in keyof HttpExtras]: HttpExtras[K] } = {};
  const mirrorObj = f.object(o, 'mirror', `${path}.mirror`);
  const mirror = mirrorObj ? readDestination(f, mirrorObj, `${path}.mirror`) : undefined;
  if (mirror) out.mirror = mirror;
  const mp = f.object(o, 'mirrorPercentage', `${path}.mirrorPercentage`);
  if (mp) {
    const value = f.number(mp, 'value', `${path}.mirrorPercentage.value`);
    out.mirrorPercentage = value !== undefined ? { value } : {};
  }
  const timeout = f.duration(o, 'timeout', `${path}.timeout`);
  if (timeout !== undefined) out.timeout = timeout;
  const r = f.object(o, 'retries', `${path}.retries`);
  if (r) {
    const attempts = f.integer(r, 'attempts', `${path}.retries.attempts`, INT32_MIN, INT32_MAX);
    const perTryTimeout = f.duration(r, 'perTryTimeout', `${path}.retries.perTryTimeout`);
    const retries: HTTPRetry = {
      ...(attempts !== undefined ? { attempts } : {}),
      ...(perTryTimeout !== undefined ? { perTryTimeout } : {}),
    };
    out.retries = retries;
  }
  return out;
}

/** `spec.tls`; undefined when absent. `readRoute` reads one weighted destination. */
export function readTlsRoutes(
  f: Fields,
  spec: Raw,
  readRoute: (f: Fields, o: Raw, path: string) => RouteDestination | undefined,
): TLSRoute[] | undefined {
  if (spec['tls'] === undefined || spec['tls'] === null) return undefined;
  return f.objects(spec, 'tls', 'spec.tls', (_f, o, path) => ({
    match: f.objectList(o, 'match', `${path}.match`, (m, p) => {
      const port = f.port(m, 'port', `${p}.port`);
      return {
        sniHosts: f.stringList(m, 'sniHosts', `${p}.sniHosts`),
        ...(port !== undefined ? { port } : {}),
      };
    }),
    route: f.objects(o, 'route', `${path}.route`, readRoute),
  }));
}

/** The integer fields, then the duration fields, of ConnectionPoolSettings (`tcp.*`, `http.*`). */
const POOL_NUMBERS = [
  'tcp.maxConnections',
  'http.http1MaxPendingRequests',
  'http.http2MaxRequests',
  'http.maxRequestsPerConnection',
  'http.maxRetries',
  'http.maxConcurrentStreams',
] as const;
const POOL_DURATIONS = [
  'tcp.connectTimeout',
  'tcp.idleTimeout',
  'tcp.maxConnectionDuration',
  'http.idleTimeout',
];

/** The integer fields, then the duration fields, of OutlierDetection. */
const OUTLIER_NUMBERS = [
  'consecutiveErrors',
  'consecutive5xxErrors',
  'consecutiveGatewayErrors',
  'consecutiveLocalOriginFailures',
  'maxEjectionPercent',
  'minHealthPercent',
] as const;
const OUTLIER_DURATIONS = ['interval', 'baseEjectionTime'];

/**
 * The numbers and durations of `connectionPool` or `outlierDetection` (`key`) of a traffic policy, by their path
 * below it (`tcp.maxConnections`, `interval`); undefined when absent.
 */
export function readPolicySettings(
  f: Fields,
  tp: Raw,
  key: 'connectionPool' | 'outlierDetection',
  path: string,
): ConnectionPoolSettings | undefined {
  const o = f.object(tp, key, `${path}.${key}`);
  if (!o) return undefined;
  const numbers: Record<string, number> = {};
  const durations: Record<string, string> = {};
  const [numberFields, durationFields] =
    key === 'connectionPool' ? [POOL_NUMBERS, POOL_DURATIONS] : [OUTLIER_NUMBERS, OUTLIER_DURATIONS];
  const sections = new Map<string, Raw | undefined>();
  /** The object holding `field` (`tcp.maxConnections` → o.tcp, `maxConnections`), each section read once. */
  const locate = (field: string): [Raw | undefined, string] => {
    const dot = field.indexOf('.');
    if (dot < 0) return [o, field];
    const section = field.slice(0, dot);
    if (!sections.has(section)) sections.set(section, f.object(o, section, `${path}.${key}.${section}`));
    return [sections.get(section), field.slice(dot + 1)];
  };
  for (const field of numberFields) {
    const [parent, name] = locate(field);
    const v = parent ? f.integer(parent, name, `${path}.${key}.${field}`, INT32_MIN, INT32_MAX) : undefined;
    if (v !== undefined) numbers[field] = v;
  }
  for (const field of durationFields) {
    const [parent, name] = locate(field);
    const v = parent ? f.duration(parent, name, `${path}.${key}.${field}`) : undefined;
    if (v !== undefined) durations[field] = v;
  }
  return { numbers, durations };
}

/** `httpCookie` of a consistent hash: name (required) and ttl. */
export function readHttpCookie(f: Fields, ch: Raw, path: string): { name: string; ttl?: string } | undefined {
  const o = f.object(ch, 'httpCookie', `${path}.httpCookie`);
  if (!o) return undefined;
  const name = f.requiredString(o, 'name', `${path}.httpCookie.name`) ?? '';
  const ttl = f.duration(o, 'ttl', `${path}.httpCookie.ttl`);
  return { name, ...(ttl !== undefined ? { ttl } : {}) };
}

/**
 * `spec.endpoints` of a ServiceEntry (WorkloadEntry fields address, ports, labels, weight); undefined when absent.
 * Other fields (network, locality, serviceAccount) are not read. Ports, labels and weight were not read before our
 * waypoint's EDS used them, so a bad one is admission hygiene (DESIGN habit 12: the object still works, that field
 * dropped), while Istio's webhook refuses it.
 */
export function readEndpoints(f: Fields, spec: Raw): ServiceEntryEndpoint[] | undefined {
  if (spec['endpoints'] === undefined || spec['endpoints'] === null) return undefined;
  const extras = new Fields(f.ref);
  const out = f.objectList(spec, 'endpoints', 'spec.endpoints', (o, p) => {
    const ports = readPortMap(extras, o, `${p}.ports`);
    const labels = extras.object(o, 'labels', `${p}.labels`)
      ? extras.stringMap(o, 'labels', `${p}.labels`)
      : undefined;
    const weight = extras.uint32(o, 'weight', `${p}.weight`);
    return {
      address: f.string(o, 'address', `${p}.address`) ?? '',
      ...(ports !== undefined ? { ports } : {}),
      ...(labels !== undefined ? { labels } : {}),
      ...(weight !== undefined ? { weight } : {}),
    };
  });
  for (const i of extras.issues) f.issues.push(hygiene(i.ref, i.path, i.message));
  return out;
}

/** A WorkloadEntry's `ports` (`map<string, uint32>`, port numbers by service port name); undefined when absent. */
function readPortMap(f: Fields, o: Raw, path: string): Record<string, number> | undefined {
  const m = f.object(o, 'ports', path);
  if (!m) return undefined;
  const out: Record<string, number> = {};
  for (const name of Object.keys(m).sort()) {
    const port = f.port(m, name, `${path}.${name}`);
    if (port !== undefined) out[name] = port;
  }
  return out;
}
