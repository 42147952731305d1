/**
 * What an output (app/outputs.ts) is built from and what it brings: its sink, its parts (every-replica watches and
 * leader-only writers, kit/runtime.ts), the managed routes `/debug` reads, and its status controller.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeInformers } from '../kit/kube/informer-hub.ts';
import type { KindDiscoveryOptions } from '../kit/kube/kind-informer.ts';
import type { RuntimePart } from '../kit/runtime.ts';
import type { ApplyWrites } from '../kit/write.ts';
import type { KindSpec } from '../model/kinds.ts';
import type { Protocol } from '../model/protocol.ts';
import type { ManagedRoutes } from '../model/unserved-routes.ts';
import type { AerakiMetrics } from '../ops/metrics.ts';
import type { ManagedCache } from '../reconcile/managed-cache.ts';
import type { EnvoyFilterSink } from '../reconcile/sink.ts';
import type { StatusInputs } from '../status/controller.ts';
import type { BackoffOptions } from '../util/backoff.ts';
import type { Logger } from '../util/logger.ts';
import type { ServeOptions } from './options.ts';
import type { UnavailableKind } from './sources.ts';

/** The options an output reads, and the shared values it needs. */
export type OutputBuildOptions = Pick<
  ServeOptions,
  'output' | 'leader' | 'bootstrap' | 'vip' | 'reconcile' | 'podName'
> & { readonly mesh: Pick<ServeOptions['mesh'], 'rootNamespace' | 'istioApiVersion'> };

/** What the rest of the process offers an output. */
export interface OutputHooks {
  /** Called when the written state must be re-checked (drift of a managed object). */
  readonly onChange: () => void;
  readonly metrics: AerakiMetrics;
  /** The protocols the generators handle (ServiceEntries with such a port get a VIP). */
  readonly protocols: readonly Protocol[];
  /** The plugins' kinds (plugins/registry.ts): with the core's own CRDs, the objects given a status. */
  readonly kinds: readonly KindSpec[];
  readonly backoff?: BackoffOptions;
  readonly logger: Logger;
  /** What the status controller plans from (the store, its rejections, the last generation issues). */
  readonly statusInputs: () => StatusInputs;
  /** Every config source has synced once (the status controller waits for it). */
  readonly isSynced: () => boolean;
  /** The SPIFFE identity sidecars must see on the RDS server's certificate (with `--cert-provider istiod`). */
  readonly serverIdentity?: string | undefined;
  /** How every writer applies its writes (paced by the shared write limit); default applyWrites. */
  readonly apply?: ApplyWrites;
  /** Rediscovery of the EnvoyFilter CRD when not installed, backoff after 403. */
  readonly discovery?: KindDiscoveryOptions;
}

/** What an output is built from. */
export interface OutputContext {
  readonly o: OutputBuildOptions;
  /** Given whenever the output `needsKube`. */
  readonly kc: KubeConfig | undefined;
  readonly informers: KubeInformers | undefined;
  /** The RDS server's bound port. */
  readonly rdsPort: number;
  readonly hooks: OutputHooks;
}

/** An output, built. */
export interface BuiltOutput {
  readonly sink: EnvoyFilterSink;
  /** Every-replica parts first, then leader parts. */
  readonly parts: readonly RuntimePart[];
  /** The managed objects as a watch sees them, for the reconciler to plan against. */
  readonly managedCache?: ManagedCache;
  /** The RDS routes each managed EnvoyFilter names (`/debug/routes`, unserved routes). */
  readonly managedRoutes: ManagedRoutes;
  /** The status controller of the Aeraki objects, triggered when what it plans from changes. */
  readonly status?: { trigger(): void };
  /** The kinds written that keep the controller from writing (`/readyz` output check, metrics). */
  readonly unavailableKinds?: () => UnavailableKind[];
}
