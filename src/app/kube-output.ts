/**
 * The parts of `aeraki serve` that need the Kubernetes API besides the config sources: leader election on the
 * Lease `aeraki-controller` in the root namespace, the drift watch on managed objects, and the namespace
 * bootstrap controller fed by a Namespace informer, and the VIP allocator triggered by a ServiceEntry informer.
 * The status controller writes the conditions and Events of the Aeraki objects (src/status/). Leadership changes
 * trigger the reconciler, the bootstrap controller, the VIP allocator and the status controller so a new leader
 * converges at once.
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
import type { ManagedCache } from '../reconcile/managed-cache.ts';
import type { ApplyWrites } from '../kit/write.ts';
import { createKubeBootstrapPort } from '../bootstrap/kube.ts';
import { LeaderElector } from '../leader/leader-election.ts';
import { createKubeLeaseClient } from '../leader/lease-client.ts';
import { NamespaceBootstrapController, namespaceInfoOf } from '../bootstrap/controller.ts';
import type { Logger } from '../util/logger.ts';
import type { AerakiMetrics } from '../ops/metrics.ts';
import type { BackoffOptions } from '../util/backoff.ts';
import type { ServeOptions } from './options.ts';
import type { UnavailableKind } from './sources.ts';
import {
  forbiddenMessage,
  notInstalledMessage,
  type KindDiscoveryOptions,
} from '../kit/kube/kind-informer.ts';
import type { Protocol } from '../model/protocol.ts';
import { ISTIO_GROUP } from '../model/constants.ts';
import { VipAllocator } from '../vip/controller.ts';
import { createKubeServiceEntryPort } from '../vip/kube.ts';
import { StatusController, type StatusInputs } from '../status/controller.ts';
import { createKubeStatusPort } from '../status/kube.ts';
import { StatusTargetCache } from '../status/target-cache.ts';
import { aerakiResources, istioResources } from '../controller/kube/resources.ts';
import type { KindSpec } from '../model/kinds.ts';

export const LEASE_NAME = 'aeraki-controller';

/** The options of the parts KubeOutput runs, and the shared values they need. */
export type KubeOutputOptions = Pick<
  ServeOptions,
  'leader' | 'bootstrap' | 'vip' | 'reconcile' | 'podName'
> & { readonly mesh: Pick<ServeOptions['mesh'], 'rootNamespace' | 'istioApiVersion'> };

export interface KubeOutputHooks {
  /** The process's shared informers (Namespaces, ServiceEntries, the managed objects, the status targets). */
  readonly informers: KubeInformers;
  /** Called when the desired state must be re-checked (drift, new leadership). */
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
  /** Kept up to date by the drift watch, for the reconciler to plan against. */
  readonly managedCache?: ManagedCache;
  /** How every writer here applies its writes (paced by the shared write limit); default applyWrites. */
  readonly apply?: ApplyWrites;
  /** Rediscovery of the EnvoyFilter CRD when not installed, backoff after 403. */
  readonly discovery?: KindDiscoveryOptions;
}

export class KubeOutput {
  readonly elector: LeaderElector | undefined;
  readonly drift: ManagedObjectsWatch;
  readonly bootstrap: NamespaceBootstrapController | undefined;
  readonly vips: VipAllocator | undefined;
  readonly status: StatusController;
  /** The Aeraki objects' generations and statuses, watched for the status controller. */
  readonly statusTargets: StatusTargetCache;
  private readonly namespaces: Subscription | undefined;
  private readonly serviceEntries: Subscription | undefined;

