/**
 * The parts `--output kube` brings (app/outputs.ts), each declaring whether it needs the leader (kit/runtime.ts):
 * on every replica the drift watch on managed objects, the status controller's watch of the Aeraki objects, and the
 * Namespace and ServiceEntry informers; on the leader only the status controller (conditions and Events of the
 * Aeraki objects, src/status/), the namespace bootstrap controller and the VIP allocator, each triggered when it
 * starts so a new leader converges at once. Leader election itself is the Lease `aeraki-controller` in the root
 * namespace (`leaderElector`), driven by the runtime.
 */
import { CustomObjectsApi, type KubeConfig, type KubernetesListObject } from '@kubernetes/client-node';
import {
  nameAndLabels,
  namespacesWatch,
  type KubeInformers,
  type Subscription,
} from '../kit/kube/informer-hub.ts';
import { ManagedObjectsWatch } from '../reconcile/managed-watch.ts';
import { applyWrites } from '../kit/apply.ts';
import { ManagedCache } from '../reconcile/managed-cache.ts';
import { createKubeSink } from '../reconcile/kube-sink.ts';
import type { BuiltOutput, OutputBuildOptions, OutputContext, OutputHooks } from './output-parts.ts';
import { createKubeBootstrapPort } from '../bootstrap/kube.ts';
import { LeaderElector } from '../leader/leader-election.ts';
import { leaderLoopPart, type RuntimePart } from '../kit/runtime.ts';
import { createKubeLeaseClient } from '../leader/lease-client.ts';
import { NamespaceBootstrapController, namespaceInfoOf } from '../bootstrap/controller.ts';
import type { Logger } from '../util/logger.ts';
import type { ServeOptions } from './options.ts';
import type { UnavailableKind } from './sources.ts';
import { forbiddenMessage, notInstalledMessage } from '../kit/kube/kind-informer.ts';
import { ISTIO_GROUP } from '../model/constants.ts';
import { VipAllocator } from '../vip/controller.ts';
import { createKubeServiceEntryPort } from '../vip/kube.ts';
import { StatusController } from '../status/controller.ts';
import { createKubeStatusPort } from '../status/kube.ts';
import { StatusTargetCache } from '../status/target-cache.ts';
import { aerakiResources, istioResources } from '../controller/kube/resources.ts';

export const LEASE_NAME = 'aeraki-controller';

/** The options of the parts `--output kube` brings, and the shared values they need. */
export type KubeOutputOptions = Omit<OutputBuildOptions, 'output'>;

/** The hooks of an output, with the process's shared informers and the managed cache the drift watch keeps. */
export interface KubeOutputHooks extends OutputHooks {
  /** The process's shared informers (Namespaces, ServiceEntries, the managed objects, the status targets). */
  readonly informers: KubeInformers;
  /** Kept up to date by the drift watch, for the reconciler to plan against. */
  readonly managedCache?: ManagedCache;
}

/** `--output kube` built (app/outputs.ts): its sink, its parts, its managed cache and routes, its status. */
export function buildKubeOutput({ o, kc, informers, rdsPort, hooks }: OutputContext): BuiltOutput {
  if (!kc || !informers) throw new Error('--output kube needs the Kubernetes API');
  const managedCache = new ManagedCache();
  const out = kubeOutputParts(o, kc, rdsPort, { ...hooks, informers, managedCache });
  return {
    sink: createKubeSink(kc),
    parts: out.parts,
    managedCache,
    managedRoutes: out.drift,
    status: out.status,
    unavailableKinds: () => out.unavailableKinds(),
  };
}

/** What `--output kube` brings besides its sink: the drift watch, the status controller and its parts. */
export interface KubeOutputParts {
  readonly drift: ManagedObjectsWatch;
  readonly status: StatusController;
  /** Every-replica parts (the watches), then leader parts (status, VIPs, bootstrap: each triggered on start). */
  readonly parts: readonly RuntimePart[];
  /** The kinds written that keep the controller from writing: CRD not installed (required) or forbidden. */
  unavailableKinds(): UnavailableKind[];
}

