import type { ObjectMeta } from '../model/objects.ts';
import type { BackoffOptions } from '../util/backoff.ts';
import type { Logger } from '../util/logger.ts';

/** One workload endpoint of a registry ServiceEntry (istio.networking.v1.WorkloadEntry). */
export interface RegistryEndpoint {
  readonly address: string;
  readonly ports: Readonly<Record<string, number>>;
  readonly labels: Readonly<Record<string, string>>;
  readonly locality?: string;
  readonly serviceAccount?: string;
  readonly weight?: number;
}
/** A complete ServiceEntry as the bridge writes or serves it (Kubernetes JSON field names). */
export interface RegistryServiceEntry {
  readonly apiVersion: 'networking.istio.io/v1';
  readonly kind: 'ServiceEntry';
  readonly metadata: Pick<ObjectMeta, 'name' | 'namespace' | 'labels' | 'annotations'>;
  readonly spec: {
    readonly hosts: readonly string[];
    readonly addresses: readonly string[];
    readonly ports: readonly { readonly number: number; readonly name: string; readonly protocol: string }[];
    readonly location: 'MESH_INTERNAL';
    readonly resolution: 'STATIC';
    readonly endpoints: readonly RegistryEndpoint[];
  };
}
/** What every watcher's constructor takes besides its RegistrySpec. */
export interface RegistryWatcherDeps {
  readonly logger: Logger;
  /** Retry backoff after errors (tests shorten it); default util/backoff's defaults. */
  readonly backoff?: BackoffOptions;
  /** Polling period where a registry is polled (Nacos); default 5 s. */
  readonly pollIntervalMs?: number;
}
