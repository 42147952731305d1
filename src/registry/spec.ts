/**
 * `--registry NAME=URL` → RegistrySpec. URL forms:
 * - `zookeeper://zk-0.zk:2181,zk-1.zk:2181/dubbo` (default port 2181; the path is Dubbo's root node, default `/dubbo`)
 * - `etcd://etcd:2379/dubbo` (default port 2379; the path is the key prefix, default `/dubbo`)
 * - `nacos://nacos:8848?namespace=prod&groups=DEFAULT_GROUP` (default port 8848; no path)
 * Bridge options, as query parameters of any of them:
 * - `targetNamespace=<ns>`: namespace of the ServiceEntries (default: the root namespace; a provider's
 *   `aeraki_meta_app_namespace` parameter overrides it);
 * - `allow=<glob>[,<glob>...]`, `deny=...`: glob patterns (`*` any run of characters, `?` one) over service names;
 *   empty allow means all, deny wins; both may be repeated;
 * - `keepStaleWhenEmpty=true|false` (default false);
 * - `debounce=<duration>` (Go syntax: `500ms`, `2s`; default 500 ms, at most 5 s).
 * Every query parameter is also kept in `params` (registry-specific ones such as Nacos `namespace`, `groups`).
 */
import { isDns1123Label } from '../model/dns.ts';
import { parseDurationNanos } from '../model/parse/duration.ts';
import type { RegistrySpec } from '../model/registry-bridge.ts';
import { fail, issue, ok, type ConfigIssue, type ObjectRef, type Result } from '../model/result.ts';

export const DEFAULT_DEBOUNCE_MS = 500;
export const MAX_DEBOUNCE_MS = 5000;

const DEFAULT_PORTS: Readonly<Record<RegistrySpec['type'], number>> = {
  zookeeper: 2181,
  etcd: 2379,
  nacos: 8848,
};
const SCHEMES: Readonly<Record<string, RegistrySpec['type']>> = {
  zookeeper: 'zookeeper',
  zk: 'zookeeper',
  etcd: 'etcd',
  etcd3: 'etcd',
  nacos: 'nacos',
};

/** The object a registry issue names: `Registry <name>`. */
export function registryRef(name: string): ObjectRef {
  return { kind: 'Registry', namespace: '', name };
}

function splitServers(text: string, type: RegistrySpec['type'], bad: (m: string) => void): string[] {
  const out: string[] = [];
  for (const server of text.split(',')) {
    const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(server);
    if (!m || (m[2] !== undefined && (Number(m[2]) < 1 || Number(m[2]) > 65535))) {
      bad(`invalid server "${server}" (expected host or host:port)`);
      continue;
    }
    out.push(`${m[1]}:${m[2] ?? DEFAULT_PORTS[type]}`);
  }
  return out;
}

function listParam(query: URLSearchParams, key: string): string[] {
  return query
    .getAll(key)
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

function readOptions(query: URLSearchParams, bad: (path: string, m: string) => void, ref: ObjectRef) {
  const namespace = query.get('targetNamespace') ?? undefined;
  if (namespace !== undefined && !isDns1123Label(namespace))
    bad('targetNamespace', `"${namespace}" is not a valid namespace name`);
  const keep = query.get('keepStaleWhenEmpty') ?? 'false';
  if (keep !== 'true' && keep !== 'false') bad('keepStaleWhenEmpty', `expected true or false, got "${keep}"`);
  let debounceMs = DEFAULT_DEBOUNCE_MS;
  const debounce = query.get('debounce');
  if (debounce !== null) {
    const d = parseDurationNanos(debounce, ref, 'debounce');
    if (!d.ok) bad('debounce', `invalid duration "${debounce}" (expected e.g. "500ms", "2s")`);
    else if (d.value > BigInt(MAX_DEBOUNCE_MS) * 1_000_000n) bad('debounce', `${debounce} is above 5s`);
    else debounceMs = Number(d.value / 1_000_000n);
  }
  return {
    namespace,
    allow: listParam(query, 'allow'),
    deny: listParam(query, 'deny'),
    keepStaleWhenEmpty: keep === 'true',
    debounceMs,
  };
}

/** Parses `NAME=URL`; every problem is an issue naming the registry and the part of the URL. */
export function parseRegistrySpec(text: string): Result<RegistrySpec> {
  const eq = text.indexOf('=');
  const name = eq < 0 ? '' : text.slice(0, eq).trim();
  const ref = registryRef(name || text);
  const issues: ConfigIssue[] = [];
  const bad = (path: string, message: string) => issues.push(issue(ref, path, message));
  if (eq < 0) return fail([issue(ref, '', 'expected NAME=URL (e.g. zk=zookeeper://zk:2181/dubbo)')]);
  if (!isDns1123Label(name)) bad('name', `"${name}" is not a DNS-1123 label`);
  const url = text.slice(eq + 1).trim();
  const m = /^([a-z0-9]+):\/\/([^/?#]*)([^?#]*)(?:\?([^#]*))?$/.exec(url);
  if (!m)
    return fail([...issues, issue(ref, 'url', `"${url}" is not <type>://<servers>[/<path>][?<options>]`)]);
  const [, scheme = '', serverText = '', path = '', queryText = ''] = m;
  const type = SCHEMES[scheme];
  if (type === undefined) {
    return fail([
      ...issues,
      issue(ref, 'url', `unknown registry type "${scheme}" (zookeeper, etcd or nacos)`),
    ]);
  }
  const servers = serverText === '' ? [] : splitServers(serverText, type, (msg) => bad('url', msg));
  if (serverText === '') bad('url', 'no server given');
  const query = new URLSearchParams(queryText);
  const params: Record<string, string> = {};
  for (const [k, v] of query) params[k] = v;
  const options = readOptions(query, bad, ref);
  const trimmed = path.replace(/\/+$/, '');
  const root = type === 'nacos' ? trimmed : trimmed === '' ? '/dubbo' : trimmed;
  if (issues.length > 0) return fail(issues);
  return ok({ name, type, servers, root, params, ...options });
}

/**
 * Splits `AERAKI_REGISTRIES` (comma-separated `NAME=URL`s) into entries: a comma starts a new entry only when
 * `NAME=<scheme>://` follows it, so server lists and option lists keep their own commas.
 */
export function splitRegistryList(text: string): string[] {
  return text
    .split(/,(?=\s*[a-z0-9-]+=[a-z0-9]+:\/\/)/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
