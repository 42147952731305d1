/**
 * How `aeraki serve`'s parts follow what changed (serve-topics.ts lists each topic's publishers and followers):
 * - `config` (every store event): the reconciler notes the change (before the first sync only a trigger: the time
 *   from an event to its write would measure the sync, not a change) and the routes follow it once synced;
 * - `kinds`: a rebuild of the routes once every source is synced again (events were not routed while a kind was
 *   forbidden), and a reconcile;
 * - `rejections`: published from proxy status, which is asked again soon after each write;
 * - a source's problems (the directory's files): a reconcile.
 * The status controller follows its own topics where the output builds it (serve-writers.ts).
 */
import type { ConfigStore } from '../controller/store.ts';
import type { Reconciler } from '../reconcile/reconciler.ts';
import { errorFields, type Logger } from '../util/logger.ts';
import type { RouteSource } from '../xds-rds/route-source.ts';
import type { ProxyStatusPart } from './proxy-status.ts';
import type { Topics } from './serve-topics.ts';
import type { ConfigSources } from './sources.ts';

export interface ServeFlow {
  readonly store: ConfigStore;
  readonly topics: Topics;
  readonly sources: ConfigSources;
  readonly reconciler: Reconciler;
  readonly routes: RouteSource;
  readonly proxyStatus: ProxyStatusPart | undefined;
}

export function wireFlow({ store, topics, sources, reconciler, routes, proxyStatus }: ServeFlow): void {
  if (proxyStatus) {
    proxyStatus.rejections.subscribe((list) => topics.rejections.publish(list));
    reconciler.onRun((r) => {
      if (r.created + r.updated > 0) proxyStatus.nudge(); // ask the proxies soon after a write
    });
  }
  sources.withProblems()?.onProblemsChanged(() => reconciler.trigger());
  let wasSynced = false;
  topics.kinds.subscribe(({ synced }) => {
    if (synced && !wasSynced) routes.rebuild();
    wasSynced = synced;
    reconciler.trigger();
  });
  topics.config.subscribe((e) => {
    if (sources.synced) reconciler.changed(e);
    else reconciler.trigger();
    if (sources.synced) routes.onEvent(e);
  });
  store.subscribe((e) => topics.config.publish(e));
}

/** Once every source synced: the first routes and the first reconcile; logs what the store holds. */
export function afterFirstSync(
  { store, sources, routes, reconciler }: ServeFlow,
  log: Logger,
): Promise<void> {
  return sources
    .whenSynced()
    .then(() => {
      const counts: Record<string, number> = {};
      for (const k of store.configKinds) if (store.list(k).length > 0) counts[k] = store.list(k).length;
      log.info('config synced', { objects: counts, rejected: store.rejected().length });
      routes.rebuild();
      reconciler.trigger();
    })
    .catch((err: unknown) => log.error('first build after sync failed', errorFields(err)));
}
