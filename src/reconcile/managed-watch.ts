/**
 * Drift detection: a watch on the objects the reconciler manages (EnvoyFilters and VirtualServices labelled
 * `manager: Aeraki`). Any change or deletion after the initial list calls `onChange` (wired to the reconciler's
 * debounced trigger in app.ts), so a filter edited or deleted by hand is restored within one debounce.
 * With a `cache`, every event is recorded there (the reconciler plans against it instead of listing) and
 * `onChange` is called only for events that changed it and are not a write of the controller in flight: the
 * reconciler's own writes (recorded from their answers) come back here without causing another run.
 * The kinds written are required, not optional: a cluster without the EnvoyFilter CRD is not "no EnvoyFilters", it
 * is a cluster the controller cannot write to. `unavailable()` says so (for `/readyz`, which stays 503), as it
 * names an RBAC rule missing; the CRD installed later is picked up (kit/kube/kind-informer.ts).
 * The watch also knows the RDS routes each managed EnvoyFilter names (`rdsRoutes()`, model/unserved-routes.ts): its
 * informer keeps those names beside the spec's hash, never the spec.
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
import type { KindDiscoveryOptions, KindStatus } from '../kit/kube/kind-informer.ts';
import { InformerHub, type KubeInformers, type Subscription } from '../kit/kube/informer-hub.ts';
import { INFORMER_PAGE_SIZE, listInPages } from '../kit/kube/paged-list.ts';
import type { ManagedKind } from './diff.ts';
import { existingFields, toExisting } from '../kit/kube/bodies.ts';
import type { ManagedCache } from './managed-cache.ts';
import { rdsRouteNamesOf, type ManagedRoutes } from '../model/unserved-routes.ts';

/** The field of a reduced object holding the RDS route names its spec names. */
const RDS_ROUTES_FIELD = 'rdsRoutes';

/** The informer's reducer: what toExisting reads, and the RDS route names of the spec (not the spec). */
function managedFields(obj: KubernetesObject): KubernetesObject {
  const routes = rdsRouteNamesOf((obj as { spec?: unknown }).spec);
  return {
    ...existingFields(obj),
    ...(routes.length > 0 ? { [RDS_ROUTES_FIELD]: routes } : {}),
  };
}

/** The reduced object's route names: its own array (shared with the informer's cache, not copied) when clean. */
function routesOf(obj: KubernetesObject): readonly string[] {
  const routes = (obj as { [RDS_ROUTES_FIELD]?: unknown })[RDS_ROUTES_FIELD];
  if (!Array.isArray(routes)) return [];
  const names: unknown[] = routes;
  return names.every((r) => typeof r === 'string') ? names : names.filter((r) => typeof r === 'string');
}

const KIND_OF: Readonly<Record<string, ManagedKind>> = {
  envoyfilters: 'EnvoyFilter',
  virtualservices: 'VirtualService',
};

export interface ManagedWatchOptions {
  readonly kc: KubeConfig;
  /** The process's shared informers (default: informers of its own, with the timings below). */
  readonly informers?: KubeInformers;
  readonly onChange: () => void;
  /** Plurals of networking.istio.io v1alpha3 to watch (default envoyfilters and virtualservices). */
  readonly plurals?: readonly string[];
  /** Kept up to date from the watch; marked synced once every plural was listed. */
  readonly cache?: ManagedCache;
  readonly backoff?: BackoffOptions;
  /** Rediscovery of a CRD not installed and the backoff after 403. */
  readonly discovery?: KindDiscoveryOptions;
  readonly clock?: Clock;
  readonly logger: Logger;
}

export class ManagedObjectsWatch implements ManagedRoutes {
  private readonly informers: Subscription[];
  /** EnvoyFilter `namespace/name` → the RDS routes it names (none: absent). */
  private readonly routes = new Map<string, readonly string[]>();
  private routesListed = false;

  constructor(o: ManagedWatchOptions) {
    const api = o.kc.makeApiClient(CustomObjectsApi);
    const hub =
      o.informers ??
      new InformerHub({
        kc: o.kc,
        ...(o.backoff ? { backoff: o.backoff } : {}),
        ...o.discovery,
        ...(o.clock ? { clock: o.clock } : {}),
        logger: o.logger.child({ component: 'managed-watch' }),
      });
    const labelSelector = `${MANAGER_LABEL}=${MANAGER_VALUE}`;
    this.informers = (o.plurals ?? ['envoyfilters', 'virtualservices']).map((plural) => {
      const r = { group: ISTIO_GROUP, version: 'v1alpha3', plural };
      const kind = KIND_OF[plural] ?? 'EnvoyFilter';
      const changed = () => {
        if (informer.synced) o.onChange();
      };
      // With a cache, only events that changed it and are not the controller's own write in flight.
      const upsert = (obj: KubernetesObject) => {
        if (kind === 'EnvoyFilter') this.noteRoutes(obj, routesOf(obj));
        const e = toExisting(kind, obj);
        if (!o.cache) changed();
        else if (e && o.cache.upsert(e) && !o.cache.writing(kind, e.namespace, e.name)) changed();
      };
      const remove = (obj: KubernetesObject) => {
        if (kind === 'EnvoyFilter') this.noteRoutes(obj, []);
        const { namespace = '', name = '', resourceVersion = '' } = obj.metadata ?? {};
        if (!o.cache) changed();
        else if (
          o.cache.remove(kind, namespace, name, resourceVersion) &&
          !o.cache.writing(kind, namespace, name)
        )
          changed();
      };
      const informer: Subscription = hub.subscribe(
        {
          kind,
          resource: r,
          path: `/apis/${r.group}/${r.version}/${plural}`,
          labelSelector,
          // In pages, as the reconciler lists: 30,000 filters are parsed a page at a time, not in one stretch.
          list: () =>
            listInPages((next) =>
              api.listClusterCustomObject({
                ...r,
                labelSelector,
                limit: INFORMER_PAGE_SIZE,
                ...(next ? { _continue: next } : {}),
              }),
            ) as Promise<KubernetesListObject<KubernetesObject>>,
        },
        { upsert, delete: remove },
        // The informer caches what toExisting reads (the metadata and the spec's hash) and the RDS route names, not
        // the spec.
        { optional: false, reduce: managedFields },
      );
      return informer;
    });
    if (o.cache) {
      const cache = o.cache;
      void this.whenSynced().then(() => cache.markSynced());
    }
    void this.whenSynced().then(() => (this.routesListed = true));
  }

  /** The RDS routes of every managed EnvoyFilter, once every kind was listed. */
  rdsRoutes(): ReadonlyMap<string, readonly string[]> | undefined {
    return this.routesListed ? this.routes : undefined;
  }

  private noteRoutes(obj: KubernetesObject, routes: readonly string[]): void {
    const key = `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
    if (routes.length > 0) this.routes.set(key, routes);
    else this.routes.delete(key);
  }

  start(): void {
    for (const i of this.informers) i.start();
  }

  /** The kinds that keep the controller from writing: CRD not installed, or forbidden by RBAC. */
  unavailable(): KindStatus[] {
    return this.informers
      .map((i) => i.status())
      .filter((k) => k.phase === 'not-installed' || k.phase === 'forbidden');
  }

  whenSynced(): Promise<void> {
    return Promise.all(this.informers.map((i) => i.whenSynced())).then(() => undefined);
  }

  async stop(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.stop()));
  }
}
