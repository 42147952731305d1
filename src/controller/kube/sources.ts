/**
 * Config sources read from the Kubernetes API through resilient informers, into the store:
 * - the controller's own CRDs (MetaRouter, ApplicationProtocol and the plugins' kinds, `kinds`) and the mesh
 *   ConfigMap (`istio` in the root namespace, key `mesh`); the Secrets that objects of those kinds name are read by
 *   name (secrets.ts), never listed or watched;
 * - optionally (`--config-source kube`, the fallback when MCP is not reachable) the Istio kinds ServiceEntry,
 *   VirtualService, DestinationRule and Gateway from networking.istio.io v1, or v1alpha3 where v1 is not served;
 * - optionally (`--config-source kube`) Kubernetes Services, converted into the ServiceEntries istiod would
 *   synthesise for them (src/model/parse/service.ts). Over MCP istiod sends those itself.
 * - optionally (`ambient`, ambient.ts) Namespaces and, without MCP, Gateway API Gateways and GatewayClasses, into the
 *   store's AmbientView; a cluster without the Gateway API CRDs reads them as empty (no waypoints) and stays synced.
 * Every object goes through parseConfigObject: valid ones are upserted, invalid ones rejected (with their issues
 * and the hosts they bind) without touching any other object or the object's own last valid version.
 * Every kind is read through the process's shared informers (kit/kube/informer-hub.ts, KindInformers): a kind whose CRD is not installed is empty and
 * picked up when installed; a forbidden one (403) keeps `synced` false and names the RBAC rule in `kinds()`.
 * `synced` is true while every kind has listed once (or is not installed) and none is forbidden.
 */
import {
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
} from '@kubernetes/client-node';
import type { Logger } from '../../util/logger.ts';
import { errorFields } from '../../util/logger.ts';
import { boundGatewaysOf, boundHostsOf } from '../../model/bound-hosts.ts';
import { ISTIO_GROUP } from '../../model/constants.ts';
import { DEFAULT_MESH_CONFIG } from '../../model/mesh.ts';
import type { MeshConfig } from '../../model/objects.ts';
import {
  DEFAULT_PARSE_OPTIONS,
  meshConfigFromConfigMap,
  parseConfigObject,
  type ParseOptions,
} from '../../model/parse/parse.ts';
import { secretRefReader, type KindSpec } from '../../model/kinds.ts';
import { formatIssue } from '../../model/result.ts';

import { Backoff, type BackoffOptions } from '../../util/backoff.ts';
import { systemClock, type Clock } from '../../util/clock.ts';
import type { ResourceId } from '../../kit/kube/discovery.ts';
import { isPlainObject } from '../../util/json.ts';
import type { KindDiscoveryOptions, KindStatus } from '../../kit/kube/kind-informer.ts';
import {
  informersOf,
  type KubeInformers,
  type SubscribeOptions,
  type Subscription,
} from '../../kit/kube/informer-hub.ts';
import type { KeyedWrites } from '../store-changes.ts';
import { kubeSecretGetter, SecretReader, type SecretGetter } from './secrets.ts';
import { ambientReads, type KubeAmbientOptions } from './ambient.ts';
import { configFields } from './config-fields.ts';
import { ENDPOINT_SLICE_RESOURCE, endpointSliceReads, type EndpointPortsTarget } from './endpoint-slices.ts';
import {
  aerakiResources,
  detectIstioApiVersion,
  istioResources,
  resourcePath,
  SERVICE_RESOURCE,
  type IstioApiVersion,
  type KindResource,
} from './resources.ts';

/**
 * The part of the ConfigStore (src/controller/store.ts) the sources write to: its single-key writes (in `reject`,
 * `hosts` and `gateways` are what the invalid object binds, as written: model/bound-hosts.ts) and the mesh config.
 */
export interface StoreTarget extends KeyedWrites {
  setMesh(mesh: MeshConfig): void;
}

