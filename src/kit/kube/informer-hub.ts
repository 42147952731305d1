/**
 * One shared informer per watched resource and process: every reader of a resource subscribes here instead of
 * building its own informer, so each resource is listed and watched once (status targets and config sources read
 * the same CRDs; the registries and the namespace bootstrap the same Namespaces; the VIP allocator and the kube
 * config source the same ServiceEntries).
 *
 * An informer is keyed by (watch path, label selector, field selector); the path carries the namespace scope.
 * Every informer is a KindInformer (kind-informer.ts): discovery first for a non-core group, not installed is
 * empty, forbidden names the RBAC rule. Reducers (`reduce`): each subscriber may reduce objects to the fields it
 * uses; the shared informer caches the union of what its subscribers keep (the deep merge of every reducer's
 * output, lists item by item, metadata name, namespace and resourceVersion always kept), or whole objects as soon as one subscriber
 * reduces nothing. A reducer must write each field it keeps under the name it reads.
 *
 * Contract: handlers of one subscription are called in event order, only between its `start` and `stop`; a
 * subscription started while its informer already runs first receives every cached object (replay), then the
 * events. The informer starts with its first started subscription and stops with its last one. Subscribing with a
 * reducer the running informer does not already apply is a bug (the cache lacks its fields): it throws.
 */
import {
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
} from '@kubernetes/client-node';
import type { BackoffOptions } from '../../util/backoff.ts';
import type { Clock } from '../../util/clock.ts';
import { isPlainObject } from '../../util/json.ts';
import type { Logger } from '../../util/logger.ts';
import { ApiDiscovery, type ResourceDiscovery, type ResourceId } from './discovery.ts';
import { KindInformer, type KindDiscoveryOptions, type KindStatus } from './kind-informer.ts';

/** What a subscriber reads: one resource, at one watch path, with its selectors. */
export interface WatchSpec {
  readonly kind: string;
  readonly resource: ResourceId;
  /** Watch path, e.g. `/apis/metaprotocol.aeraki.io/v1alpha1/metarouters` or `/api/v1/namespaces/x/configmaps`. */
  readonly path: string;
  /** The list call (paging and selectors its own); the first subscriber's is used. */
  readonly list: () => Promise<KubernetesListObject<KubernetesObject>>;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

export interface SubscriptionHandlers {
  upsert(obj: KubernetesObject): void;
  delete(obj: KubernetesObject): void;
  /** The informer's state changed (kind-informer.ts onStateChange): synced, not installed, forbidden, ... */
  stateChanged?(): void;
}

export interface SubscribeOptions {
  /** Reduces each object to the fields this subscriber uses (default: whole objects). */
  readonly reduce?: (obj: KubernetesObject) => KubernetesObject;
  /** False: not installed is missing, not empty (never synced; said at error). Default true. */
  readonly optional?: boolean;
  /** False: this subscriber does not announce not installed / forbidden (another one of the kind does). */
  readonly announce?: boolean;
  /**
   * 'listed-once': `synced` turns true with the first list and stays true (a plain informer's rule). Default
   * 'kind': listed, or not installed when optional, and never while forbidden.
   */
  readonly syncedWhen?: 'kind' | 'listed-once';
}

/** One subscriber's view of a shared informer. */
export interface Subscription {
  readonly synced: boolean;
  /** Resolves the first time `synced` is true. */
  whenSynced(): Promise<void>;
  status(): KindStatus;
  /** Restarts after errors of the shared informer. */
  readonly restarts: number;
  /** The cached objects (reduced; not copies: do not change them). */
  objects(): readonly KubernetesObject[];
  start(): void;
  stop(): Promise<void>;
}

/** The port features take their informers from (the app builds one InformerHub per process). */
export interface KubeInformers {
  subscribe(spec: WatchSpec, handlers: SubscriptionHandlers, options?: SubscribeOptions): Subscription;
}

export interface InformerHubOptions extends KindDiscoveryOptions {
  readonly kc: KubeConfig;
  readonly backoff?: BackoffOptions;
  readonly minWatchIntervalMs?: number;
  /** Default: ApiDiscovery over `kc`, shared by every informer. */
  readonly discovery?: ResourceDiscovery;
  readonly clock?: Clock;
  readonly logger: Logger;
}

/** The watch key of a spec: path and selectors. */
export function watchKey(spec: Pick<WatchSpec, 'path' | 'labelSelector' | 'fieldSelector'>): string {
  return `${spec.path}?labelSelector=${spec.labelSelector ?? ''}&fieldSelector=${spec.fieldSelector ?? ''}`;
}

/**
 * Deep merge of reduced objects: plain objects merged key by key, arrays of the same length item by item (two
 * reducers mapping the same list, e.g. a Gateway's listeners, each keep fields of every item); anything else: the
 * later one.
 */
function merge(a: unknown, b: unknown): unknown {
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) return a.map((x, i) => merge(x, b[i]));
  if (!isPlainObject(a) || !isPlainObject(b)) return b;
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = k in out ? merge(out[k], v) : v;
  return out;
}

