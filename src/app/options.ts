/**
 * The validated options of `aeraki serve` (cmd/serve-config.ts builds them from flags, environment and defaults),
 * one object per part of startServe: each part receives its own object, and the few values several parts share
 * (the mesh's names, the replica's name, the listeners' limits) by name. Durations are milliseconds; listen
 * addresses are parsed (src/util/address.ts).
 */
import type { IstioApiMode } from '../controller/mcp/index.ts';
import type { RegistrySpec } from '../model/registry-bridge.ts';
import type { CertProviderKind } from '../identity/types.ts';
import type { ListenAddress } from '../util/address.ts';
import type { LogFormat, LogLevel } from '../util/logging.ts';
import type { RdsLimits } from '../xds-rds/limits.ts';
import type { HandshakeLimits } from '../util/handshake-guard.ts';
import type { HttpLimits } from '../util/http-limits.ts';
import type { PeerPolicy } from '../util/peer-policy.ts';
import { sourceOf, type ConfigSourceKind } from './source-list.ts';

export type { ConfigSourceKind };
export type OutputKind = 'kube' | 'dir';
/** How registry ServiceEntries reach istiod: written to the API server, or served over MCP. */
export type RegistryOutputKind = 'kube' | 'mcp';

/** The mesh's names, shared by several parts (each receives the ones it needs). */
export interface MeshOptions {
  readonly rootNamespace: string;
  /** `--cluster-domain`: Kubernetes Service hosts are `<name>.<ns>.svc.<clusterDomain>`; short hosts are completed
   *  with it. */
  readonly clusterDomain: string;
  /** `istio.io/rev` of the control plane this controller follows ('' = default revision). */
  readonly revision: string;
  readonly istioApiVersion: IstioApiMode;
  /**
   * The mesh trust domain: the controller's identity is `spiffe://<trustDomain>/ns/<ns>/sa/<sa>`, and RDS clients
   * need a SPIFFE id in it (or in an alias).
   */
  readonly trustDomain: string;
  readonly trustDomainAliases: readonly string[];
}

/** Where Istio config comes from (`--config-source` and what each source needs). */
export interface SourceOptions {
  /** With `mcp` the controller's CRDs and the mesh ConfigMap still come from the Kubernetes API, with `dir`
   *  everything comes from `dir`. */
  readonly kind: ConfigSourceKind;
  readonly istiodAddress: string;
  readonly istiodTls: boolean | 'auto';
  /** PEM with the mesh root certificate used to verify istiod (TLS); '' = system roots. */
  readonly istiodRootCertFile: string;
  /** Service account token file sent to istiod as a bearer token; '' = none. */
  readonly istiodTokenFile: string;
  /** Directory source (`--config-source dir`), watched for changes. */
  readonly dir: string;
  /** Debounce of the directory watch (quiet period, ms). */
  readonly watchDebounceMs: number;
  /** What one file of the directory may cost (default DEFAULT_FILE_LIMITS, src/controller/config-file.ts). */
  readonly maxFileBytes?: number;
  readonly maxFileDocuments?: number;
  readonly maxYamlAliasNodes?: number;
  /** `--dir-state-file`: the directory source's last good reads across restarts (controller/dir-state.ts); absent: off. */
  readonly stateFile?: string;
  /** `--secret-refresh-interval`: how often the Secrets Redis auth names are read again. */
  readonly secretRefreshMs: number;
}

/**
 * Asking istiod for its proxies' status (istio.io/debug/syncz) to report listener rejections of this controller's
 * EnvoyFilters: on a stream of its own to `--istiod-address` with the MCP client's credentials.
 */
export interface ProxyStatusOptions {
  /** `--proxy-status-interval`: between two questions; 0 = off. */
  readonly intervalMs: number;
}