/** Leader election on the Lease `aeraki-controller` in the root namespace (`--leader-elect`). */
export function leaderElector(
  o: Pick<ServeOptions, 'leader' | 'podName'> & {
    readonly mesh: Pick<ServeOptions['mesh'], 'rootNamespace'>;
  },
  kc: KubeConfig,
  logger: Logger,
): LeaderElector {
  return new LeaderElector({
    client: createKubeLeaseClient(kc, o.mesh.rootNamespace, LEASE_NAME),
    identity: o.podName,
    leaseDurationMs: o.leader.leaseDurationMs,
    renewDeadlineMs: o.leader.renewDeadlineMs,
    retryPeriodMs: o.leader.retryPeriodMs,
    logger,
  });
}

/** A watch as a part of every replica: started with the process, stopped in the second phase of its stop. */
function watchPart(name: string, w: { start(): void; stop(): Promise<void> }): RuntimePart {
  return { name, start: () => w.start(), stop: () => w.stop() };
}

export function kubeOutputParts(
  o: KubeOutputOptions,
  kc: KubeConfig,
  rdsPort: number,
  hooks: KubeOutputHooks,
): KubeOutputParts {
  const { logger, backoff } = hooks;
  const drift = new ManagedObjectsWatch({
    kc,
    informers: hooks.informers,
    onChange: hooks.onChange,
    ...(hooks.managedCache ? { cache: hooks.managedCache } : {}),
    ...(backoff ? { backoff } : {}),
    ...(hooks.discovery ? { discovery: hooks.discovery } : {}),
    logger,
  });
  const statusTargets = new StatusTargetCache({
    kc,
    informers: hooks.informers,
    resources: aerakiResources(hooks.kinds),
    onChange: () => status.trigger(),
    ...(backoff ? { backoff } : {}),
    logger,
  });
  const status = statusController(o, kc, hooks, statusTargets);
  const watches = [watchPart('drift-watch', drift), watchPart('status-targets', statusTargets)];
  const leaders = [leaderLoopPart('status', status)];
  if (o.vip.allocate) {
    const [serviceEntries, vips] = vipAllocator(o.mesh.istioApiVersion, kc, hooks);
    watches.push(informerPart('serviceentry-informer', serviceEntries, () => vips.trigger()));
    leaders.push(leaderLoopPart('vips', vips));
  }
  if (o.bootstrap.enabled) {
    const [namespaces, bootstrap] = namespaceBootstrap(o, kc, rdsPort, hooks);
    watches.push(informerPart('namespace-informer', namespaces, () => bootstrap.trigger()));
    leaders.push(leaderLoopPart('bootstrap', bootstrap));
  }
  return {
    drift,
    status,
    parts: [...watches, ...leaders],
    unavailableKinds: () => unavailableKinds(drift),
  };
}

/** An informer as a part of every replica; `synced` is called once it listed (the writer it feeds re-checks). */
function informerPart(name: string, informer: Subscription, synced: () => void): RuntimePart {
  return {
    name,
    start: () => {
      informer.start();
      void informer.whenSynced().then(synced);
    },
    stop: () => informer.stop(),
  };
}

function unavailableKinds(drift: ManagedObjectsWatch): UnavailableKind[] {
  return drift.unavailable().map((k) =>
    k.phase === 'forbidden'
      ? { kind: k.kind, reason: 'forbidden', message: forbiddenMessage(k.verb ?? 'list', k.resource) }
      : {
          kind: k.kind,
          reason: 'not_installed',
          message: `${notInstalledMessage(k.kind, k.resource)}: required, nothing can be written until Istio's CRDs are installed`,
        },
  );
}

