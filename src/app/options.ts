/**
 * The validated options of `aeraki serve` (cmd/serve-config.ts builds them from flags, environment and defaults).
 * Durations are milliseconds; listen addresses are parsed (src/util/address.ts).
 */
import type { IstioApiMode } from '../controller/mcp/index.ts';
import type { RegistrySpec } from '../model/registry-bridge.ts';
import type { CertProviderKind } from '../identity/types.ts';
import type { ListenAddress } from '../util/address.ts';
import type { LogFormat, LogLevel } from '../util/logging.ts';
import type { RdsLimits } from '../xds-rds/limits.ts';
import type { HandshakeLimits } from '../util/handshake-guard.ts';
import type { PeerPolicy } from '../util/peer-policy.ts';

export type ConfigSourceKind = 'mcp' | 'kube' | 'dir';
export type OutputKind = 'kube' | 'dir';
/** How registry ServiceEntries reach istiod: written to the API server, or served over MCP. */
export type RegistryOutputKind = 'kube' | 'mcp';

export interface ServeOptions {
  /** Where Istio config comes from; with `mcp` the controller's CRDs and the mesh ConfigMap still come from
   *  the Kubernetes API, with `dir` everything comes from `configDir`. */
  readonly configSource: ConfigSourceKind;
  readonly istiodAddress: string;
  readonly istiodTls: boolean | 'auto';
  /** PEM with the mesh root certificate used to verify istiod (TLS); '' = system roots. */
  readonly istiodRootCertFile: string;
  /** Service account token file sent to istiod as a bearer token; '' = none. */
  readonly istiodTokenFile: string;
  readonly istioApiVersion: IstioApiMode;
  /** `istio.io/rev` of the control plane this controller follows ('' = default revision). */
  readonly revision: string;
  /** Directory source (`--config-source dir`), watched for changes. */
  readonly configDir: string;
  /** Debounce of the directory watch (quiet period, ms). */
  readonly watchDebounceMs: number;
  /** What one file of the directory may cost (default DEFAULT_FILE_LIMITS, src/controller/config-file.ts). */
  readonly maxFileBytes?: number;
  readonly maxFileDocuments?: number;
  readonly maxYamlAliasNodes?: number;

  readonly output: OutputKind;
  readonly outputDir: string;
  /** Path of a kubeconfig; '' = in-cluster configuration. */
  readonly kubeconfig: string;
  readonly rootNamespace: string;
  /** `--cluster-domain`: Kubernetes Service hosts are `<name>.<ns>.svc.<clusterDomain>`; short hosts are completed
   *  with it. */
  readonly clusterDomain: string;
  readonly namespaceScope: boolean;
  readonly leaderElect: boolean;
  readonly podName: string;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  /** Maintain the sidecar bootstrap ConfigMap in injected namespaces (needs the Kubernetes API). */
  readonly namespaceBootstrap: boolean;
  /** Give address-less ServiceEntries of the API server a VIP from 240.240.0.0/16 (needs the Kubernetes API). */
  readonly allocateVips: boolean;
  /** Address MetaProtocol sidecars use to reach the RDS server (the controller's Service; `AERAKI_XDS_ADDR`). */
  readonly xdsServiceAddress: string;

  readonly rdsAddress: ListenAddress;
  readonly tlsCertFile: string;
  readonly tlsKeyFile: string;
  readonly clientCaFile: string;
  readonly rdsInsecure: boolean;
  /** Generate development certificates into this directory when they are missing, and serve with them. */
  readonly devCertsDir: string;

  /** `--cert-provider`; undefined = chosen by the other options (certProviderOf). */
  readonly certProvider: CertProviderKind | undefined;
  /** Istio's CA (`host:port`); cmd/ fills in the istiod host of `istiodAddress` on port 15012. */
  readonly caAddress: string;
  /** The mesh root (the `istio-ca-root-cert` ConfigMap): verifies the CA, and RDS clients without `clientCaFile`. */
  readonly caRootCertFile: string;
  /** Projected service account token (audience `istio-ca`), sent to the CA as a bearer token. */
  readonly caTokenFile: string;
  /** The name the CA's certificate is verified for. */
  readonly caServerName: string;
  /** Namespace and service account of the identity asked for ('' namespace = the root namespace). */
  readonly podNamespace: string;
  readonly serviceAccount: string;
  /** Lifetime asked for each certificate from the CA, ms. */
  readonly certTtlMs: number;