class Sub implements Subscription {
  active = false;
  private readonly waiters: (() => void)[] = [];

  constructor(
    private readonly shared: Shared,
    readonly handlers: SubscriptionHandlers,
    readonly options: SubscribeOptions,
  ) {}

  get synced(): boolean {
    const informer = this.shared.informer;
    if (this.options.syncedWhen === 'listed-once') return informer.listed;
    const phase = informer.status().phase;
    if (phase === 'forbidden') return false;
    if (phase === 'not-installed') return this.options.optional ?? true;
    return informer.listed;
  }

  whenSynced(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  status(): KindStatus {
    const s = this.shared.informer.status();
    return { ...s, optional: this.options.optional ?? true };
  }

  get restarts(): number {
    return this.shared.informer.restarts;
  }

  objects(): readonly KubernetesObject[] {
    return this.shared.informer.objects();
  }

  start(): void {
    if (this.active) return;
    this.active = true;
    this.shared.started(this);
  }

  async stop(): Promise<void> {
    if (!this.active) return;
    this.active = false;
    await this.shared.stopped();
  }

  stateChanged(): void {
    if (this.synced) for (const w of this.waiters.splice(0)) w();
    this.handlers.stateChanged?.();
  }
}

/** One shared informer and its subscribers. */
class Shared {
  readonly subs: Sub[] = [];
  /** Whole objects (some subscriber reduces nothing), or the reducers whose union is cached. */
  private whole = false;
  private readonly reducers: ((obj: KubernetesObject) => KubernetesObject)[] = [];
  readonly informer: KindInformer;
  private running = 0;

  constructor(hub: InformerHubOptions, discovery: ResourceDiscovery, spec: WatchSpec) {
    const subs = this.subs;
    this.informer = new KindInformer({
      kc: hub.kc,
      kind: spec.kind,
      resource: spec.resource,
      discovery,
      path: spec.path,
      list: spec.list,
      ...(spec.labelSelector !== undefined ? { labelSelector: spec.labelSelector } : {}),
      ...(spec.fieldSelector !== undefined ? { fieldSelector: spec.fieldSelector } : {}),
      // Required when one subscriber requires it; announced when one subscriber announces.
      get optional() {
        return subs.every((s) => s.options.optional ?? true);
      },
      get announce() {
        return subs.length === 0 || subs.some((s) => s.options.announce ?? true);
      },
      transform: (obj) => this.reduce(obj),
      handlers: {
        upsert: (obj) => {
          for (const s of this.subs) if (s.active) s.handlers.upsert(obj);
        },
        delete: (obj) => {
          for (const s of this.subs) if (s.active) s.handlers.delete(obj);
        },
      },
      onStateChange: () => {
        for (const s of this.subs) if (s.active) s.stateChanged();
      },
      ...(hub.backoff ? { backoff: hub.backoff } : {}),
      ...(hub.minWatchIntervalMs !== undefined ? { minWatchIntervalMs: hub.minWatchIntervalMs } : {}),
      ...(hub.rediscoverMs !== undefined ? { rediscoverMs: hub.rediscoverMs } : {}),
      ...(hub.forbiddenBackoff ? { forbiddenBackoff: hub.forbiddenBackoff } : {}),
      ...(hub.clock ? { clock: hub.clock } : {}),
      logger: hub.logger,
    });
  }

  add(sub: Sub): void {
    const reduce = sub.options.reduce;
    const covered = this.whole ? true : reduce !== undefined && this.reducers.includes(reduce);
    if (this.running > 0 && !covered) {
      throw new Error(
        `${this.informer.status().kind}: a reader needs fields the running informer does not keep`,
      );
    }
    if (reduce === undefined) this.whole = true;
    else if (!this.reducers.includes(reduce)) this.reducers.push(reduce);
    this.subs.push(sub);
  }

