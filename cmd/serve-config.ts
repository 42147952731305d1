/**
 * The option table of `aeraki serve` (same {flag, env, default, parse} rows as render, see config.ts). Aeraki's
 * environment names are kept where they exist: AERAKI_ISTIOD_ADDR, AERAKI_NAMESPACE (root namespace),
 * AERAKI_XDS_ADDR, AERAKI_XDS_PORT (`:15010`, `15010` or `host:port`), AERAKI_LOG_LEVEL (`all:info` or `info`),
 * POD_NAME. Every `<value>` option also accepts `--name=value`; `[bool]` switches accept `--x`, `--x=false`.
 */
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { needsKube, type ServeOptions } from '../src/app.ts';
import { DEFAULT_ROOT_NAMESPACE } from '../src/model/constants.ts';
import { parseListenAddress } from '../src/ops/address.ts';
import { ConfigError, parseBoolean, parseNamespace, resolveConfig, type ConfigRow } from './config.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- heterogeneous table, typed per row
type AnyRow = ConfigRow<any>;

function oneOf<T extends string>(...values: T[]): (raw: string) => T {
  return (raw) => {
    if ((values as string[]).includes(raw)) return raw as T;
    throw new InvalidArgumentError(`expected ${values.join(' | ')}, got "${raw}"`);
  };
}

export function parseAddress(raw: string): string {
  const parsed = parseListenAddress(raw);
  if (!parsed.ok) throw new InvalidArgumentError(parsed.message);
  return raw;
}

/** Aeraki's AERAKI_XDS_PORT is `:15010`; a bare port and `host:port` are accepted too. */
export function parseRdsAddress(raw: string): string {
  const text = /^\d+$/.test(raw) ? `0.0.0.0:${raw}` : raw.startsWith(':') ? `0.0.0.0${raw}` : raw;
  return parseAddress(text);
}

/** Milliseconds: `250`, `250ms`, `2s`, `1m`. */
export function parseDurationMs(raw: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(raw.trim());
  if (!m) throw new InvalidArgumentError(`expected a duration such as 500, 500ms, 2s or 1m, got "${raw}"`);
  const n = Number(m[1]);
  const ms = m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60_000 : n;
  return Math.round(ms);
}

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
type Level = (typeof LEVELS)[number];

/** `info`, or Aeraki's `scope:level,...` (the `all`/`default` scope counts; fatal/none mean error). */
export function parseLogLevel(raw: string): Level {
  const entries = raw.split(',').map((e) => e.trim());
  let level: string | undefined;
  for (const e of entries) {
    const [scope, value] = e.includes(':') ? e.split(':', 2) : ['all', e];
    if (scope === 'all' || scope === 'default') level = value;
  }
  if (level === 'fatal' || level === 'none') level = 'error';
  if (level === 'warning') level = 'warn';
  if (level !== undefined && (LEVELS as readonly string[]).includes(level)) return level as Level;
  throw new InvalidArgumentError(`expected debug | info | warn | error (or all:<level>), got "${raw}"`);
}

function parseTls(raw: string): boolean | 'auto' {
  return raw === 'auto' ? 'auto' : parseBoolean(raw);
}

const text = (raw: string) => raw;

const row = <T>(r: ConfigRow<T>): AnyRow => r;