  /** The validating webhook's HTTPS listen address (`/validate`); undefined = no webhook. */
  readonly webhookAddress: ListenAddress | undefined;
  /** The webhook's serving certificate and key (PEM, watched and reloaded); unused with `devCertsDir`. */
  readonly webhookCertFile: string;
  readonly webhookKeyFile: string;

  readonly httpAddress: ListenAddress;
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;

  /** EnvoyFilter reconciler debounce: quiet period and maximum delay. */
  readonly debounceAfterMs: number;
  readonly debounceMaxMs: number;
  /** RDS route rebuild debounce: quiet period and maximum delay. */
  readonly rdsDebounceAfterMs: number;
  readonly rdsDebounceMaxMs: number;
  /** Periodic full reconcile (0 disables). */
  readonly resyncMs: number;
  /** `--secret-refresh-interval`: how often the Secrets Redis auth names are read again. */
  readonly secretRefreshMs: number;
  /** `--registry NAME=URL` (repeatable; `AERAKI_REGISTRIES`): the registries bridged into ServiceEntries. */
  readonly registries: readonly RegistrySpec[];
  /** `kube`: the leader writes them to the API server; `mcp`: served over MCP on `mcpServerAddress`. */
  readonly registryOutput: RegistryOutputKind;
  /** Listen address of the ServiceEntry MCP server (`--registry-output mcp`). */
  readonly mcpServerAddress: ListenAddress;
  /** Serve the MCP server in plaintext, without verifying clients (stock istiod dials `xds://` sources so). */
  readonly mcpServerInsecure: boolean;
  /** SPIFFE ids that may read the MCP server; empty = istiod's (mcpPeers). */
  readonly mcpServerAllowedIdentities: readonly string[];
  /** RDS, MCP server and webhook: a connection must finish its handshake within this long (0: no limit). */
  readonly tlsHandshakeTimeoutMs: number;
  /** RDS, MCP server and webhook: connections in their handshake at once, per listener (0: no cap). */
  readonly tlsMaxPendingHandshakes: number;
  /** Client-side limit of writes to the API server, shared by every writer: tokens per second and bucket size. */
  readonly kubeApiQps: number;
  readonly kubeApiBurst: number;
  /** The value of `aeraki_build_info{version}`. */
  readonly version: string;

  /**
   * The mesh trust domain: the controller's identity is `spiffe://<trustDomain>/ns/<ns>/sa/<sa>`, and RDS clients
   * need a SPIFFE id in it (or in an alias).
   */
  readonly trustDomain: string;
  readonly trustDomainAliases: readonly string[];
  /** Namespaces whose workloads may read routes; empty = every namespace of the trust domain. */
  readonly rdsAllowedNamespaces: readonly string[];
  /** Serve `/debug/*` (on `debugAddress`, loopback by default); off = not served at all. */
  readonly debugEndpoints: boolean;
  readonly debugAddress: ListenAddress;
  /** RDS server limits (src/xds-rds/limits.ts). */
  readonly rdsMaxReceiveBytes: RdsLimits['maxReceiveBytes'];
  readonly rdsMaxStreamsPerConnection: RdsLimits['maxStreamsPerConnection'];
  readonly rdsMinPingIntervalMs: RdsLimits['minPingIntervalMs'];
  readonly rdsMaxPingStrikes: RdsLimits['maxPingStrikes'];
  readonly rdsMaxInvalidRequests: RdsLimits['maxInvalidRequestsPerConnection'];
  readonly rdsMaxConnectionsPerIdentity: RdsLimits['maxConnectionsPerIdentity'];
  readonly rdsIdleStreamTimeoutMs: RdsLimits['idleStreamTimeoutMs'];
  /** Admin and webhook HTTP servers: time to receive the headers, then the whole request. */
  readonly httpHeadersTimeoutMs: number;
  readonly httpRequestTimeoutMs: number;
}

