// The Nacos watcher's settings, read from the `nacos://host:port?...` URL parameters of its RegistrySpec.
import { parseDurationNanos } from '../../model/parse/duration.ts';
import type { RegistrySpec } from '../../model/registry-bridge.ts';
import type { Logger } from '../../util/logger.ts';

export interface NacosWatcherSettings {
  /** `namespace=` (comma-separated); default `public`. */
  readonly namespaces: readonly string[];
  /** `groups=` or `group=` (comma-separated); default `DEFAULT_GROUP`. */
  readonly groups: readonly string[];
  /** `api=auto|v1|v3`; auto probes once for the Nacos 3 API and falls back to v1. */
  readonly api: 'auto' | 'v1' | 'v3';
  /** `pageSize=` of the service list, 1..1000; default 100. */
  readonly pageSize: number;
  /** `contextPath=`; default `/nacos`. */
  readonly contextPath: string;
  /** `scheme=http|https`; default http. */
  readonly scheme: 'http' | 'https';
  /** `pollInterval=<duration>` (`500ms`, `10s`; at least 100 ms); undefined: the watcher's default. */
  readonly pollIntervalMs?: number;
  /** `username=` and `password=` (both or neither): log in (Nacos' default auth). */
  readonly credentials?: { readonly username: string; readonly password: string };
}

function list(value: string | undefined, fallback: string): string[] {
  const items = (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return items.length > 0 ? [...new Set(items)] : [fallback];
}

/** Reads the settings; a bad value is a warning naming the parameter, and its default applies. */
export function nacosSettings(spec: RegistrySpec, logger: Logger): NacosWatcherSettings {
  const p = spec.params;
  const warn = (param: string, value: string, used: unknown) =>
    logger.warn('nacos: invalid URL parameter, using the default', {
      registry: spec.name,
      param,
      value,
      used,
    });
  let api: NacosWatcherSettings['api'] = 'auto';
  const rawApi = p['api'];
  if (rawApi === 'v1' || rawApi === 'v3' || rawApi === 'auto') api = rawApi;
  else if (rawApi !== undefined) warn('api', rawApi, api);
  let pageSize = 100;
  const rawPage = p['pageSize'];
  if (rawPage !== undefined) {
    const n = Number(rawPage);
    if (Number.isInteger(n) && n >= 1 && n <= 1000) pageSize = n;
    else warn('pageSize', rawPage, pageSize);
  }
  let scheme: NacosWatcherSettings['scheme'] = 'http';
  const rawScheme = p['scheme'];
  if (rawScheme === 'http' || rawScheme === 'https') scheme = rawScheme;
  else if (rawScheme !== undefined) warn('scheme', rawScheme, scheme);
  let pollIntervalMs: number | undefined;
  const rawPoll = p['pollInterval'];
  if (rawPoll !== undefined) {
    const d = parseDurationNanos(
      rawPoll,
      { kind: 'Registry', namespace: '', name: spec.name },
      'pollInterval',
    );
    if (d.ok && d.value >= 100_000_000n) pollIntervalMs = Number(d.value / 1_000_000n);
    else warn('pollInterval', rawPoll, 'the default');
  }
  const contextPath = '/' + (p['contextPath'] ?? 'nacos').replace(/^\/+|\/+$/g, '');
  const { username, password } = p;
  if ((username === undefined) !== (password === undefined)) {
    logger.warn('nacos: username and password go together; not logging in', { registry: spec.name });
  }
  const credentials =
    username !== undefined && password !== undefined ? { credentials: { username, password } } : {};
  return {
    ...credentials,
    ...(pollIntervalMs !== undefined ? { pollIntervalMs } : {}),
    namespaces: list(p['namespace'], 'public'),
    groups: list(p['groups'] ?? p['group'], 'DEFAULT_GROUP'),
    api,
    pageSize,
    contextPath: contextPath === '/' ? '' : contextPath,
    scheme,
  };
}
