/**
 * The writers `startServe` runs: the EnvoyFilter reconciler over the incrementally maintained desired set (every
 * replica builds it; the leader writes), and with `--output kube` the KubeOutput (leader election, drift watch,
 * namespace bootstrap, VIPs, status). Built after the sources and the registries, whose sync they wait for.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { ConfigStore } from '../controller/store.ts';
import { IncrementalGenerator } from '../envoyfilter/incremental.ts';
import { limitedApply } from '../kit/apply.ts';
import type { KubeInformers } from '../kit/kube/informer-hub.ts';
import type { KindDiscoveryOptions } from '../kit/kube/kind-informer.ts';
import type { Generator } from '../model/generator.ts';
import type { OutputObject } from '../model/objects.ts';
import type { ManagedRoutes } from '../model/unserved-routes.ts';
import type { AerakiMetrics } from '../ops/metrics.ts';
import { createDirSink } from '../reconcile/dir-sink.ts';
import { createKubeSink } from '../reconcile/kube-sink.ts';
import { ManagedCache } from '../reconcile/managed-cache.ts';
import { heldSourceKeys, Reconciler } from '../reconcile/reconciler.ts';
import { createProtocolNames } from '../plugins/registry.ts';
import type { EnvoyFilterSink } from '../reconcile/sink.ts';
import type { Registries } from '../registry/registries.ts';
import type { BackoffOptions } from '../util/backoff.ts';
import type { Logger } from '../util/logger.ts';
import type { TokenBucket } from '../util/rate-limit.ts';
import { KubeOutput } from './kube-output.ts';
import type { ServeOptions } from './options.ts';
import type { ConfigSources } from './sources.ts';
import { followTopics, statusInputsOf, type Topics } from './serve-topics.ts';

export interface ServeWriters {
  readonly sink: EnvoyFilterSink;
  readonly desiredState: IncrementalGenerator;
  readonly reconciler: Reconciler;
  /** With `--output kube`: leader election, drift watch, bootstrap, VIPs and status. */
  readonly kubeOut: KubeOutput | undefined;
  /** The drift watch's cache of the managed objects (`--output kube`). */
  readonly managedCache: ManagedCache | undefined;
  /** The desired objects of the last generation pass. */
  desiredObjects(): readonly OutputObject[];
  /** The RDS routes each managed EnvoyFilter names: the directory sink's, or the drift watch's (`--output kube`). */
  readonly managedRoutes: ManagedRoutes | undefined;
}

export interface ServeWritersInputs {
  readonly store: ConfigStore;
  readonly generators: readonly Generator[];
  readonly sources: ConfigSources;
  readonly registries: Registries | undefined;
  readonly kc: KubeConfig | undefined;
  readonly informers: KubeInformers | undefined;
  readonly metrics: AerakiMetrics;
  /** Paces every write to the API server (--kube-api-qps, --kube-api-burst). */
  readonly limiter: TokenBucket;
  readonly rdsPort: number;
  readonly serverIdentity: string | undefined;
  /** Every source and registry synced once. */
  readonly allSynced: () => boolean;
  readonly backoff: BackoffOptions | undefined;
  readonly discovery: KindDiscoveryOptions | undefined;
  readonly logger: Logger;
  /** The reconciler publishes `desired`; the status controller follows its topics (serve-topics.ts). */
  readonly topics: Topics;
}

export type ServeWritersOptions = Pick<
  ServeOptions,
  'output' | 'reconcile' | 'leader' | 'bootstrap' | 'vip' | 'podName' | 'mesh'
>;

export function buildWriters(o: ServeWritersOptions, i: ServeWritersInputs): ServeWriters {
  const { store, generators, sources, registries, kc, metrics, limiter, logger } = i;
  let dirSink: ReturnType<typeof createDirSink> | undefined;
  const sink: EnvoyFilterSink =
    o.output.kind === 'kube' && kc ? createKubeSink(kc) : (dirSink = createDirSink(o.output.dir));
  let kubeOut: KubeOutput | undefined;
  const toKube = o.output.kind === 'kube' && kc !== undefined;
  const managedCache = toKube ? new ManagedCache() : undefined;
  // The desired set is maintained: each reconcile regenerates only the sources a change touched.
  const desiredState = new IncrementalGenerator(store, generators, {
    namespaceScope: o.output.namespaceScope,
    protocolNames: createProtocolNames(generators),
  });
  const reconciler = new Reconciler({
    sink,
    desired: () => {
      const desired = desiredState.update();
      metrics.recordUnhandledPorts(desired.unhandledPorts);
      metrics.recordConfigIssues([...store.rejected().flatMap((r) => r.issues), ...desired.issues]);
      i.topics.desired.publish(desired); // its `objects` are read (materialised) only when proxy status asks
      return desired;
    },
    heldSources: () => heldSourceKeys(store.rejected()),
    holdDeletes: () => sources.partial,
    isSynced: i.allSynced,
    isLeader: () => kubeOut?.isLeader() ?? true,
    quietMs: o.reconcile.debounceAfterMs,
    maxWaitMs: o.reconcile.debounceMaxMs,
    resyncMs: o.reconcile.resyncMs,
    ...(i.backoff ? { retry: i.backoff } : {}),
    ...(toKube ? { limiter } : {}),
    ...(managedCache ? { cache: managedCache } : {}),
    onResyncRepairs: (n) => metrics.resyncRepairs.inc(n),
    onConverged: (ms) => metrics.configToWrite.observe(ms / 1000),
    onRefusal: (r) => metrics.writeRefusals.inc({ kind: r.kind, verb: r.verb, code: String(r.code) }),
    logger,
  });
  reconciler.onRun((r) => metrics.recordReconcileRun(r));
  if (o.output.kind === 'kube' && kc && i.informers) {
    const { leader, bootstrap, vip, reconcile, podName, mesh } = o;
    kubeOut = new KubeOutput({ leader, bootstrap, vip, reconcile, podName, mesh }, kc, i.rdsPort, {
      informers: i.informers,
      onChange: () => {
        reconciler.trigger();
        registries?.trigger();
      },
      statusInputs: statusInputsOf(store, i.topics),
      isSynced: () => sources.synced,
      metrics,
      protocols: generators.flatMap((g) => g.protocols),
      kinds: store.kinds,
      serverIdentity: i.serverIdentity,
      ...(managedCache ? { managedCache } : {}),
      ...(i.discovery ? { discovery: i.discovery } : {}),
      apply: limitedApply(limiter),
      ...(i.backoff ? { backoff: i.backoff } : {}),
      logger,
    });
    followTopics(i.topics, kubeOut.status);
  }
  return {
    sink,
    desiredState,
    reconciler,
    kubeOut,
    managedCache,
    desiredObjects: () => i.topics.desired.latest()?.value.objects ?? [],
    managedRoutes: dirSink ?? kubeOut?.drift,
  };
}
