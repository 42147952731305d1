/**
 * The option table of `aeraki serve` (same {flag, env, default, parse} rows as render, see rows.ts). Aeraki's
 * environment names are kept where they exist: AERAKI_ISTIOD_ADDR, AERAKI_NAMESPACE (root namespace),
 * AERAKI_XDS_ADDR, AERAKI_XDS_PORT (`:15010`, `15010` or `host:port`), AERAKI_LOG_LEVEL (`all:info` or `info`),
 * POD_NAME. Every `<value>` option also accepts `--name=value`; `[bool]` switches accept `--x`, `--x=false`.
 * Sources, sinks and leader election here; the servers, logging and timings in serve-rows-server.ts.
 */
import { DEFAULT_ROOT_NAMESPACE } from '../src/model/constants.ts';
import {
  oneOf,
  parseAddress,
  parseBoolean,
  parseDurationMs,
  parsePositiveDurationMs,
  parseNamespace,
  parseRegistries,
  parseSpiffeId,
  parseTls,
  showAddress,
  splitList,
  text,
} from './parsers.ts';
import { FILE_LIMIT_ROWS } from './file-limit-rows.ts';
import { CLUSTER_DOMAIN_ROW, type RowTable } from './rows.ts';
import { CERT_ROWS } from './serve-rows-cert.ts';
import type { ServeFlags } from './serve-flags.ts';
import { SECURITY_ROWS } from './serve-rows-security.ts';
import { SERVER_ROWS } from './serve-rows-server.ts';

const SOURCE_ROWS = {
  configSource: {
    flag: '--config-source <source>',
    env: 'AERAKI_CONFIG_SOURCE',
    default: 'mcp',
    description: 'where Istio config comes from: mcp (istiod) | kube (Kubernetes API) | dir (--config-dir)',
    parse: oneOf('mcp', 'kube', 'dir'),
  },
  istiodAddress: {
    flag: '--istiod-address <host:port>',
    env: 'AERAKI_ISTIOD_ADDR',
    default: 'istiod.istio-system:15010',
    description: 'istiod MCP-over-xDS address',
    parse: text,
  },
  istiodTls: {
    flag: '--istiod-tls <mode>',
    env: 'AERAKI_ISTIOD_TLS',
    default: 'auto',
    description: 'TLS to istiod: auto (plaintext on port 15010) | true | false',
    parse: parseTls,
  },
  istiodRootCertFile: {
    flag: '--istiod-root-cert-file <file>',
    env: 'AERAKI_ISTIOD_ROOT_CERT',
    default: '',
    description: 'PEM root certificate to verify istiod (default: system roots)',
    parse: text,
  },
  istioApiVersion: {
    flag: '--istio-api-version <version>',
    env: 'AERAKI_ISTIO_API_VERSION',
    default: 'auto',
    description: 'networking.istio.io version to read: auto | v1 | v1alpha3',
    parse: oneOf('auto', 'v1', 'v1alpha3'),
  },
  istiodTokenFile: {
    flag: '--istiod-token-file <file>',
    env: 'AERAKI_ISTIOD_TOKEN_FILE',
    default: '',
    description: 'service account token file sent to istiod as a bearer token',
    parse: text,
  },
  revision: {
    flag: '--revision <rev>',
    env: 'AERAKI_REVISION',
    default: '',
    description: 'follow this istio.io/rev control plane (default revision when empty)',
    parse: text,
  },
  configDir: {
    flag: '--config-dir <dir>',
    env: 'AERAKI_CONFIG_DIR',
    default: '',
    description: 'directory of YAML/JSON config, watched (--config-source dir)',
    parse: text,
  },
  watchDebounceMs: {
    flag: '--watch-debounce <duration>',
    env: 'AERAKI_WATCH_DEBOUNCE',
    default: 200,
    description: 'quiet period before re-reading a changed --config-dir',
    parse: parseDurationMs,
  },
  ...FILE_LIMIT_ROWS,
  secretRefreshMs: {
    flag: '--secret-refresh-interval <duration>',
    env: 'AERAKI_SECRET_REFRESH_INTERVAL',
    default: 60_000,
    description:
      'how often the Secrets Redis auth names are read again (a rotated password reaches the filters)',
    parse: parsePositiveDurationMs,
  },
  output: {
    flag: '--output <sink>',
    env: 'AERAKI_OUTPUT',
    default: 'kube',
    description: 'where EnvoyFilters go: kube (Kubernetes API) | dir (--output-dir)',
    parse: oneOf('kube', 'dir'),
  },
  outputDir: {
    flag: '--output-dir <dir>',
    env: 'AERAKI_OUTPUT_DIR',
    default: '',
    description: 'directory the EnvoyFilters are written to (--output dir)',
    parse: text,
  },
  kubeconfig: {
    flag: '--kubeconfig <file>',
    env: 'KUBECONFIG',
    default: '',
    description: 'kubeconfig file (in-cluster configuration when absent)',
    parse: text,
  },
  rootNamespace: {
    flag: '--root-namespace <namespace>',
    env: 'AERAKI_NAMESPACE',
    default: DEFAULT_ROOT_NAMESPACE,
    description: 'Istio root namespace (mesh ConfigMap, Lease, filters)',
    parse: parseNamespace,
  },
  clusterDomain: CLUSTER_DOMAIN_ROW,
  namespaceScope: {
    flag: '--namespace-scope [bool]',
    env: 'AERAKI_ENABLE_ENVOY_FILTER_NS_SCOPE',
    default: false,
    description: "filters without exportTo go to their ServiceEntry's namespace",
    parse: parseBoolean,
  },
  leaderElect: {
    flag: '--leader-elect [bool]',
    env: 'AERAKI_LEADER_ELECT',
    default: undefined,
    description: 'elect one writer through a Lease (default: true with --output kube)',
    parse: parseBoolean,
  },
  podName: {
    flag: '--pod-name <name>',
    env: 'POD_NAME',
    default: '',
    description: 'leader election identity and MCP node name (default: the host name)',
    parse: text,
  },
  leaseDurationMs: {
    flag: '--lease-duration <duration>',
    env: 'AERAKI_LEASE_DURATION',
    default: 15_000,
    description: 'leader lease duration',
    parse: parseDurationMs,
  },
  renewDeadlineMs: {
    flag: '--renew-deadline <duration>',
    env: 'AERAKI_RENEW_DEADLINE',
    default: 10_000,
    description: 'a leader that cannot renew for this long stops writing',
    parse: parseDurationMs,
  },
  retryPeriodMs: {
    flag: '--retry-period <duration>',
    env: 'AERAKI_RETRY_PERIOD',
    default: 2_000,
    description: 'lease acquire/renew period',
    parse: parseDurationMs,
  },
  namespaceBootstrap: {
    flag: '--namespace-bootstrap [bool]',
    env: 'AERAKI_NAMESPACE_BOOTSTRAP',
    default: true,
    description: 'keep the sidecar bootstrap ConfigMap in injected namespaces (--output kube)',
    parse: parseBoolean,
  },
  allocateVips: {
    flag: '--allocate-vips [bool]',
    env: 'AERAKI_ALLOCATE_VIPS',
    default: undefined,
    description:
      'write a VIP from 240.240.0.0/16 into address-less ServiceEntries (default: true with --output kube)',
    parse: parseBoolean,
  },
  xdsServiceAddress: {
    flag: '--xds-service-address <host>',
    env: 'AERAKI_XDS_ADDR',
    default: '',
    description: 'address sidecars reach the RDS server at (default: aeraki.<root namespace>)',
    parse: text,
  },
} satisfies Partial<RowTable<ServeFlags>>;