export const SERVE_ROWS: readonly AnyRow[] = [
  row({
    key: 'configSource',
    flag: '--config-source <source>',
    env: 'AERAKI_CONFIG_SOURCE',
    default: 'mcp',
    description: 'where Istio config comes from: mcp (istiod) | kube (Kubernetes API) | dir (--config-dir)',
    parse: oneOf('mcp', 'kube', 'dir'),
  }),
  row({
    key: 'istiodAddress',
    flag: '--istiod-address <host:port>',
    env: 'AERAKI_ISTIOD_ADDR',
    default: 'istiod.istio-system:15010',
    description: 'istiod MCP-over-xDS address',
    parse: text,
  }),
  row<boolean | 'auto'>({
    key: 'istiodTls',
    flag: '--istiod-tls <mode>',
    env: 'AERAKI_ISTIOD_TLS',
    default: 'auto',
    description: 'TLS to istiod: auto (plaintext on port 15010) | true | false',
    parse: parseTls,
  }),
  row({
    key: 'istiodRootCertFile',
    flag: '--istiod-root-cert-file <file>',
    env: 'AERAKI_ISTIOD_ROOT_CERT',
    default: '',
    description: 'PEM root certificate to verify istiod (default: system roots)',
    parse: text,
  }),
  row({
    key: 'istioApiVersion',
    flag: '--istio-api-version <version>',
    env: 'AERAKI_ISTIO_API_VERSION',
    default: 'auto',
    description: 'networking.istio.io version to read: auto | v1 | v1alpha3',
    parse: oneOf('auto', 'v1', 'v1alpha3'),
  }),
  row({
    key: 'istiodTokenFile',
    flag: '--istiod-token-file <file>',
    env: 'AERAKI_ISTIOD_TOKEN_FILE',
    default: '',
    description: 'service account token file sent to istiod as a bearer token',
    parse: text,
  }),
  row({
    key: 'revision',
    flag: '--revision <rev>',
    env: 'AERAKI_REVISION',
    default: '',
    description: 'follow this istio.io/rev control plane (default revision when empty)',
    parse: text,
  }),
  row({
    key: 'configDir',
    flag: '--config-dir <dir>',
    env: 'AERAKI_CONFIG_DIR',
    default: '',
    description: 'directory of YAML/JSON config, watched (--config-source dir)',
    parse: text,
  }),
  row({
    key: 'watchDebounceMs',
    flag: '--watch-debounce <duration>',
    env: 'AERAKI_WATCH_DEBOUNCE',
    default: 200,
    description: 'quiet period before re-reading a changed --config-dir',
    parse: parseDurationMs,
  }),
  row({
    key: 'output',
    flag: '--output <sink>',
    env: 'AERAKI_OUTPUT',
    default: 'kube',
    description: 'where EnvoyFilters go: kube (Kubernetes API) | dir (--output-dir)',
    parse: oneOf('kube', 'dir'),
  }),
  row({
    key: 'outputDir',
    flag: '--output-dir <dir>',
    env: 'AERAKI_OUTPUT_DIR',
    default: '',
    description: 'directory the EnvoyFilters are written to (--output dir)',
    parse: text,
  }),
  row({
    key: 'kubeconfig',
    flag: '--kubeconfig <file>',
    env: 'KUBECONFIG',
    default: '',
    description: 'kubeconfig file (in-cluster configuration when absent)',
    parse: text,
  }),
  row({
    key: 'rootNamespace',
    flag: '--root-namespace <namespace>',
    env: 'AERAKI_NAMESPACE',
    default: DEFAULT_ROOT_NAMESPACE,
    description: 'Istio root namespace (mesh ConfigMap, Lease, filters)',
    parse: parseNamespace,
  }),
  row({
    key: 'namespaceScope',
    flag: '--namespace-scope [bool]',
    env: 'AERAKI_ENABLE_ENVOY_FILTER_NS_SCOPE',
    default: false,
    description: "filters without exportTo go to their ServiceEntry's namespace",
    parse: parseBoolean,
  }),
  row({
    key: 'leaderElect',
    flag: '--leader-elect [bool]',
    env: 'AERAKI_LEADER_ELECT',
    default: undefined,
    description: 'elect one writer through a Lease (default: true with --output kube)',
    parse: parseBoolean,
  }),
  row({
    key: 'podName',
    flag: '--pod-name <name>',
    env: 'POD_NAME',
    default: '',
    description: 'leader election identity and MCP node name (default: the host name)',
    parse: text,
  }),
  row({
    key: 'leaseDurationMs',
    flag: '--lease-duration <duration>',
    env: 'AERAKI_LEASE_DURATION',
    default: 15_000,
    description: 'leader lease duration',
    parse: parseDurationMs,
  }),
  row({
    key: 'renewDeadlineMs',
    flag: '--renew-deadline <duration>',
    env: 'AERAKI_RENEW_DEADLINE',
    default: 10_000,
    description: 'a leader that cannot renew for this long stops writing',
    parse: parseDurationMs,
  }),
  row({
    key: 'retryPeriodMs',
    flag: '--retry-period <duration>',
    env: 'AERAKI_RETRY_PERIOD',
    default: 2_000,
    description: 'lease acquire/renew period',
    parse: parseDurationMs,
  }),
  row({
    key: 'namespaceBootstrap',
    flag: '--namespace-bootstrap [bool]',
    env: 'AERAKI_NAMESPACE_BOOTSTRAP',
    default: true,
    description: 'keep the sidecar bootstrap ConfigMap in injected namespaces (--output kube)',
    parse: parseBoolean,
  }),
  row({
    key: 'xdsServiceAddress',
    flag: '--xds-service-address <host>',
    env: 'AERAKI_XDS_ADDR',
    default: '',
    description: 'address sidecars reach the RDS server at (default: aeraki.<root namespace>)',
    parse: text,
  }),
  row({
    key: 'rdsAddress',
    flag: '--rds-address <host:port>',
    env: 'AERAKI_XDS_PORT',
    default: '0.0.0.0:15010',
    description: 'RDS (gRPC) listen address',
    parse: parseRdsAddress,
  }),
  row({
    key: 'tlsCertFile',
    flag: '--tls-cert-file <file>',
    env: 'AERAKI_TLS_CERT_FILE',
    default: '',
    description: 'RDS server certificate (PEM)',
    parse: text,
  }),
  row({
    key: 'tlsKeyFile',
    flag: '--tls-key-file <file>',
    env: 'AERAKI_TLS_KEY_FILE',
    default: '',
    description: 'RDS server key (PEM)',
    parse: text,
  }),
  row({
    key: 'clientCaFile',
    flag: '--client-ca-file <file>',
    env: 'AERAKI_CLIENT_CA_FILE',
    default: '',
    description: 'CA that RDS client certificates must chain to (the mesh root)',
    parse: text,
  }),
  row({
    key: 'rdsInsecure',
    flag: '--rds-insecure [bool]',
    env: 'AERAKI_RDS_INSECURE',
    default: false,
    description: 'serve RDS without TLS (development only)',
    parse: parseBoolean,
  }),
  row({
    key: 'devCertsDir',
    flag: '--dev-certs <dir>',
    env: 'AERAKI_DEV_CERTS',
    default: '',
    description: 'serve RDS with development certificates from <dir>, generated when missing',
    parse: text,
  }),
  row({
    key: 'httpAddress',
    flag: '--http-address <host:port>',
    env: 'AERAKI_HTTP_ADDRESS',
    default: '0.0.0.0:8080',
    description: 'admin server: /healthz /readyz /metrics /debug/*',
    parse: parseAddress,
  }),
  row({
    key: 'logLevel',
    flag: '--log-level <level>',
    env: 'AERAKI_LOG_LEVEL',
    default: 'info',
    description: 'debug | info | warn | error (Aeraki form all:<level> accepted)',
    parse: parseLogLevel,
  }),
  row({
    key: 'logFormat',
    flag: '--log-format <format>',
    env: 'AERAKI_LOG_FORMAT',
    default: 'json',
    description: 'json | text',
    parse: oneOf('json', 'text'),
  }),
  row({
    key: 'debounceAfterMs',
    flag: '--debounce-after <duration>',
    env: 'AERAKI_DEBOUNCE_AFTER',
    default: 1000,
    description: 'EnvoyFilter reconcile: quiet period after the last change',
    parse: parseDurationMs,
  }),
  row({
    key: 'debounceMaxMs',
    flag: '--debounce-max <duration>',
    env: 'AERAKI_DEBOUNCE_MAX',
    default: 10_000,
    description: 'EnvoyFilter reconcile: maximum delay after the first change',
    parse: parseDurationMs,
  }),
  row({
    key: 'rdsDebounceAfterMs',
    flag: '--rds-debounce-after <duration>',
    env: 'AERAKI_RDS_DEBOUNCE_AFTER',
    default: 100,
    description: 'RDS route rebuild: quiet period',
    parse: parseDurationMs,
  }),
  row({
    key: 'rdsDebounceMaxMs',
    flag: '--rds-debounce-max <duration>',
    env: 'AERAKI_RDS_DEBOUNCE_MAX',
    default: 1000,
    description: 'RDS route rebuild: maximum delay',
    parse: parseDurationMs,
  }),
  row({
    key: 'resyncMs',
    flag: '--resync-period <duration>',
    env: 'AERAKI_RESYNC_PERIOD',
    default: 300_000,
    description: 'periodic full reconcile (0 disables)',
    parse: parseDurationMs,
  }),
];

