import type { DubboProvider } from '../model/registry-bridge.ts';

/**
 * Dubbo provider URLs as registries hold them. ZooKeeper and etcd name each provider node after its URL,
 * URL-encoded once (`dubbo%3A%2F%2F10.0.0.5%3A20880%2Forg.example.Greeter%3Fversion%3D1.0.0%26...`, Java's
 * URLEncoder, so a space is `+`); the decoded form is `dubbo://10.0.0.5:20880/org.example.Greeter?k=v&...`. The
 * interface is the `interface` parameter, else the URL's path. Only the provider protocols Dubbo registers are
 * accepted: `empty://`, `consumer://`, `override://`, `route://` and the like are not providers.
 */

/** Children of Dubbo's root node that are not interfaces (configuration, service-name mapping, metadata). */
export const NOT_INTERFACES: ReadonlySet<string> = new Set(['config', 'mapping', 'metadata']);

/** Where Dubbo 3 registers application-level instances: `/services/<application>/<instance>`. */
export const SERVICES_ROOT = '/services';

const NOT_PROVIDERS = new Set([
  'empty',
  'consumer',
  'consumers',
  'override',
  'route',
  'routers',
  'configurators',
]);
const URL_SHAPE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)(\/[^?#]*)?(?:\?([^#]*))?(?:#.*)?$/;

/** Decodes percent-escapes (and `+` as a space, as Java's URLEncoder writes it); undefined when malformed. */
function decode(text: string, plusIsSpace: boolean): string | undefined {
  try {
    return decodeURIComponent(plusIsSpace ? text.replace(/\+/g, ' ') : text);
  } catch {
    return undefined;
  }
}

/** `host:port` or `[v6]:port`; the port must be all digits (its range is the conversion's to check). */
function splitAuthority(authority: string): { address: string; port: number } | undefined {
  const at = authority.lastIndexOf('@');
  const hostPort = at >= 0 ? authority.slice(at + 1) : authority;
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,10})$/.exec(hostPort);
  if (!m) return undefined;
  return { address: m[1] ?? m[2]!, port: Number(m[3]) };
}

/** Query parameters, each key and value decoded once more (Dubbo escapes some values, e.g. `%2F` in a locality). */
function parseQuery(query: string): Record<string, string> {
  const params: Record<string, string> = {};
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawKey = eq < 0 ? pair : pair.slice(0, eq);
    const rawValue = eq < 0 ? '' : pair.slice(eq + 1);
    const key = decode(rawKey, false) ?? rawKey;
    if (key === '') continue;
    params[key] = decode(rawValue, false) ?? rawValue;
  }
  return params;
}

/**
 * Parses one provider URL, URL-encoded (a ZooKeeper node name, the last segment of an etcd key) or already
 * decoded. Returns undefined when it is not a provider URL (no `scheme://host:port`, a non-provider scheme, no
 * interface); the caller warns naming `origin`. Nothing else is validated (see DubboProvider).
 */
export function parseProviderUrl(encodedOrDecoded: string, origin: string): DubboProvider | undefined {
  const text = encodedOrDecoded.includes('://') ? encodedOrDecoded : decode(encodedOrDecoded, true);
  if (text === undefined) return undefined;
  const m = URL_SHAPE.exec(text.trim());
  if (!m) return undefined;
  const scheme = m[1]!.toLowerCase();
  if (NOT_PROVIDERS.has(scheme)) return undefined;
  const hostPort = splitAuthority(m[2]!);
  if (!hostPort) return undefined;
  const params = parseQuery(m[4] ?? '');
  const path = (m[3] ?? '').replace(/^\/+/, '');
  const service = params['interface'] ?? path;
  if (service === '' || params['side'] === 'consumer') return undefined;
  return {
    service,
    level: 'interface',
    group: params['group'] ?? '',
    version: params['version'] ?? '',
    address: hostPort.address,
    port: hostPort.port,
    params,
    origin,
  };
}

/**
 * Parses one Dubbo 3 application-level instance record, the JSON a provider (or Spring Cloud) writes under
 * `/services/<application>/<instance>`: `address` (or `host`), `port`, and metadata in `payload.metadata` (Curator's
 * ServiceInstance, as Dubbo 3 registers in ZooKeeper) or `metadata` (etcd). Undefined when it is not such a record.
 */
export function parseInstanceRecord(
  application: string,
  json: string,
  origin: string,
): DubboProvider | undefined {
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof data !== 'object' || data === null) return undefined;
  const record = data as Record<string, unknown>;
  const address = record['address'] ?? record['host'];
  const port = typeof record['port'] === 'string' ? Number(record['port']) : record['port'];
  if (typeof address !== 'string' || address === '' || typeof port !== 'number' || !Number.isInteger(port))
    return undefined;
  const payload = record['payload'];
  const metadata =
    typeof payload === 'object' && payload !== null && 'metadata' in payload
      ? payload.metadata
      : record['metadata'];
  const params = stringEntries(metadata);
  return {
    service: application,
    level: 'application',
    group: params['group'] ?? '',
    version: params['version'] ?? '',
    address,
    port,
    params,
    origin,
  };
}

/** The string-valued entries of a JSON object (numbers and booleans as text); {} for anything else. */
function stringEntries(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return out;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v === 'string') out[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
  }
  return out;
}