/** The registry bridges (README "Registries"). */
const REGISTRY_ROWS = {
  registries: {
    flag: '--registry <name=url>',
    env: 'AERAKI_REGISTRIES',
    default: [],
    description:
      'bridge a Dubbo registry into ServiceEntries, e.g. zk=zookeeper://zk:2181/dubbo (repeatable; env: comma-separated)',
    parse: parseRegistries,
  },
  registryOutput: {
    flag: '--registry-output <mode>',
    env: 'AERAKI_REGISTRY_OUTPUT',
    default: 'kube',
    description:
      'registry ServiceEntries to istiod: kube (written by the leader) | mcp (served on --mcp-server-address)',
    parse: oneOf('kube', 'mcp'),
  },
  mcpServerAddress: {
    flag: '--mcp-server-address <host:port>',
    env: 'AERAKI_MCP_SERVER_ADDRESS',
    default: { host: '0.0.0.0', port: 15011 },
    description: 'ServiceEntry MCP server listen address (--registry-output mcp)',
    parse: parseAddress,
    format: showAddress,
  },
  mcpServerInsecure: {
    flag: '--mcp-server-insecure [bool]',
    env: 'AERAKI_MCP_SERVER_INSECURE',
    default: false,
    description:
      'serve the MCP server in plaintext without verifying clients (stock istiod reads xds:// sources so)',
    parse: parseBoolean,
  },
  mcpServerAllowedIdentities: {
    flag: '--mcp-server-allowed-identities <ids>',
    env: 'AERAKI_MCP_SERVER_ALLOWED_IDENTITIES',
    default: [],
    description:
      "comma-separated SPIFFE ids that may read the MCP server (default: istiod's, spiffe://<trust domain>/ns/<root namespace>/sa/istiod[-<revision>])",
    parse: splitList(parseSpiffeId),
  },
} satisfies Partial<RowTable<ServeFlags>>;

export const SERVE_ROWS: RowTable<ServeFlags> = {
  ...SOURCE_ROWS,
  ...REGISTRY_ROWS,
  ...SERVER_ROWS,
  ...CERT_ROWS,
  ...SECURITY_ROWS,
};