/** The validated, frozen options of `aeraki serve`; cross-field problems are ConfigErrors. */
export function serveConfig(
  command: Command,
  env: Readonly<Record<string, string | undefined>>,
  version: string,
): ServeOptions {
  const c = resolveConfig(SERVE_ROWS, command, env) as unknown as Omit<ServeOptions, 'leaderElect'> & {
    leaderElect: boolean | undefined;
  };
  const problems: string[] = [];
  if (c.configSource === 'dir' && c.configDir === '') problems.push('--config-source dir needs --config-dir');
  if (c.output === 'dir' && c.outputDir === '') problems.push('--output dir needs --output-dir');
  if (c.leaderElect === true && c.output !== 'kube') {
    problems.push('--leader-elect needs --output kube (the Lease lives in the Kubernetes API)');
  }
  const tlsFiles = [c.tlsCertFile, c.tlsKeyFile, c.clientCaFile];
  if (!c.rdsInsecure && c.devCertsDir === '' && tlsFiles.some((f) => f === '')) {
    problems.push(
      'RDS needs --tls-cert-file, --tls-key-file and --client-ca-file (or --dev-certs <dir>, or --rds-insecure)',
    );
  }
  if (needsKube(c) && c.kubeconfig === '' && !env['KUBERNETES_SERVICE_HOST']) {
    problems.push(
      `--config-source ${c.configSource} with --output ${c.output} needs the Kubernetes API: pass --kubeconfig (or KUBECONFIG) outside a cluster`,
    );
  }
  const files: [string, string][] = [
    ['--config-dir', c.configDir],
    ['--kubeconfig', c.kubeconfig],
    ['--istiod-root-cert-file', c.istiodRootCertFile],
    ['--istiod-token-file', c.istiodTokenFile],
    ...(c.rdsInsecure || c.devCertsDir !== ''
      ? []
      : ([
          ['--tls-cert-file', c.tlsCertFile],
          ['--tls-key-file', c.tlsKeyFile],
          ['--client-ca-file', c.clientCaFile],
        ] as [string, string][])),
  ];
  for (const [flag, file] of files) {
    if (file !== '' && !existsSync(file)) problems.push(`${flag} ${file}: no such file or directory`);
  }
  if (c.renewDeadlineMs >= c.leaseDurationMs)
    problems.push('--renew-deadline must be shorter than --lease-duration');
  if (c.retryPeriodMs <= 0) problems.push('--retry-period must be positive');
  if (problems.length > 0) throw new ConfigError(problems.join('; '));
  return Object.freeze({
    ...c,
    leaderElect: c.leaderElect ?? c.output === 'kube',
    namespaceBootstrap: c.namespaceBootstrap && c.output === 'kube',
    podName: c.podName || hostname(),
    xdsServiceAddress: c.xdsServiceAddress || `aeraki.${c.rootNamespace}`,
    version,
  });
}
