/**
 * The validated options of `aeraki serve` (cmd/serve-config.ts builds them from flags, environment and defaults).
 * Durations are milliseconds; listen addresses are parsed (src/util/address.ts).
 */
import type { IstioApiMode } from '../controller/mcp/index.ts';
import type { ListenAddress } from '../util/address.ts';
import type { LogFormat, LogLevel } from '../util/logging.ts';

export type ConfigSourceKind = 'mcp' | 'kube' | 'dir';
export type OutputKind = 'kube' | 'dir';

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
  /** Client-side limit of writes to the API server, shared by every writer: tokens per second and bucket size. */
  readonly kubeApiQps: number;
  readonly kubeApiBurst: number;
  /** The value of `aeraki_build_info{version}`. */
  readonly version: string;
}

/** Whether the Kubernetes API is needed at all. */
export function needsKube(o: Pick<ServeOptions, 'configSource' | 'output'>): boolean {
  return o.configSource !== 'dir' || o.output === 'kube';
}
