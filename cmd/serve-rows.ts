/**
 * The option table of `aeraki serve` (same {flag, env, default, parse} rows as render, see rows.ts), assembled from
 * one row file per part of ServeOptions (serve-rows-<part>.ts), and how the filled table nests into ServeOptions.
 * Aeraki's environment names are kept where they exist: AERAKI_ISTIOD_ADDR, AERAKI_NAMESPACE (root namespace),
 * AERAKI_XDS_ADDR, AERAKI_XDS_PORT (`:15010`, `15010` or `host:port`), AERAKI_LOG_LEVEL (`all:info` or `info`),
 * POD_NAME. Every `<value>` option also accepts `--name=value`; `[bool]` switches accept `--x`, `--x=false`.
 */
import type { ServeOptions } from '../src/app/options.ts';
import type { RowTable } from './rows.ts';
import type { ServeFlags, ServeValues } from './serve-flags.ts';
import { ADMIN_ROWS, adminOptions } from './serve-rows-admin.ts';
import { BOOTSTRAP_ROWS, bootstrapOptions } from './serve-rows-bootstrap.ts';
import { IDENTITY_ROWS, identityOptions } from './serve-rows-identity.ts';
import { KUBE_ROWS, kubeOptions } from './serve-rows-kube.ts';
import { LEADER_ROWS, leaderOptions } from './serve-rows-leader.ts';
import { handshakeOptions, httpLimitOptions, LISTENER_ROWS } from './serve-rows-listeners.ts';
import { LOGGING_ROWS, loggingOptions } from './serve-rows-logging.ts';
import { MESH_ROWS, meshOptions } from './serve-rows-mesh.ts';
import { OUTPUT_ROWS, outputOptions, reconcileOptions } from './serve-rows-output.ts';
import { PROXY_STATUS_ROWS, proxyStatusOptions } from './serve-rows-proxy-status.ts';
import { RDS_ROWS, rdsOptions } from './serve-rows-rds.ts';
import { REGISTRY_ROWS, registryOptions } from './serve-rows-registries.ts';
import { SOURCE_ROWS, sourceOptions } from './serve-rows-source.ts';
import { VIP_ROWS, vipOptions } from './serve-rows-vip.ts';
import { WAYPOINT_ROWS, waypointOptions } from './serve-rows-waypoint.ts';
import { WEBHOOK_ROWS, webhookOptions } from './serve-rows-webhook.ts';

const ROWS: RowTable<ServeFlags> = {
  ...MESH_ROWS,
  ...SOURCE_ROWS,
  ...OUTPUT_ROWS,
  ...KUBE_ROWS,
  ...LEADER_ROWS,
  ...BOOTSTRAP_ROWS,
  ...VIP_ROWS,
  ...REGISTRY_ROWS,
  ...RDS_ROWS,
  ...IDENTITY_ROWS,
  ...WEBHOOK_ROWS,
  ...ADMIN_ROWS,
  ...LISTENER_ROWS,
  ...LOGGING_ROWS,
  ...PROXY_STATUS_ROWS,
  ...WAYPOINT_ROWS,
};

/** The order `--help` (and the README's table) lists the options in: every key of ServeFlags once. */
const HELP_ORDER = [
  'configSource',
  'istiodAddress',
  'istiodTls',
  'istiodRootCertFile',
  'istioApiVersion',
  'istiodTokenFile',
  'revision',
  'configDir',
  'watchDebounceMs',
  'maxFileBytes',
  'maxFileDocuments',
  'maxYamlAliasNodes',
  'dirStateFile',
  'secretRefreshMs',
  'proxyStatusIntervalMs',
  'output',
  'outputDir',
  'kubeconfig',
  'rootNamespace',
  'clusterDomain',
  'namespaceScope',
  'waypointFilters',
  'metaProtocolImages',
  'waypointImage',
  'leaderElect',
  'podName',
  'leaseDurationMs',
  'renewDeadlineMs',
  'retryPeriodMs',
  'namespaceBootstrap',
  'allocateVips',
  'xdsServiceAddress',
  'registries',
  'registryOutput',
  'mcpServerAddress',
  'mcpServerInsecure',
  'mcpServerAllowedIdentities',
  'rdsAddress',
  'tlsCertFile',
  'tlsKeyFile',
  'clientCaFile',
  'rdsInsecure',
  'devCertsDir',
  'webhookAddress',
  'webhookCertFile',
  'webhookKeyFile',
  'httpAddress',
  'logLevel',
  'logFormat',
  'debounceAfterMs',
  'debounceMaxMs',
  'rdsDebounceAfterMs',
  'rdsDebounceMaxMs',
  'resyncMs',
  'kubeApiQps',
  'kubeApiBurst',
  'certProvider',
  'caAddress',
  'caRootCertFile',
  'caTokenFile',
  'caServerName',
  'podNamespace',
  'serviceAccount',
  'certTtlMs',
  'trustDomain',
  'trustDomainAliases',
  'rdsAllowedNamespaces',
  'debugEndpoints',
  'debugAddress',
  'rdsMaxReceiveBytes',
  'rdsMaxStreamsPerConnection',
  'rdsMinPingIntervalMs',
  'rdsMaxPingStrikes',
  'rdsMaxInvalidRequests',
  'rdsMaxConnectionsPerIdentity',
  'rdsIdleStreamTimeoutMs',
  'rdsMaxRouteNameBytes',
  'rdsMaxRouteNamesPerStream',
  'rdsMaxRouteNameBytesPerConnection',
  'rdsMaxRouteNameBytesPerIdentity',
  'rdsMaxInFlightBytesPerIdentity',
  'tlsHandshakeTimeoutMs',
  'tlsMaxPendingHandshakes',
  'tlsMaxPendingHandshakesPerSource',
  'httpHeadersTimeoutMs',
  'httpRequestTimeoutMs',
] as const satisfies readonly (keyof ServeFlags)[];

/** A key of ServeFlags HELP_ORDER leaves out fails to compile here. */
const everyKeyListed: Exclude<keyof ServeFlags, (typeof HELP_ORDER)[number]> extends never ? true : never =
  true;
void everyKeyListed;

export const SERVE_ROWS: RowTable<ServeFlags> = Object.fromEntries(
  HELP_ORDER.map((key) => [key, ROWS[key]]),
) as unknown as RowTable<ServeFlags>;

/** The filled table nested into ServeOptions: each part's object from its own rows. */
export function serveOptionsOf(v: ServeValues): ServeOptions {
  return {
    mesh: meshOptions(v),
    podName: v.podName,
    source: sourceOptions(v),
    output: outputOptions(v),
    reconcile: reconcileOptions(v),
    kube: kubeOptions(v),
    leader: leaderOptions(v, v.leaderElect),
    bootstrap: bootstrapOptions(v),
    vip: vipOptions(v.allocateVips),
    rds: rdsOptions(v),
    identity: identityOptions(v),
    registries: registryOptions(v),
    webhook: webhookOptions(v),
    admin: adminOptions(v),
    handshake: handshakeOptions(v),
    httpLimits: httpLimitOptions(v),
    logging: loggingOptions(v),
    proxyStatus: proxyStatusOptions(v),
    waypoint: waypointOptions(v),
    version: v.version,
  };
}