/** Where EnvoyFilters go. */
export interface OutputOptions {
  readonly kind: OutputKind;
  readonly dir: string;
  /** Filters without exportTo go to their ServiceEntry's namespace. */
  readonly namespaceScope: boolean;
  /**
   * `--waypoint-envoyfilters`: read Namespaces, Gateway API Gateways and GatewayClasses too (every source) and write
   * the EnvoyFilters of Istio waypoints (envoyfilter/waypoint.ts); off: none of those kinds is read.
   */
  readonly waypointFilters: boolean;
  /** Images known to carry the MetaProtocol proxy, the whole list (the defaults, then `--metaprotocol-images`). */
  readonly metaProtocolImages: readonly string[];
}

/** The EnvoyFilter reconciler's timings (the status controller and the registries share them). */
export interface ReconcileOptions {
  /** Debounce: quiet period and maximum delay. */
  readonly debounceAfterMs: number;
  readonly debounceMaxMs: number;
  /** Periodic full reconcile (0 disables). */
  readonly resyncMs: number;
}

/** The Kubernetes API client. */
export interface KubeOptions {
  /** Path of a kubeconfig; '' = in-cluster configuration. */
  readonly kubeconfig: string;
  /** Client-side limit of writes to the API server, shared by every writer: tokens per second and bucket size. */
  readonly apiQps: number;
  readonly apiBurst: number;
}

