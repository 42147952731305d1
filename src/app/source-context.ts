/** What `aeraki serve` hands its config sources to build them (app/sources.ts and each source's adapter). */
import type { KubeConfig } from '@kubernetes/client-node';
import type { ConfigStore } from '../controller/store.ts';
import type { KeyPair } from '../kit/certs/key-pair.ts';
import type { KubeInformers } from '../kit/kube/informer-hub.ts';
import type { KindDiscoveryOptions } from '../kit/kube/kind-informer.ts';
import type { BackoffOptions } from '../util/backoff.ts';
import type { Logger } from '../util/logger.ts';
import type { MeshOptions, SourceOptions } from './options.ts';

export interface SourceContext {
  /** `--config-source` and what each source needs. */
  readonly source: SourceOptions;
  /** The mesh's names. */
  readonly mesh: MeshOptions;
  /** The pod name (the MCP node). */
  readonly podName: string;
  readonly store: ConfigStore;
  /** The Kubernetes API; `mcp` and `kube` need it. */
  readonly kc: KubeConfig | undefined;
  readonly logger: Logger;
  readonly backoff?: BackoffOptions;
  /** The controller's certificate, presented to istiod over TLS (`--cert-provider istiod`). */
  readonly clientIdentity?: () => KeyPair | undefined;
  /** Rediscovery of kinds not installed and the backoff after 403 (tests shorten them). */
  readonly discovery?: KindDiscoveryOptions;
  /** Called when a kind of the Kubernetes API changes state (installed, deleted, forbidden, granted). */
  readonly onKindChange?: () => void;
  /** The process's shared informers. */
  readonly informers?: KubeInformers;
  /**
   * Read ambient inputs (Namespaces, Gateway API Gateways and GatewayClasses) from every source, for the store's
   * AmbientView (default false: read only what is referenced; RBAC: manifests/ambient).
   */
  readonly ambient?: boolean;
}