export interface KubeSourceOptions {
  readonly kc: KubeConfig;
  /**
   * The process's shared informers (default: informers of this source's own, with the timings below; with a hub
   * given, `backoff`, `minWatchIntervalMs` and `discovery` are the hub's).
   */
  readonly informers?: KubeInformers;
  readonly store: StoreTarget;
  readonly rootNamespace: string;
  /** The plugins' kinds (plugins/registry.ts): read with the core's own CRDs. */
  readonly kinds: readonly KindSpec[];
  /** MetaRouter, ApplicationProtocol, the plugins' kinds and the mesh ConfigMap (default true). */
  readonly aeraki?: boolean;
  /** The Istio kinds: a fixed version, 'auto' (v1 if served, else v1alpha3), or false (default: MCP serves them). */
  readonly istio?: IstioApiVersion | 'auto' | false;
  /** Kubernetes Services, converted into ServiceEntries (default false: MCP serves istiod's own conversion). */
  readonly services?: boolean;
  /** Where the EndpointSlices' ports go (endpoint-slices.ts, D16); undefined: slices are not read. */
  readonly endpointPorts?: EndpointPortsTarget;
  /**
   * Ambient inputs (ambient.ts): Namespaces, and with `gateways` Gateway API Gateways and GatewayClasses, into
   * `target`'s AmbientView; undefined: not read (least privilege).
   */
  readonly ambient?: KubeAmbientOptions;
  /** Domain of Kubernetes Service hosts (`--cluster-domain`, default cluster.local). */
  readonly clusterDomain?: string;
  readonly meshConfigMapName?: string;
  /** `--revision`: Istio objects labelled `istio.io/rev` with another value are ignored ('' = default revision). */
  readonly revision?: string;
  readonly backoff?: BackoffOptions;
  readonly minWatchIntervalMs?: number;
  /** Rediscovery period of kinds not installed and the backoff after 403 (defaults: 30 s; 5 s to 60 s). */
  readonly discovery?: KindDiscoveryOptions;
  /** Period of the reads of the Secrets objects name (`--secret-refresh-interval`, default 60 s). */
  readonly secretRefreshMs?: number;
  /** How a Secret is read (default: a GET by name over `kc`; tests inject one). */
  readonly secretGetter?: SecretGetter;
  /** Called when a kind's status (kinds()) or `synced` may have changed. */
  readonly onKindChange?: () => void;
  readonly clock?: Clock;
  readonly logger: Logger;
}

const REVISION_LABEL = 'istio.io/rev';

export class KubeSource {
  private readonly o: KubeSourceOptions;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly informers: Subscription[] = [];
  /** The ambient inputs' subscriptions, made at construction (see the constructor). */
  private readonly ambientInformers: Subscription[] = [];
  /** The Aeraki kinds' informers, subscribed in the constructor (see there). */
  private readonly aerakiInformers: Subscription[] = [];
  private readonly hub: KubeInformers;
  private readonly parseOptions: ParseOptions;
  private readonly secrets: SecretReader;
  /** The kinds whose objects may name Secrets: their objects go through the SecretReader. */
  private readonly secretOwners: ReadonlySet<string>;
  private stopped = false;
  private started: Promise<void> | undefined;
  /** The Istio API version in use once detected. */
  istioVersion: IstioApiVersion | undefined;

  constructor(options: KubeSourceOptions) {
    this.o = options;
    this.log = options.logger.child({ component: 'kube-source' });
    this.clock = options.clock ?? systemClock;
    this.hub = informersOf({ ...options, clock: this.clock }, this.log);
    this.parseOptions = {
      clusterDomain: options.clusterDomain ?? DEFAULT_PARSE_OPTIONS.clusterDomain,
      kinds: options.kinds,
    };
    const refs = secretRefReader(options.kinds);
    this.secretOwners = new Set(refs.ownerKinds);
    this.secrets = new SecretReader({
      get: options.secretGetter ?? kubeSecretGetter(options.kc),
      refsOf: refs.refsOf,
      hostsOf: refs.hostsOf,
      store: options.store,
      ...(options.secretRefreshMs !== undefined ? { refreshMs: options.secretRefreshMs } : {}),
      ...(options.backoff ? { backoff: options.backoff } : {}),
      ...(options.onKindChange ? { onChange: options.onKindChange } : {}),
      clock: this.clock,
      logger: options.logger,
    });
    // The Aeraki kinds too: the status target cache (status/target-cache.ts) reads them with a reducer of its own and
    // may start first.
    if (options.aeraki ?? true) {
      for (const r of aerakiResources(options.kinds)) this.aerakiInformers.push(this.crdInformer(r));
    }
    // Subscribed now, before anything starts: the Namespaces' informer is shared with readers that start earlier
    // (the bootstrap controller, the registries), and a reader joining a running informer must not need fields
    // the others' reductions drop (kit/kube/informer-hub.ts).
    if (options.ambient) {
      for (const a of ambientReads(options.kc, options.ambient, this.log)) {
        this.ambientInformers.push(
          this.hub.subscribe(a.spec, this.withStateChange(a.handlers), { reduce: a.reduce }),
        );
      }
    }
  }

  /** Starts every informer; resolves once they are started (not synced: see whenSynced). */
  start(): Promise<void> {
    this.started ??= this.startAll();
    return this.started;
  }

