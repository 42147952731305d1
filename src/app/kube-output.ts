/**
 * The parts of `aeraki serve` that need the Kubernetes API besides the config sources: leader election on the
 * Lease `aeraki-controller` in the root namespace, the drift watch on managed objects, and the namespace
 * bootstrap controller fed by a Namespace informer. Leadership changes trigger the reconciler and the bootstrap
 * controller so a new leader converges at once.
 */
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { ResilientInformer } from '../util/informer.ts';
import { ManagedObjectsWatch } from '../reconcile/managed-watch.ts';
import { applyWrites } from '../reconcile/apply.ts';
import { createKubeBootstrapPort } from '../bootstrap/kube.ts';
import { LeaderElector } from '../leader/leader-election.ts';
import { createKubeLeaseClient } from '../leader/lease-client.ts';
import { NamespaceBootstrapController, namespaceInfoOf } from '../bootstrap/controller.ts';
import type { Logger } from '../util/logger.ts';
import type { AerakiMetrics } from '../ops/metrics.ts';
import type { BackoffOptions } from '../util/backoff.ts';
import type { ServeOptions } from './options.ts';

export const LEASE_NAME = 'aeraki-controller';

export interface KubeOutputHooks {
  /** Called when the desired state must be re-checked (drift, new leadership). */
  readonly onChange: () => void;
  readonly metrics: AerakiMetrics;
  readonly backoff?: BackoffOptions;
  readonly logger: Logger;
}

export class KubeOutput {
  readonly elector: LeaderElector | undefined;
  readonly drift: ManagedObjectsWatch;
  readonly bootstrap: NamespaceBootstrapController | undefined;
  private readonly namespaces: ResilientInformer | undefined;

  constructor(o: ServeOptions, kc: KubeConfig, rdsPort: number, hooks: KubeOutputHooks) {
    const { logger, metrics, backoff } = hooks;
    const startedLeading = () => {
      metrics.recordLeadership(true);
      hooks.onChange();
      this.bootstrap?.trigger();
    };
    this.elector = o.leaderElect
      ? new LeaderElector({
          client: createKubeLeaseClient(kc, o.rootNamespace, LEASE_NAME),
          identity: o.podName,
          leaseDurationMs: o.leaseDurationMs,
          renewDeadlineMs: o.renewDeadlineMs,
          retryPeriodMs: o.retryPeriodMs,
          logger,
          onStartedLeading: startedLeading,
          onStoppedLeading: () => metrics.recordLeadership(false),
        })
      : undefined;
    const isLeader = this.elector ? () => this.elector?.isLeader() ?? false : () => true;
    this.drift = new ManagedObjectsWatch({
      kc,
      onChange: hooks.onChange,
      ...(backoff ? { backoff } : {}),
      logger,
    });
    if (!o.namespaceBootstrap) return;
    const namespaces = new ResilientInformer({
      kc,
      path: '/api/v1/namespaces',
      list: async () => await kc.makeApiClient(CoreV1Api).listNamespace(),
      handlers: {
        upsert: (obj) => {
          const info = namespaceInfoOf(obj);
          if (info) this.bootstrap?.upsertNamespace(info);
        },
        delete: (obj) => this.bootstrap?.deleteNamespace(obj.metadata?.name ?? ''),
      },
      ...(backoff ? { backoff } : {}),
      logger: logger.child({ component: 'namespaces' }),
    });
    this.namespaces = namespaces;
    this.bootstrap = new NamespaceBootstrapController({
      port: createKubeBootstrapPort(kc),
      apply: applyWrites,
      target: { address: o.xdsServiceAddress, port: rdsPort },
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

  start(): void {
    this.elector?.start();
    this.drift.start();
    if (this.namespaces && this.bootstrap) {
      const bootstrap = this.bootstrap;
      this.namespaces.start();
      bootstrap.start();
      void this.namespaces.whenSynced().then(() => bootstrap.trigger());
    }
  }

  /** Stops the bootstrap controller, the watches and (last) the elector, which releases the lease. */
  async stopWriters(): Promise<void> {
    await this.bootstrap?.stop();
    await this.elector?.stop();
  }

  async stopWatches(): Promise<void> {
    await Promise.all([this.drift.stop(), this.namespaces?.stop()]);
  }
}