/** The namespace bootstrap controller and the Namespace informer that feeds it. */
function namespaceBootstrap(
  o: KubeOutputOptions,
  kc: KubeConfig,
  rdsPort: number,
  hooks: KubeOutputHooks,
): [Subscription, NamespaceBootstrapController] {
  const namespaces = hooks.informers.subscribe(
    namespacesWatch(kc),
    {
      upsert: (obj) => {
        const info = namespaceInfoOf(obj);
        if (info) bootstrap.upsertNamespace(info);
      },
      delete: (obj) => bootstrap.deleteNamespace(obj.metadata?.name ?? ''),
    },
    { syncedWhen: 'listed-once', reduce: nameAndLabels }, // namespaceInfoOf reads the name and labels
  );
  const bootstrap = new NamespaceBootstrapController({
    port: createKubeBootstrapPort(kc),
    apply: hooks.apply ?? applyWrites,
    target: {
      address: o.bootstrap.xdsServiceAddress,
      port: rdsPort,
      ...(hooks.serverIdentity ? { serverIdentity: hooks.serverIdentity } : {}),
    },
    isSynced: () => namespaces.synced,
    ...(hooks.backoff ? { retry: hooks.backoff } : {}),
    logger: hooks.logger,
    onWrite: (verb, ok) => hooks.metrics.recordBootstrapWrite(verb, ok),
  });
  return [namespaces, bootstrap];
}

/**
 * The VIP allocator and the ServiceEntry informer that triggers it. The informer only says "something changed"
 * and "listed once"; each run lists the ServiceEntries itself (vip/controller.ts says why). networking.istio.io
 * v1 when asked for, else v1alpha3 (served by every Istio release).
 */
function vipAllocator(
  istioApiVersion: ServeOptions['mesh']['istioApiVersion'],
  kc: KubeConfig,
  hooks: KubeOutputHooks,
): [Subscription, VipAllocator] {
  const { logger, metrics, backoff } = hooks;
  const version = istioApiVersion === 'v1' ? 'v1' : 'v1alpha3';
  const api = kc.makeApiClient(CustomObjectsApi);
  const vips = new VipAllocator({
    port: createKubeServiceEntryPort(kc, { version }),
    apply: hooks.apply ?? applyWrites,
    protocols: hooks.protocols,
    isSynced: () => informer.synced,
    ...(backoff ? { retry: backoff } : {}),
    logger,
    onWrite: (reason, error) => metrics.recordVipWrite(reason, error),
  });
  const informer = hooks.informers.subscribe(
    {
      kind: 'ServiceEntry',
      resource: { group: ISTIO_GROUP, version, plural: 'serviceentries' },
      path: `/apis/${ISTIO_GROUP}/${version}/serviceentries`,
      list: async () =>
        (await api.listClusterCustomObject({
          group: ISTIO_GROUP,
          version,
          plural: 'serviceentries',
        })) as KubernetesListObject<never>,
    },
    { upsert: () => vips.trigger(), delete: () => vips.trigger() },
    { syncedWhen: 'listed-once' },
  );
  return [informer, vips];
}

/** The status controller of the Aeraki CRDs; Events on Istio objects name their networking.istio.io version. */
function statusController(
  o: KubeOutputOptions,
  kc: KubeConfig,
  hooks: KubeOutputHooks,
  cache: StatusTargetCache,
): StatusController {
  const istioVersion = o.mesh.istioApiVersion === 'v1' ? 'v1' : 'v1alpha3';
  const istio = new Map(
    istioResources(istioVersion).map((r) => [r.kind as string, `${r.group}/${r.version}`]),
  );
  return new StatusController({
    port: createKubeStatusPort(kc, {
      resources: aerakiResources(hooks.kinds),
      apiVersionOf: (kind) => istio.get(kind) ?? 'v1',
      instance: o.podName,
      cache,
      logger: hooks.logger,
    }),
    apply: hooks.apply ?? applyWrites,
    inputs: hooks.statusInputs,
    isSynced: hooks.isSynced,
    quietMs: o.reconcile.debounceAfterMs,
    maxWaitMs: o.reconcile.debounceMaxMs,
    resyncMs: o.reconcile.resyncMs,
    ...(hooks.backoff ? { retry: hooks.backoff } : {}),
    logger: hooks.logger,
  });
}