  get synced(): boolean {
    const informers = this.informers.length > 0 && this.informers.every((i) => i.synced);
    return this.started !== undefined && informers && this.secrets.settled;
  }

  async whenSynced(): Promise<void> {
    await this.start();
    await Promise.all(this.informers.map((i) => i.whenSynced()));
    await this.secrets.whenSettled();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.secrets.stop();
    await Promise.all(this.informers.map((i) => i.stop()));
  }

  /** Every kind read, in start order, with where it stands (served, not installed, forbidden, ...). */
  kinds(): KindStatus[] {
    return this.informers.map((i) => i.status());
  }

  /** Informer restarts after errors, summed (tests, metrics). */
  get restarts(): number {
    return this.informers.reduce((n, i) => n + i.restarts, 0);
  }

  private async startAll(): Promise<void> {
    const resources: KindResource[] = [];
    const istio = this.o.istio ?? false;
    if (istio !== false) {
      this.istioVersion = istio === 'auto' ? await this.detectWithRetry() : istio;
      if (this.stopped) return;
      this.log.info('reading Istio config from the Kubernetes API', { version: this.istioVersion });
      resources.push(...istioResources(this.istioVersion));
    }
    this.informers.push(...this.aerakiInformers);
    for (const r of resources) this.informers.push(this.crdInformer(r));
    if (this.o.services ?? false) this.informers.push(this.serviceInformer());
    if (this.o.aeraki ?? true) {
      this.informers.push(this.meshInformer());
      this.secrets.start();
    }
    const target = this.o.endpointPorts;
    if (target) {
      const { path, list, handlers, labelSelector, transform } = endpointSliceReads({
        kc: this.o.kc,
        target,
      });
      const reads = { labelSelector, ...(transform ? { reduce: transform } : {}) };
      this.informers.push(this.informer(ENDPOINT_SLICE_RESOURCE, path, list, handlers, undefined, reads));
    }
    this.informers.push(...this.ambientInformers);
    for (const i of this.informers) i.start();
  }

  private withStateChange<H extends object>(handlers: H): H & { stateChanged?: () => void } {
    const onKindChange = this.o.onKindChange;
    return { ...handlers, ...(onKindChange ? { stateChanged: onKindChange } : {}) };
  }

  private async detectWithRetry(): Promise<IstioApiVersion> {
    const backoff = new Backoff({ initialMs: 500, maxMs: 30_000, ...this.o.backoff });
    for (;;) {
      try {
        return await detectIstioApiVersion(this.o.kc);
      } catch (err) {
        if (this.stopped) return 'v1alpha3';
        const delay = backoff.next();
        this.log.warn('Istio API discovery failed, retrying', { delayMs: delay, ...errorFields(err) });
        await new Promise<void>((r) => this.clock.setTimeout(r, delay));
      }
    }
  }

  private informer(
    r: ResourceId & { readonly kind: string },
    path: string,
    list: () => Promise<KubernetesListObject<KubernetesObject>>,
    handlers: { upsert(o: KubernetesObject): void; delete(o: KubernetesObject): void },
    fieldSelector?: string,
    reads: { readonly labelSelector?: string; readonly reduce?: SubscribeOptions['reduce'] } = {},
  ): Subscription {
    const onKindChange = this.o.onKindChange;
    return this.hub.subscribe(
      {
        kind: r.kind,
        resource: { group: r.group, version: r.version, plural: r.plural },
        path,
        list,
        ...(reads.labelSelector !== undefined ? { labelSelector: reads.labelSelector } : {}),
        ...(fieldSelector !== undefined ? { fieldSelector } : {}),
      },
      { ...handlers, ...(onKindChange ? { stateChanged: onKindChange } : {}) },
      reads.reduce ? { reduce: reads.reduce } : {},
    );
  }

  private crdInformer(r: KindResource): Subscription {
    const api = this.o.kc.makeApiClient(CustomObjectsApi);
    const apiVersion = `${r.group}/${r.version}`;
    const list = async () =>
      (await api.listClusterCustomObject({
        group: r.group,
        version: r.version,
        plural: r.plural,
      })) as KubernetesListObject<KubernetesObject>;
    // The scope is the served CRD's, which may differ from ours (Aeraki's Helm chart serves ApplicationProtocol
    // namespaced): the API server gives `metadata.namespace` exactly to the objects of a namespaced resource.
    const remove = (obj: KubernetesObject) => {
      const ns = obj.metadata?.namespace ?? '';
      if (this.secretOwners.has(r.kind)) this.secrets.delete(r.kind, ns, obj.metadata?.name ?? '');
      else this.o.store.delete(r.kind, ns, obj.metadata?.name ?? '');
    };
    const revision = r.group === ISTIO_GROUP ? (this.o.revision ?? '') : undefined;
    const reads = { reduce: configFields };
    return this.informer(
      r,
      resourcePath(r),
      list,
      {
        upsert: (obj) => {
          // Another revision's object is treated as absent (as the MCP client does; istio ObjectInRevision).
          const rev = obj.metadata?.labels?.[REVISION_LABEL];
          if (revision !== undefined && rev !== undefined && rev !== revision) remove(obj);
          else
            this.applyObject(withTypeMeta(obj, apiVersion, r.kind), (obj.metadata?.namespace ?? '') !== '');
        },
        delete: remove,
      },
      undefined,
      reads,
    );
  }

