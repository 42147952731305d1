/**
 * The writers `startServe` runs: the EnvoyFilter reconciler over the incrementally maintained desired set (a leader
 * part: it generates and writes on the leader only), and the parts the output brings (app/outputs.ts; with
 * `--output kube` the drift watch, namespace bootstrap, VIPs and status). Built after the sources and the
 * registries, whose sync they wait for.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { ConfigStore } from '../controller/store.ts';
import type { GenerateOptions } from '../envoyfilter/generate-all.ts';
import { IncrementalGenerator } from '../envoyfilter/incremental.ts';
import { limitedApply } from '../kit/apply.ts';
import type { KubeInformers } from '../kit/kube/informer-hub.ts';
import type { KindDiscoveryOptions } from '../kit/kube/kind-informer.ts';
import type { Generator } from '../model/generator.ts';
import type { AerakiMetrics } from '../ops/metrics.ts';
import { heldSourceKeys, Reconciler } from '../reconcile/reconciler.ts';
import { createProtocolNames } from '../plugins/registry.ts';
import type { ProtocolNames } from '../model/protocol.ts';
import type { EnvoyFilterSink } from '../reconcile/sink.ts';
import type { Registries } from '../registry/registries.ts';
import type { BackoffOptions } from '../util/backoff.ts';
import type { Logger } from '../util/logger.ts';
import type { TokenBucket } from '../util/rate-limit.ts';
import { leaderLoopPart, type RuntimePart } from '../kit/runtime.ts';
import { outputOf } from './outputs.ts';
import type { BuiltOutput } from './output-parts.ts';
import type { OutputOptions, ServeOptions } from './options.ts';
import type { ConfigSources } from './sources.ts';
import type { ServeBase } from './serve-base.ts';
import type { ServeInputs } from './serve-inputs.ts';
import { followTopics, statusInputsOf, type Topics } from './serve-topics.ts';

export interface ServeWriters {
  readonly sink: EnvoyFilterSink;
  readonly desiredState: IncrementalGenerator;
  readonly reconciler: Reconciler;
  /** The output's sink, parts, status controller, managed cache and routes (app/outputs.ts). */
  readonly output: BuiltOutput;
  /** The reconciler (a leader part), then the output's parts (its watches, then its leader parts). */
  readonly parts: readonly RuntimePart[];
  /** How the desired set is generated (generationOptions); /debug/envoyfilters generates the same way. */
  readonly generation: ServeGeneration;
}

/** serve's generation options: the detection names always set (the debug page serves them). */
export type ServeGeneration = GenerateOptions & { readonly protocolNames: ProtocolNames };

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

/** The writers' inputs: serve's base and inputs, with the registries, the bound RDS port and the sync gate. */
export function writersInputs(
  base: ServeBase,
  inputs: ServeInputs,
  more: Pick<ServeWritersInputs, 'registries' | 'rdsPort' | 'allSynced'>,
): ServeWritersInputs {
  const { kc, informers, metrics, limiter, logger, deps, identity } = base;
  const { store, generators, sources, topics } = inputs;
  return {
    ...more,
    store,
    generators,
    sources,
    topics,
    kc,
    informers,
    metrics,
    limiter,
    logger,
    serverIdentity: identity.serverIdentity,
    backoff: deps.backoff,
    discovery: deps.discovery,
  };
}

/**
 * How serve generates (the reconciler's desired set, /debug/envoyfilters): with --waypoint-envoyfilters the waypoint
 * filters too, from the ambient inputs the sources read into the store (serve-inputs.ts).
 */
export function generationOptions(
  output: OutputOptions,
  store: ConfigStore,
  generators: readonly Generator[],
): ServeGeneration {
  return {
    namespaceScope: output.namespaceScope,
    protocolNames: createProtocolNames(generators),
    ...(output.waypointFilters ? { waypointFilters: true, ambient: store } : {}),
    metaProtocolImages: output.metaProtocolImages,
  };
}

export async function buildWriters(o: ServeWritersOptions, i: ServeWritersInputs): Promise<ServeWriters> {
  const { store, generators, sources, registries, metrics, limiter, logger } = i;
  const descriptor = outputOf(o.output.kind);
  const { leader, bootstrap, vip, reconcile, podName, mesh, output: outputOptions } = o;
  const output = await descriptor.build({
    o: { leader, bootstrap, vip, reconcile, podName, mesh, output: outputOptions },
    kc: i.kc,
    informers: i.informers,
    rdsPort: i.rdsPort,
    hooks: {
      // A managed object drifted: the writers built below re-check (ignored while they are stopped).
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
      ...(i.discovery ? { discovery: i.discovery } : {}),
      apply: limitedApply(limiter),
      ...(i.backoff ? { backoff: i.backoff } : {}),
      logger,
    },
  });
  // The desired set is maintained: each reconcile regenerates only the sources a change touched.
  const generation = generationOptions(o.output, store, generators);
  const desiredState = new IncrementalGenerator(store, generators, generation);
  const reconciler = new Reconciler({
    sink: output.sink,
    // A full regeneration runs in the run's slices, yielding to the loop (issue 40).
    desired: async (slicer) => {
      const desired = await desiredState.updateSliced(slicer);
      metrics.recordUnhandledPorts(desired.unhandledPorts);
      metrics.recordConfigIssues([...store.rejected().flatMap((r) => r.issues), ...desired.issues]);
      i.topics.desired.publish(desired); // its `objects` are read (materialised) only when proxy status asks
      return desired;
    },
    heldSources: () => heldSourceKeys(store.rejected()),
    holdDeletes: () => sources.partial,
    isSynced: i.allSynced,
    quietMs: o.reconcile.debounceAfterMs,
    maxWaitMs: o.reconcile.debounceMaxMs,
    resyncMs: o.reconcile.resyncMs,
    ...(i.backoff ? { retry: i.backoff } : {}),
    ...(descriptor.needsKube ? { limiter } : {}),
    ...(output.managedCache ? { cache: output.managedCache } : {}),
    onResyncRepairs: (n) => metrics.resyncRepairs.inc(n),
    onConverged: (ms) => metrics.configToWrite.observe(ms / 1000),
    onRefusal: (r) => metrics.writeRefusals.inc({ kind: r.kind, verb: r.verb, code: String(r.code) }),
    logger,
  });
  reconciler.onRun((r) => metrics.recordReconcileRun(r));
  if (output.status) followTopics(i.topics, output.status);
  // Started on election; once every source synced, a new leader's first run follows at once (before, the first
  // sync triggers it).
  const writer = leaderLoopPart('reconciler', reconciler, () => {
    if (i.allSynced()) reconciler.trigger();
  });
  return {
    sink: output.sink,
    desiredState,
    reconciler,
    output,
    parts: [writer, ...output.parts],
    generation,
  };
}
