/**
 * The status targets (kube.ts `toStatusTarget`) of every object of every status resource, kept by the process's
 * shared informer (kit/kube/informer-hub.ts: list+watch, 410 relist, backoff) of each CRD, so a status run plans without listing. The answers to the
 * controller's own status patches are recorded too (`record`), so the next run does not write them again.
 *
 * A CRD that is not installed holds nothing: as for the config sources (kit/kube/kind-informer.ts), discovery and the
 * list both say so, discovery asks again periodically and the informer starts once the CRD is installed. Watch
 * events and write answers race: an older resourceVersion never replaces a newer one (kit/kube/resource-version.ts).
 * `ready` is true while every resource is listed (or not installed) and none is forbidden; until then the port
 * lists for real.
 */
import { listInPages } from '../kit/kube/paged-list.ts';
import {
  CustomObjectsApi,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
} from '@kubernetes/client-node';
import type { BackoffOptions } from '../util/backoff.ts';
import type { Clock } from '../util/clock.ts';
import type { KindDiscoveryOptions } from '../kit/kube/kind-informer.ts';
import { informersOf, type KubeInformers, type Subscription } from '../kit/kube/informer-hub.ts';
import { isPlainObject } from '../util/json.ts';
import type { Logger } from '../util/logger.ts';
import { olderVersion, replacesVersion } from '../kit/kube/resource-version.ts';
import { statusFields, statusListPage, toStatusTarget, type StatusResource } from './kube.ts';
import type { StatusTarget } from './types.ts';
import type { ObjectRef } from '../model/result.ts';

export interface StatusTargetCacheOptions {
  readonly kc: KubeConfig;
  /** The process's shared informers (default: informers of its own, with the timings below). */
  readonly informers?: KubeInformers;
  /** The CRDs whose objects get a status (the port's `resources`). */
  readonly resources: readonly StatusResource[];
  /** Called after the first sync for every watch event that changed the cache (someone else's edit). */
  readonly onChange?: () => void;
  readonly backoff?: BackoffOptions;
  readonly minWatchIntervalMs?: number;
  /** Rediscovery of CRDs not installed, backoff after 403. */
  readonly discovery?: KindDiscoveryOptions;
  readonly clock?: Clock;
  readonly logger: Logger;
}

interface Entry {
  readonly resourceVersion: string;
  readonly target: StatusTarget;
}

const keyOf = (namespace: string, name: string) => `${namespace}/${name}`;

function metaOf(obj: unknown): { namespace: string; name: string; resourceVersion: string } {
  const m = isPlainObject(obj) && isPlainObject(obj['metadata']) ? obj['metadata'] : {};
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  return {
    namespace: text(m['namespace']),
    name: text(m['name']),
    resourceVersion: text(m['resourceVersion']),
  };
}

export class StatusTargetCache {
  private readonly o: StatusTargetCacheOptions;
  /** kind → namespace/name → entry. */
  private readonly byKind = new Map<string, Map<string, Entry>>();
  private readonly informers = new Map<string, Subscription>();
  /** Objects recorded or removed since the last takeChanges (`kind namespace/name`). */
  private changedRefs = new Map<string, ObjectRef>();

  constructor(options: StatusTargetCacheOptions) {
    this.o = options;
    const hub = informersOf(options, options.logger.child({ component: 'status-targets' }));
    for (const r of options.resources) {
      this.byKind.set(r.kind, new Map());
      this.informers.set(r.kind, this.informer(r, hub));
    }
  }

  /** True while every resource is listed or not installed, and none is forbidden. */
  get ready(): boolean {
    return [...this.informers.values()].every((i) => i.synced);
  }

  /** Every cached target, in resource order, then by namespace and name. */
  targets(): StatusTarget[] {
    const out: StatusTarget[] = [];
    for (const r of this.o.resources) {
      const entries = [...(this.byKind.get(r.kind)?.entries() ?? [])];
      entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      for (const [, e] of entries) out.push(e.target);
    }
    return out;
  }

  /** The cached object `kind namespace/name`. */
  get(kind: string, namespace: string, name: string): StatusTarget | undefined {
    return this.byKind.get(kind)?.get(keyOf(namespace, name))?.target;
  }

  /** The objects recorded or removed since the last call (the status port's changes). */
  takeChanges(): ObjectRef[] {
    const out = [...this.changedRefs.values()];
    this.changedRefs = new Map();
    return out;
  }

  private noteChange(kind: string, namespace: string, name: string): void {
    this.changedRefs.set(`${kind} ${namespace}/${name}`, { kind, namespace, name });
  }

  /**
   * Records an object of `kind` as the API server holds it (a watch event, a list item, a patch answer). Returns
   * true when that changed the cache (false for an unknown kind, an object without a name, an older or the same
   * resourceVersion).
   */
  record(kind: string, obj: unknown): boolean {
    const objects = this.byKind.get(kind);
    const r = this.o.resources.find((x) => x.kind === kind);
    const target = r ? toStatusTarget(r.kind, obj) : undefined;
    if (!objects || !target) return false;
    const { resourceVersion } = metaOf(obj);
    const key = keyOf(target.ref.namespace, target.ref.name);
    const cur = objects.get(key);
    if (cur && !replacesVersion(resourceVersion, cur.resourceVersion)) return false;
    objects.set(key, { resourceVersion, target });
    this.noteChange(kind, target.ref.namespace, target.ref.name);
    return true;
  }

  /** Records a deletion; a cached newer version (re-created since) stays. Returns true when one was removed. */
  remove(kind: string, obj: unknown): boolean {
    const objects = this.byKind.get(kind);
    const { namespace, name, resourceVersion } = metaOf(obj);
    const cur = objects?.get(keyOf(namespace, name));
    if (!objects || !cur || olderVersion(resourceVersion, cur.resourceVersion)) return false;
    this.noteChange(kind, namespace, name);
    return objects.delete(keyOf(namespace, name));
  }

  start(): void {
    for (const i of this.informers.values()) i.start();
  }

  async stop(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }

  private informer(r: StatusResource, hub: KubeInformers): Subscription {
    const api = this.o.kc.makeApiClient(CustomObjectsApi);
    const changed = (did: boolean) => {
      if (did && informer.synced) this.o.onChange?.();
    };
    // In pages, as the managed objects' informer lists (reconcile/managed-watch.ts).
    const list = () => listInPages(statusListPage(api, r)) as Promise<KubernetesListObject<KubernetesObject>>;
    const informer: Subscription = hub.subscribe(
      {
        kind: r.kind,
        resource: { group: r.group, version: r.version, plural: r.plural },
        path: `/apis/${r.group}/${r.version}/${r.plural}`,
        list,
      },
      {
        upsert: (obj) => changed(this.record(r.kind, obj)),
        delete: (obj) => changed(this.remove(r.kind, obj)),
        // CRD deleted: nothing of it (patch answers included).
        stateChanged: () => {
          if (informer.status().phase !== 'not-installed') return;
          const objects = this.byKind.get(r.kind);
          for (const e of objects?.values() ?? [])
            this.noteChange(r.kind, e.target.ref.namespace, e.target.ref.name);
          objects?.clear();
        },
      },
      // The config source reads the same kinds and says so; the cache holds what toStatusTarget reads.
      { announce: false, reduce: statusFields },
    );
    return informer;
  }
}