  /** Services of every namespace (no revision filter: istiod converts every Service whatever its labels). */
  private serviceInformer(): Subscription {
    const core = this.o.kc.makeApiClient(CoreV1Api);
    const r = SERVICE_RESOURCE;
    const list = async () =>
      (await core.listServiceForAllNamespaces()) as KubernetesListObject<KubernetesObject>;
    return this.informer(
      r,
      resourcePath(r),
      list,
      {
        upsert: (obj) => this.applyObject(withTypeMeta(obj, r.version, r.kind)),
        delete: (obj) => this.o.store.delete(r.kind, obj.metadata?.namespace ?? '', obj.metadata?.name ?? ''),
      },
      undefined,
      { reduce: configFields },
    );
  }

  /** `namespaced`: the scope of the object's resource as served (absent: the kind's own). */
  private applyObject(raw: Record<string, unknown>, namespaced?: boolean): void {
    const options = namespaced === undefined ? this.parseOptions : { ...this.parseOptions, namespaced };
    const res = parseConfigObject(raw, options);
    if (res === undefined) return;
    if (res.ok) {
      // An object naming Secrets is stored once they are read (secrets.ts).
      if (this.secretOwners.has(res.value.kind)) this.secrets.offer(res.value);
      else this.o.store.upsert(res.value);
      for (const i of res.issues) this.log.warn('config issue', { issue: formatIssue(i) });
    } else {
      const first = res.issues[0];
      // The last valid version (if any) stays in the store: it remains in effect until a valid one or a delete.
      if (first) {
        if (this.secretOwners.has(first.ref.kind)) this.secrets.invalid(first.ref);
        const gateways = boundGatewaysOf(raw, first.ref.namespace);
        this.o.store.reject(first.ref, res.issues, boundHostsOf(raw), gateways);
      }
      for (const i of res.issues) this.log.warn('invalid config', { issue: formatIssue(i) });
    }
  }

  private meshInformer(): Subscription {
    const core = this.o.kc.makeApiClient(CoreV1Api);
    const ns = this.o.rootNamespace;
    const name = this.o.meshConfigMapName ?? 'istio';
    const fieldSelector = `metadata.name=${name}`;
    const list = async () =>
      (await core.listNamespacedConfigMap({
        namespace: ns,
        fieldSelector,
      })) as KubernetesListObject<KubernetesObject>;
    const apply = (obj: KubernetesObject) => {
      const raw = withTypeMeta(obj, 'v1', 'ConfigMap');
      // parse-mesh recognises the ConfigMap named `istio`; another name is read as if it were that one.
      const md = raw['metadata'] as Record<string, unknown>;
      const res = meshConfigFromConfigMap({ ...raw, metadata: { ...md, name: 'istio' } }, ns);
      if (res === undefined) return;
      if (res.ok) this.o.store.setMesh(res.value);
      else {
        this.o.store.reject({ kind: 'ConfigMap', namespace: ns, name }, res.issues);
        for (const i of res.issues) this.log.warn('invalid mesh config', { issue: formatIssue(i) });
      }
    };
    return this.informer(
      { kind: 'ConfigMap', group: '', version: 'v1', plural: 'configmaps' },
      `/api/v1/namespaces/${ns}/configmaps`,
      list,
      {
        upsert: apply,
        delete: () => {
          this.o.store.setMesh({ ...DEFAULT_MESH_CONFIG, rootNamespace: ns });
        },
      },
      fieldSelector,
    );
  }
}

/** Typed clients may return list items without apiVersion/kind; the parser needs them. */
function withTypeMeta(obj: KubernetesObject, apiVersion: string, kind: string): Record<string, unknown> {
  const raw = isPlainObject(obj) ? { ...obj } : {};
  if (typeof raw['apiVersion'] !== 'string') raw['apiVersion'] = apiVersion;
  if (typeof raw['kind'] !== 'string') raw['kind'] = kind;
  return raw;
}