/** Whether the Kubernetes API is needed at all (registries written to it need it whatever `output` is). */
export function needsKube(
  o: Pick<ServeOptions, 'configSource' | 'output'> &
    Partial<Pick<ServeOptions, 'registries' | 'registryOutput'>>,
): boolean {
  const registriesToKube = (o.registries?.length ?? 0) > 0 && o.registryOutput === 'kube';
  return o.configSource !== 'dir' || o.output === 'kube' || registriesToKube;
}

/** Whether the ServiceEntry MCP server runs and serves TLS. */
export function mcpServerTls(
  o: Partial<Pick<ServeOptions, 'registries' | 'registryOutput' | 'mcpServerInsecure'>>,
): boolean {
  return (o.registries?.length ?? 0) > 0 && o.registryOutput === 'mcp' && o.mcpServerInsecure !== true;
}

/**
 * The certificate provider in use: `--cert-provider` when given, else `files` with `--tls-cert-file`, `dev` with
 * `--dev-certs`, none with `--rds-insecure` unless the MCP server serves TLS (nothing needs a certificate),
 * `istiod` otherwise.
 */
export function certProviderOf(
  o: Pick<ServeOptions, 'certProvider' | 'tlsCertFile' | 'devCertsDir' | 'rdsInsecure'> &
    Partial<Pick<ServeOptions, 'registries' | 'registryOutput' | 'mcpServerInsecure'>>,
): CertProviderKind | undefined {
  if (o.certProvider) return o.certProvider;
  if (o.tlsCertFile !== '') return 'files';
  if (o.devCertsDir !== '') return 'dev';
  return o.rdsInsecure && !mcpServerTls(o) ? undefined : 'istiod';
}

/**
 * Who may read the MCP server (`--mcp-server-allowed-identities`, default istiod's service account in the root
 * namespace: `istiod`, or `istiod-<revision>` with `--revision`, as Istio's charts name it), in the trust domain.
 */
export function mcpPeers(o: ServeOptions): PeerPolicy {
  const istiod = `spiffe://${o.trustDomain}/ns/${o.rootNamespace}/sa/istiod${o.revision ? `-${o.revision}` : ''}`;
  return {
    trustDomain: o.trustDomain,
    trustDomainAliases: o.trustDomainAliases,
    allowedNamespaces: [],
    allowedIdentities: o.mcpServerAllowedIdentities.length > 0 ? o.mcpServerAllowedIdentities : [istiod],
  };
}

/** `--tls-handshake-timeout`, `--tls-max-pending-handshakes`: every TLS listener's. */
export function handshakeLimits(o: ServeOptions): HandshakeLimits {
  return { timeoutMs: o.tlsHandshakeTimeoutMs, maxPending: o.tlsMaxPendingHandshakes };
}

/** Who may read routes (`--trust-domain`, `--trust-domain-aliases`, `--rds-allowed-namespaces`). */
export function rdsPeers(o: ServeOptions): PeerPolicy {
  return {
    trustDomain: o.trustDomain,
    trustDomainAliases: o.trustDomainAliases,
    allowedNamespaces: o.rdsAllowedNamespaces,
  };
}

export function rdsLimits(o: ServeOptions): Partial<RdsLimits> {
  return {
    maxReceiveBytes: o.rdsMaxReceiveBytes,
    maxStreamsPerConnection: o.rdsMaxStreamsPerConnection,
    minPingIntervalMs: o.rdsMinPingIntervalMs,
    maxPingStrikes: o.rdsMaxPingStrikes,
    maxInvalidRequestsPerConnection: o.rdsMaxInvalidRequests,
    maxConnectionsPerIdentity: o.rdsMaxConnectionsPerIdentity,
    idleStreamTimeoutMs: o.rdsIdleStreamTimeoutMs,
  };
}
