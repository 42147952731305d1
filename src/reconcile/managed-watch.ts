/**
 * Drift detection: a watch on the objects the reconciler manages (EnvoyFilters and VirtualServices labelled
 * `manager: Aeraki`). Any change or deletion after the initial list calls `onChange` (wired to the reconciler's
 * debounced trigger in app.ts), so a filter edited or deleted by hand is restored within one debounce. The
 * reconciler's own writes come back here too; they cost one extra run that writes nothing.
 */
import {
  CustomObjectsApi,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { ISTIO_GROUP, MANAGER_LABEL, MANAGER_VALUE } from '../model/constants.ts';
import type { Logger } from '../util/logger.ts';
import type { BackoffOptions } from '../util/backoff.ts';
import type { Clock } from '../util/clock.ts';
import { ResilientInformer } from '../util/informer.ts';

export interface ManagedWatchOptions {
  readonly kc: KubeConfig;
  readonly onChange: () => void;
  readonly plurals?: readonly string[];
  readonly backoff?: BackoffOptions;
  readonly clock?: Clock;
  readonly logger: Logger;
}

export class ManagedObjectsWatch {
  private readonly informers: ResilientInformer[];

  constructor(o: ManagedWatchOptions) {
    const api = o.kc.makeApiClient(CustomObjectsApi);
    const labelSelector = `${MANAGER_LABEL}=${MANAGER_VALUE}`;
    this.informers = (o.plurals ?? ['envoyfilters', 'virtualservices']).map((plural) => {
      const r = { group: ISTIO_GROUP, version: 'v1alpha3', plural };
      const changed = () => {
        if (informer.synced) o.onChange();
      };
      const informer: ResilientInformer = new ResilientInformer({
        kc: o.kc,
        path: `/apis/${r.group}/${r.version}/${plural}`,
        labelSelector,
        list: async () =>
          (await api.listClusterCustomObject({
            ...r,
            labelSelector,
          })) as KubernetesListObject<KubernetesObject>,
        handlers: { upsert: changed, delete: changed },
        ...(o.backoff ? { backoff: o.backoff } : {}),
        ...(o.clock ? { clock: o.clock } : {}),
        logger: o.logger.child({ component: 'managed-watch' }),
      });
      return informer;
    });
  }

  start(): void {
    for (const i of this.informers) i.start();
  }

  whenSynced(): Promise<void> {
    return Promise.all(this.informers.map((i) => i.whenSynced())).then(() => undefined);
  }

  async stop(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.stop()));
  }
}
