/**
 * EndpointsView (model/ambient/endpoints.ts) from the Kubernetes API: what our waypoint's EDS is built from.
 * - A Kubernetes Service (a converted one, or istiod's synthetic ServiceEntry `synthetic-<name>` over MCP): the ready
 *   endpoints of its EndpointSlices on the slice port named as the service port, with the labels of their Pods
 *   (endpoints-services.ts). A change names two owners, `{kind: 'Service', namespace, name}` (the Service read
 *   from the Kubernetes API) and `{kind: 'ServiceEntry', namespace, name: 'synthetic-<name>'}` (the same over MCP):
 *   the subscriber acts on the one it holds.
 * - A ServiceEntry: its inline endpoints (read from the object given, as the ConfigStore holds it) or the
 *   WorkloadEntries its workloadSelector selects (endpoints-entries.ts). Its owner is `{kind: 'ServiceEntry', ...}`;
 *   a change of its inline endpoints is a change of the ServiceEntry, which the store announces itself.
 *
 * Three shared informers (kit/kube/informer-hub.ts), each object reduced before it is cached
 * (kube/workload-endpoints.ts): EndpointSlices (the very informer the Kubernetes source reads ports from: same
 * watch, reductions merged), Pods, and WorkloadEntries (optional: a cluster without the CRD has none, and the view
 * is synced all the same). Subscribed at construction, started by `start`: build the view before the Kubernetes
 * source starts (the hub refuses a new reduction on a running informer); then either may start first.
 *
 * Changes reach subscribers batched: every event of one burst (a list, a chunk of watch events) within one timer
 * turn (`clock.setTimeout(0)`), as one call with the owners in owner order.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  informersOf,
  nameAndLabels,
  type KubeInformers,
  type OwnInformersOptions,
  type Subscription,
} from '../kit/kube/informer-hub.ts';
import type { KindStatus } from '../kit/kube/kind-informer.ts';
import type { EndpointsOwner, EndpointsView, WorkloadEndpoint } from '../model/ambient/endpoints.ts';
import { kubeServiceOf, SYNTHETIC_PREFIX } from '../model/names.ts';
import type { ServiceEntry, ServicePort } from '../model/objects.ts';
import type { ConfigView } from '../model/view.ts';
import { systemClock, type Clock, type TimerHandle } from '../util/clock.ts';
import { errorFields, type Logger } from '../util/logger.ts';
import { ownersSelecting, serviceEntryEndpoints, WorkloadEntryIndex } from './endpoints-entries.ts';
import { ServiceEndpointIndex } from './endpoints-services.ts';
import { reduceSlice } from './kube/endpoint-slices.ts';
import {
  endpointSlicesWatch,
  podsWatch,
  reduceSliceEndpoints,
  reduceWorkloadEntry,
  sliceEndpointsOf,
  workloadEntriesWatch,
  workloadEntryOf,
  type WorkloadEntryFacts,
} from './kube/workload-endpoints.ts';

export interface KubeEndpointsOptions extends OwnInformersOptions {
  /** The ServiceEntries whose workloadSelector may select a changed WorkloadEntry: the ConfigStore. */
  readonly config: Pick<ConfigView, 'serviceEntries'>;
  /**
   * The WorkloadEntry version read from the Kubernetes API (default v1, Istio 1.22+); false: not read here (another
   * source feeds them through `setWorkloadEntry`).
   */
  readonly workloadEntries?: 'v1' | 'v1alpha3' | false;
  /** Called when `kinds()` or `synced()` may have changed (readiness). */
  readonly onKindChange?: () => void;
  readonly clock?: Clock;
  readonly logger: Logger;
}

const ownerKey = (o: EndpointsOwner) => `${o.kind}/${o.namespace}/${o.name}`;

export class KubeEndpointsView implements EndpointsView {
  private readonly o: KubeEndpointsOptions;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly hub: KubeInformers;
  private readonly subs: Subscription[] = [];
  private readonly services = new ServiceEndpointIndex();
  private readonly entries = new WorkloadEntryIndex();
  private readonly listeners = new Set<(changed: readonly EndpointsOwner[]) => void>();
  private readonly pending = new Map<string, EndpointsOwner>();
  /** Namespace → label sets of WorkloadEntries changed since the last flush. */
  private readonly pendingEntries = new Map<string, Record<string, string>[]>();
  private timer: TimerHandle | undefined;
  private readonly syncedOnce = new Set<Subscription>();