/** Leader election on the Lease (its identity is the pod name). */
export interface LeaderOptions {
  readonly elect: boolean;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

/** The sidecar bootstrap ConfigMap in injected namespaces (needs the Kubernetes API). */
export interface BootstrapOptions {
  readonly enabled: boolean;
  /** Address MetaProtocol sidecars use to reach the RDS server (the controller's Service; `AERAKI_XDS_ADDR`). */
  readonly xdsServiceAddress: string;
}

export interface VipOptions {
  /** Give address-less ServiceEntries of the API server a VIP from 240.240.0.0/16 (needs the Kubernetes API). */
  readonly allocate: boolean;
}

/** The RDS server. */
export interface RdsOptions {
  readonly address: ListenAddress;
  readonly insecure: boolean;
  /** Namespaces whose workloads may read routes; empty = every namespace of the trust domain. */
  readonly allowedNamespaces: readonly string[];
  /** Route rebuild debounce: quiet period and maximum delay. */
  readonly debounceAfterMs: number;
  readonly debounceMaxMs: number;
  /** Limits against bad clients (src/xds-rds/limits.ts). */
  readonly maxReceiveBytes: RdsLimits['maxReceiveBytes'];
  readonly maxStreamsPerConnection: RdsLimits['maxStreamsPerConnection'];
  readonly minPingIntervalMs: RdsLimits['minPingIntervalMs'];
  readonly maxPingStrikes: RdsLimits['maxPingStrikes'];
  readonly maxInvalidRequests: RdsLimits['maxInvalidRequestsPerConnection'];
  readonly maxConnectionsPerIdentity: RdsLimits['maxConnectionsPerIdentity'];
  readonly idleStreamTimeoutMs: RdsLimits['idleStreamTimeoutMs'];
  /** Route-name budgets (src/xds-rds/budgets.ts). */
  readonly maxRouteNameBytes: RdsLimits['maxRouteNameBytes'];
  readonly maxRouteNamesPerStream: RdsLimits['maxRouteNamesPerStream'];
  readonly maxRouteNameBytesPerConnection: RdsLimits['maxRouteNameBytesPerConnection'];
  readonly maxRouteNameBytesPerIdentity: RdsLimits['maxRouteNameBytesPerIdentity'];
  /** Unfinished messages in flight (src/xds-rds/in-flight.ts). */
  readonly maxInFlightBytesPerIdentity: RdsLimits['maxInFlightBytesPerIdentity'];
}

/** The controller's own certificate (src/identity/). */
export interface IdentityOptions {
  /** `--cert-provider`; undefined = chosen by the other options (certProviderOf). */
  readonly certProvider: CertProviderKind | undefined;
  readonly tlsCertFile: string;
  readonly tlsKeyFile: string;
  readonly clientCaFile: string;
  /** Generate development certificates into this directory when they are missing, and serve with them. */
  readonly devCertsDir: string;
  /** Istio's CA (`host:port`); cmd/ fills in the istiod host of `--istiod-address` on port 15012. */
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
}

/** The registry bridges (`--registry`) and how their ServiceEntries reach istiod. */
export interface RegistryBridgesOptions {
  /** `--registry NAME=URL` (repeatable; `AERAKI_REGISTRIES`): the registries bridged into ServiceEntries. */
  readonly specs: readonly RegistrySpec[];
  /** `kube`: the leader writes them to the API server; `mcp`: served over MCP on `mcpServerAddress`. */
  readonly output: RegistryOutputKind;
  /** Listen address of the ServiceEntry MCP server (`--registry-output mcp`). */
  readonly mcpServerAddress: ListenAddress;
  /** Serve the MCP server in plaintext, without verifying clients (stock istiod dials `xds://` sources so). */
  readonly mcpServerInsecure: boolean;
  /** SPIFFE ids that may read the MCP server; empty = istiod's (mcpPeers). */
  readonly mcpServerAllowedIdentities: readonly string[];
}

/** The validating webhook. */
export interface WebhookOptions {
  /** The HTTPS listen address (`/validate`); undefined = no webhook. */
  readonly address: ListenAddress | undefined;
  /** The serving certificate and key (PEM, watched and reloaded); unused with `--dev-certs`. */
  readonly certFile: string;
  readonly keyFile: string;
}

/** The admin server, and the debug listener. */
export interface AdminOptions {
  readonly address: ListenAddress;
  /** Serve `/debug/*` (on `debugAddress`, loopback by default); off = not served at all. */
  readonly debugEndpoints: boolean;
  readonly debugAddress: ListenAddress;
}

export interface LoggingOptions {
  readonly level: LogLevel;
  readonly format: LogFormat;
}

export interface ServeOptions {
  readonly mesh: MeshOptions;
  /** `--pod-name`: the leader election identity, the MCP node name and the status writer's instance. */
  readonly podName: string;
  readonly source: SourceOptions;
  readonly output: OutputOptions;
  readonly reconcile: ReconcileOptions;
  readonly kube: KubeOptions;
  readonly leader: LeaderOptions;
  readonly bootstrap: BootstrapOptions;
  readonly vip: VipOptions;
  readonly rds: RdsOptions;
  readonly identity: IdentityOptions;
  readonly registries: RegistryBridgesOptions;
  readonly webhook: WebhookOptions;
  readonly admin: AdminOptions;
  /** RDS, MCP server and webhook: a connection must finish its handshake within `timeoutMs` (0: no limit), and
   *  at most `maxPending` are in their handshake at once, per listener, and `maxPendingPerSource` from one source
   *  address (0: no cap). */
  readonly handshake: HandshakeLimits;
  /** Admin and webhook HTTP servers: time to receive the headers, then the whole request. */
  readonly httpLimits: Pick<HttpLimits, 'headersTimeoutMs' | 'requestTimeoutMs'>;
  readonly logging: LoggingOptions;
  /** Proxy status from istiod; absent = off. */
  readonly proxyStatus?: ProxyStatusOptions;
  /** Our own waypoint (class `aeraki-waypoint`). */
  readonly waypoint: WaypointOptions;
  /** The value of `aeraki_build_info{version}`. */
  readonly version: string;
}

/** Our own waypoint: what its Deployments run (a Gateway's `aeraki.io/proxy-image` overrides it). */
export interface WaypointOptions {
  readonly image: string;
}

/**
 * Whether the Kubernetes API is needed at all: by the source (source-list.ts), by the output (its descriptor,
 * app/outputs.ts `outputOf`), or by registries written to it whatever the output is.
 */
export function needsKube(
  source: ConfigSourceKind,
  output: { readonly needsKube: boolean },
  registries?: Pick<RegistryBridgesOptions, 'specs' | 'output'>,
): boolean {
  const registriesToKube = (registries?.specs.length ?? 0) > 0 && registries?.output === 'kube';
  return sourceOf(source).needsKube || output.needsKube || registriesToKube;
}

/** Whether the ServiceEntry MCP server runs and serves TLS. */
export function mcpServerTls(
  o: Partial<Pick<RegistryBridgesOptions, 'specs' | 'output' | 'mcpServerInsecure'>>,
): boolean {
  return (o.specs?.length ?? 0) > 0 && o.output === 'mcp' && o.mcpServerInsecure !== true;
}

/**
 * The certificate provider in use: `--cert-provider` when given, else `files` with `--tls-cert-file`, `dev` with
 * `--dev-certs`, none with `--rds-insecure` unless the MCP server serves TLS (nothing needs a certificate),
 * `istiod` otherwise.
 */
export function certProviderOf(
  o: Pick<IdentityOptions, 'certProvider' | 'tlsCertFile' | 'devCertsDir'>,
  rdsInsecure: boolean,
  mcpTls: boolean,
): CertProviderKind | undefined {
  if (o.certProvider) return o.certProvider;
  if (o.tlsCertFile !== '') return 'files';
  if (o.devCertsDir !== '') return 'dev';
  return rdsInsecure && !mcpTls ? undefined : 'istiod';
}

/**
 * Who may read the MCP server (`--mcp-server-allowed-identities`, default istiod's service account in the root
 * namespace: `istiod`, or `istiod-<revision>` with `--revision`, as Istio's charts name it), in the trust domain.
 */
export function mcpPeers(
  o: Pick<RegistryBridgesOptions, 'mcpServerAllowedIdentities'>,
  mesh: MeshOptions,
): PeerPolicy {
  const istiod = `spiffe://${mesh.trustDomain}/ns/${mesh.rootNamespace}/sa/istiod${mesh.revision ? `-${mesh.revision}` : ''}`;
  return {
    trustDomain: mesh.trustDomain,
    trustDomainAliases: mesh.trustDomainAliases,
    allowedNamespaces: [],
    allowedIdentities: o.mcpServerAllowedIdentities.length > 0 ? o.mcpServerAllowedIdentities : [istiod],
  };
}

/** Who may read routes (`--trust-domain`, `--trust-domain-aliases`, `--rds-allowed-namespaces`). */
export function rdsPeers(
  o: Pick<RdsOptions, 'allowedNamespaces'>,
  mesh: Pick<MeshOptions, 'trustDomain' | 'trustDomainAliases'>,
): PeerPolicy {
  return {
    trustDomain: mesh.trustDomain,
    trustDomainAliases: mesh.trustDomainAliases,
    allowedNamespaces: o.allowedNamespaces,
  };
}

export function rdsLimits(o: RdsOptions): Partial<RdsLimits> {
  return {
    maxReceiveBytes: o.maxReceiveBytes,
    maxStreamsPerConnection: o.maxStreamsPerConnection,
    minPingIntervalMs: o.minPingIntervalMs,
    maxPingStrikes: o.maxPingStrikes,
    maxInvalidRequestsPerConnection: o.maxInvalidRequests,
    maxConnectionsPerIdentity: o.maxConnectionsPerIdentity,
    idleStreamTimeoutMs: o.idleStreamTimeoutMs,
    maxRouteNameBytes: o.maxRouteNameBytes,
    maxRouteNamesPerStream: o.maxRouteNamesPerStream,
    maxRouteNameBytesPerConnection: o.maxRouteNameBytesPerConnection,
    maxRouteNameBytesPerIdentity: o.maxRouteNameBytesPerIdentity,
    maxInFlightBytesPerIdentity: o.maxInFlightBytesPerIdentity,
  };
}