  private reduce(obj: KubernetesObject): KubernetesObject {
    if (this.whole || this.reducers.length === 0) return obj;
    if (this.reducers.length === 1) return this.reducers[0]!(obj);
    const md = obj.metadata ?? {};
    const base: KubernetesObject = {
      metadata: {
        ...(md.name !== undefined ? { name: md.name } : {}),
        ...(md.namespace !== undefined ? { namespace: md.namespace } : {}),
        ...(md.resourceVersion !== undefined ? { resourceVersion: md.resourceVersion } : {}),
      },
    };
    return this.reducers.reduce<unknown>((acc, r) => merge(acc, r(obj)), base) as KubernetesObject;
  }

  started(sub: Sub): void {
    this.running++;
    if (this.running === 1) {
      this.informer.start();
      return;
    }
    // Late subscriber: the objects held so far, then its state.
    for (const obj of this.informer.objects()) sub.handlers.upsert(obj);
    sub.stateChanged();
  }

  async stopped(): Promise<void> {
    this.running--;
    if (this.running === 0) await this.informer.stop();
  }
}

export class InformerHub implements KubeInformers {
  private readonly o: InformerHubOptions;
  private readonly discovery: ResourceDiscovery;
  private readonly shared = new Map<string, Shared>();

  constructor(options: InformerHubOptions) {
    this.o = options;
    this.discovery = options.discovery ?? new ApiDiscovery(options.kc);
  }

  subscribe(spec: WatchSpec, handlers: SubscriptionHandlers, options: SubscribeOptions = {}): Subscription {
    const key = watchKey(spec);
    let shared = this.shared.get(key);
    if (!shared) {
      shared = new Shared(this.o, this.discovery, spec);
      this.shared.set(key, shared);
    }
    const sub = new Sub(shared, handlers, options);
    shared.add(sub);
    return sub;
  }

  /** The watch keys of the informers built so far (tests, debug). */
  keys(): string[] {
    return [...this.shared.keys()].sort();
  }
}

/** The Namespaces of the cluster (the namespace bootstrap and the registries read them). */
export function namespacesWatch(kc: KubeConfig): WatchSpec {
  return {
    kind: 'Namespace',
    resource: { group: '', version: 'v1', plural: 'namespaces' },
    path: '/api/v1/namespaces',
    list: async () => await kc.makeApiClient(CoreV1Api).listNamespace(),
  };
}

/**
 * Every object of a custom resource, cluster-wide (`/apis/<group>/<version>/<plural>`): the one spec each reader of
 * such a kind subscribes with, so readers of the same kind share one informer (same path, no selector).
 */
export function clusterCustomObjectsWatch(
  kc: KubeConfig,
  kind: string,
  r: { readonly group: string; readonly version: string; readonly plural: string },
): WatchSpec {
  const api = kc.makeApiClient(CustomObjectsApi);
  const { group, version, plural } = r;
  return {
    kind,
    resource: { group, version, plural },
    path: `/apis/${group}/${version}/${plural}`,
    list: async () =>
      (await api.listClusterCustomObject({
        group,
        version,
        plural,
      })) as KubernetesListObject<KubernetesObject>,
  };
}

/** A reducer (SubscribeOptions.reduce) keeping an object's name, namespace, resourceVersion and labels only. */
export function nameAndLabels(obj: KubernetesObject): KubernetesObject {
  const { name, namespace, resourceVersion, labels } = obj.metadata ?? {};
  return {
    metadata: {
      ...(name !== undefined ? { name } : {}),
      ...(namespace !== undefined ? { namespace } : {}),
      ...(resourceVersion !== undefined ? { resourceVersion } : {}),
      ...(labels !== undefined ? { labels } : {}),
    },
  };
}

/** What a feature built alone (as in its unit tests) needs to make the informers serve would hand it. */
export interface OwnInformersOptions {
  readonly kc: KubeConfig;
  /** The process's shared informers; when absent, the feature gets a hub of its own. */
  readonly informers?: KubeInformers;
  readonly backoff?: BackoffOptions;
  readonly minWatchIntervalMs?: number;
  readonly discovery?: KindDiscoveryOptions;
  readonly clock?: Clock;
}

/** `o.informers`, or a hub of the feature's own with its settings. */
export function informersOf(o: OwnInformersOptions, logger: Logger): KubeInformers {
  return (
    o.informers ??
    new InformerHub({
      kc: o.kc,
      ...(o.backoff ? { backoff: o.backoff } : {}),
      ...(o.minWatchIntervalMs !== undefined ? { minWatchIntervalMs: o.minWatchIntervalMs } : {}),
      ...o.discovery,
      ...(o.clock ? { clock: o.clock } : {}),
      logger,
    })
  );
}