  constructor(options: KubeEndpointsOptions) {
    this.o = options;
    this.log = options.logger.child({ component: 'endpoints' });
    this.clock = options.clock ?? systemClock;
    this.hub = informersOf({ ...options, clock: this.clock }, this.log);
    const kc = options.kc;
    const state = options.onKindChange ? { stateChanged: options.onKindChange } : {};
    const key = (obj: KubernetesObject) => [obj.metadata?.namespace ?? '', obj.metadata?.name ?? ''] as const;
    this.subs.push(
      this.hub.subscribe(
        endpointSlicesWatch(kc),
        {
          upsert: (obj) => this.noteServices(this.services.setSlice(...key(obj), sliceEndpointsOf(obj))),
          delete: (obj) => this.noteServices(this.services.setSlice(...key(obj), undefined)),
          ...state,
        },
        { reduce: reduceSliceEndpoints },
      ),
      this.hub.subscribe(
        podsWatch(kc),
        {
          upsert: (obj) => this.noteServices(this.services.setPod(...key(obj), obj.metadata?.labels ?? {})),
          delete: (obj) => this.noteServices(this.services.setPod(...key(obj), undefined)),
          ...state,
        },
        { reduce: nameAndLabels },
      ),
    );
    // The Kubernetes source's reader of slice ports (kube/endpoint-slices.ts) subscribes to the same informer when
    // it starts, with reduceSlice: registered here as well (never started, so never called) so that its
    // subscription finds its reduction applied whichever of the two starts first.
    this.hub.subscribe(
      endpointSlicesWatch(kc),
      { upsert: () => {}, delete: () => {} },
      { reduce: reduceSlice },
    );
    const version = options.workloadEntries ?? 'v1';
    if (version !== false) {
      this.subs.push(
        this.hub.subscribe(
          workloadEntriesWatch(kc, version),
          {
            upsert: (obj) => this.setWorkloadEntry(...key(obj), workloadEntryOf(obj)),
            delete: (obj) => this.setWorkloadEntry(...key(obj), undefined),
            ...state,
          },
          { reduce: reduceWorkloadEntry, optional: true },
        ),
      );
    }
  }

  start(): void {
    for (const s of this.subs) s.start();
  }

  async stop(): Promise<void> {
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    await Promise.all(this.subs.map((s) => s.stop()));
  }

  /**
   * Every resource listed (or found not installed) once: sticky, as the contract says, so a CRD installed later
   * (listing again) or a 403 later (what was listed is kept) does not take back what is known.
   */
  synced(): boolean {
    for (const s of this.subs) if (s.synced) this.syncedOnce.add(s);
    return this.syncedOnce.size === this.subs.length;
  }

  async whenSynced(): Promise<void> {
    await Promise.all(this.subs.map((s) => s.whenSynced()));
  }

  /** Where each resource read stands (readiness, `/debug`): served, not installed, forbidden, ... */
  kinds(): KindStatus[] {
    return this.subs.map((s) => s.status());
  }

  endpointsOf(service: ServiceEntry, port: ServicePort): readonly WorkloadEndpoint[] {
    const kube = kubeServiceOf(service);
    if (kube !== undefined) return this.services.endpoints(service.metadata.namespace, kube, port.name);
    return serviceEntryEndpoints(service, port, this.entries);
  }

  subscribe(listener: (changed: readonly EndpointsOwner[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Records WorkloadEntry `namespace/name` (undefined: deleted). The Kubernetes informer calls it; another source
   * of WorkloadEntries (MCP) may too, with `workloadEntries: false`.
   */
  setWorkloadEntry(namespace: string, name: string, facts: WorkloadEntryFacts | undefined): void {
    const labelSets = this.entries.set(namespace, name, facts);
    if (labelSets.length === 0) return;
    const list = this.pendingEntries.get(namespace) ?? [];
    list.push(...labelSets);
    this.pendingEntries.set(namespace, list);
    this.schedule();
  }

  /** Held objects (tests, memory measurements). */
  sizes(): { slices: number; pods: number; workloadEntries: number } {
    return { ...this.services.sizes(), workloadEntries: this.entries.size };
  }

  /** Notes the Services `ns/name` changed: as the Service, and as istiod's synthetic ServiceEntry of it (MCP). */
  private noteServices(keys: readonly string[]): void {
    for (const k of keys) {
      const slash = k.indexOf('/');
      const namespace = k.slice(0, slash);
      const name = k.slice(slash + 1);
      for (const owner of [
        { kind: 'Service', namespace, name },
        { kind: 'ServiceEntry', namespace, name: `${SYNTHETIC_PREFIX}${name}` },
      ] as const) {
        this.pending.set(ownerKey(owner), owner);
      }
    }
    if (keys.length > 0) this.schedule();
  }

  private schedule(): void {
    this.timer ??= this.clock.setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, 0);
  }

  private flush(): void {
    if (this.pendingEntries.size > 0) {
      for (const owner of ownersSelecting(this.o.config.serviceEntries(), this.pendingEntries)) {
        this.pending.set(ownerKey(owner), owner);
      }
      this.pendingEntries.clear();
    }
    if (this.pending.size === 0) return;
    const changed = [...this.pending.keys()].sort().map((k) => this.pending.get(k)!);
    this.pending.clear();
    for (const listener of [...this.listeners]) {
      try {
        listener(changed);
      } catch (err) {
        this.log.error('endpoints subscriber failed', { owners: changed.length, ...errorFields(err) });
      }
    }
  }
}