  constructor(o: KubeOutputOptions, kc: KubeConfig, rdsPort: number, hooks: KubeOutputHooks) {
    const { logger, metrics, backoff } = hooks;
    const startedLeading = () => {
      metrics.recordLeadership(true);
      hooks.onChange();
      this.bootstrap?.trigger();
      this.vips?.trigger();
      this.status.trigger();
    };
    this.elector = o.leader.elect
      ? new LeaderElector({
          client: createKubeLeaseClient(kc, o.mesh.rootNamespace, LEASE_NAME),
          identity: o.podName,
          leaseDurationMs: o.leader.leaseDurationMs,
          renewDeadlineMs: o.leader.renewDeadlineMs,
          retryPeriodMs: o.leader.retryPeriodMs,
          logger,
          onStartedLeading: startedLeading,
          onStoppedLeading: () => metrics.recordLeadership(false),
        })
      : undefined;
    const isLeader = this.elector ? () => this.elector?.isLeader() ?? false : () => true;
    this.drift = new ManagedObjectsWatch({
      kc,
      informers: hooks.informers,
      onChange: hooks.onChange,
      ...(hooks.managedCache ? { cache: hooks.managedCache } : {}),
      ...(backoff ? { backoff } : {}),
      ...(hooks.discovery ? { discovery: hooks.discovery } : {}),
      logger,
    });
    this.statusTargets = new StatusTargetCache({
      kc,
      informers: hooks.informers,
      resources: aerakiResources(hooks.kinds),
      onChange: () => this.status.trigger(),
      ...(backoff ? { backoff } : {}),
      logger,
    });
    this.status = statusController(o, kc, hooks, isLeader, this.statusTargets);
    if (o.vip.allocate) {
      [this.serviceEntries, this.vips] = vipAllocator(o.mesh.istioApiVersion, kc, hooks, isLeader);
    }
    if (!o.bootstrap.enabled) return;
    const namespaces = hooks.informers.subscribe(
      namespacesWatch(kc),
      {
        upsert: (obj) => {
          const info = namespaceInfoOf(obj);
          if (info) this.bootstrap?.upsertNamespace(info);
        },
        delete: (obj) => this.bootstrap?.deleteNamespace(obj.metadata?.name ?? ''),
      },
      { syncedWhen: 'listed-once', reduce: nameAndLabels }, // namespaceInfoOf reads the name and labels
    );
    this.namespaces = namespaces;
    this.bootstrap = new NamespaceBootstrapController({
      port: createKubeBootstrapPort(kc),
      apply: hooks.apply ?? applyWrites,
      target: {
        address: o.bootstrap.xdsServiceAddress,
        port: rdsPort,
        ...(hooks.serverIdentity ? { serverIdentity: hooks.serverIdentity } : {}),
      },
      isLeader,
      isSynced: () => namespaces.synced,
      ...(backoff ? { retry: backoff } : {}),
      logger,
      onWrite: (verb, ok) => metrics.recordBootstrapWrite(verb, ok),
    });
  }

  isLeader(): boolean {
    return this.elector ? this.elector.isLeader() : true;
  }

  /** The kinds written that keep the controller from writing: CRD not installed (required) or forbidden. */
  unavailableKinds(): UnavailableKind[] {
    return this.drift.unavailable().map((k) =>
      k.phase === 'forbidden'
        ? { kind: k.kind, reason: 'forbidden', message: forbiddenMessage(k.verb ?? 'list', k.resource) }
        : {
            kind: k.kind,
            reason: 'not_installed',
            message: `${notInstalledMessage(k.kind, k.resource)}: required, nothing can be written until Istio's CRDs are installed`,
          },
    );
  }

  start(): void {
    this.elector?.start();
    this.drift.start();
    this.statusTargets.start();
    this.status.start();
    if (this.serviceEntries && this.vips) {
      const vips = this.vips;
      this.serviceEntries.start();
      vips.start();
      void this.serviceEntries.whenSynced().then(() => vips.trigger());
    }
    if (this.namespaces && this.bootstrap) {
      const bootstrap = this.bootstrap;
      this.namespaces.start();
      bootstrap.start();
      void this.namespaces.whenSynced().then(() => bootstrap.trigger());
    }
  }

  /** Stops the bootstrap controller, the VIP allocator, the status controller and (last) the elector, which releases the lease. */
  async stopWriters(): Promise<void> {
    await this.bootstrap?.stop();
    await this.vips?.stop();
    await this.status.stop();
    await this.elector?.stop();
  }

  async stopWatches(): Promise<void> {
    await Promise.all([
      this.drift.stop(),
      this.statusTargets.stop(),
      this.namespaces?.stop(),
      this.serviceEntries?.stop(),
    ]);
  }
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
  isLeader: () => boolean,
): [Subscription, VipAllocator] {
  const { logger, metrics, backoff } = hooks;
  const version = istioApiVersion === 'v1' ? 'v1' : 'v1alpha3';
  const api = kc.makeApiClient(CustomObjectsApi);
  const vips = new VipAllocator({
    port: createKubeServiceEntryPort(kc, { version }),
    apply: hooks.apply ?? applyWrites,
    protocols: hooks.protocols,
    isLeader,
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
  isLeader: () => boolean,
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
    isLeader,
    isSynced: hooks.isSynced,
    quietMs: o.reconcile.debounceAfterMs,
    maxWaitMs: o.reconcile.debounceMaxMs,
    resyncMs: o.reconcile.resyncMs,
    ...(hooks.backoff ? { retry: hooks.backoff } : {}),
    logger: hooks.logger,
  });
}
