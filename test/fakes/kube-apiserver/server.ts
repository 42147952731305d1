// The fake kube-apiserver: lifecycle, direct store access for tests, request log and fault controls.
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { CRD_RESOURCE, crdOf, followCrds, uninstall } from './crds.ts';
import { Faults, type Fault, type FaultMatch } from './faults.ts';
import { collectGarbage } from './gc.ts';
import { handle, type HandlerContext } from './handler.ts';
import { present } from './objects.ts';
import { deleteObject } from './reads.ts';
import { DEFAULT_RESOURCES, preferredVersion, Registry } from './registry.ts';
import { ObjectStore } from './store.ts';
import { testTls } from './tls.ts';
import {
  WRITE_VERBS,
  type KubeObject,
  type RequestRecord,
  type ResourceRef,
  type ResourceType,
} from './types.ts';
import { WatchHub } from './watch.ts';
import { createObject, updateObject, type WriteContext } from './writes.ts';

export interface FakeKubeApiServerOptions {
  /** Serve HTTPS with the process's test CA (see `caPem`); default plain HTTP. */
  tls?: boolean;
  /** Port to listen on (default: an ephemeral one); always 127.0.0.1. */
  port?: number;
  /** How many events the log keeps for watch replay; older resourceVersions get 410 (default 10000). */
  eventWindow?: number;
  /** Period of BOOKMARK events on watches that allow them; 0 = only on sendBookmarks() (default 0). */
  bookmarkIntervalMs?: number;
  /** Reject writes into namespaces that do not exist, as the real server does (default false). */
  requireNamespaces?: boolean;
  /** Extra resource types besides DEFAULT_RESOURCES. */
  resources?: ResourceType[];
  /** Default resources not to serve, as `plural.group` (a cluster without those CRDs; installCrd adds them). */
  omitResources?: string[];
  /** The server's clock for creationTimestamp/managedFields times. */
  now?: () => Date;
}

/** `{group, resource}`, or a string `plural.group` / `plural` (core), e.g. 'envoyfilters.networking.istio.io'. */
export type RefLike = ResourceRef | string;

export class FakeKubeApiServer {
  readonly registry = new Registry();
  readonly faults = new Faults();
  /** Every request answered (or dropped), in order; watches are recorded when they start. */
  readonly requests: RequestRecord[] = [];
  private readonly store: ObjectStore;
  private readonly hub: WatchHub;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly listeners = new Set<(r: RequestRecord) => void>();
  private readonly now: () => Date;
  private readonly writeCtx: WriteContext;
  private seq = 0;
  private outage = false;
  readonly caPem: string | undefined;
  url = '';
  port = 0;

  constructor(opts: FakeKubeApiServerOptions = {}) {
    this.now = opts.now ?? (() => new Date());
    const omit = new Set(opts.omitResources ?? []);
    for (const rt of [...DEFAULT_RESOURCES, CRD_RESOURCE, ...(opts.resources ?? [])]) {
      if (!omit.has(`${rt.plural}.${rt.group}`)) this.registry.register(rt);
    }
    this.store = new ObjectStore(opts.eventWindow ?? 10_000);
    this.hub = new WatchHub(this.store, opts.bookmarkIntervalMs ?? 0);
    followCrds(this.registry, this.store, this.hub);
    collectGarbage(this.registry, this.store, this.now);
    this.writeCtx = {
      store: this.store,
      now: this.now,
      requireNamespaces: opts.requireNamespaces ?? false,
      namespaceType: this.registry.ref({ group: '', resource: 'namespaces' }),
    };
    const ctx: HandlerContext = {
      registry: this.registry,
      store: this.store,
      hub: this.hub,
      faults: this.faults,
      write: this.writeCtx,
      now: this.now,
      nextSeq: () => ++this.seq,
      record: (r) => {
        this.requests.push(r);
        for (const l of [...this.listeners]) l(r);
      },
    };
    const onRequest = (req: Parameters<typeof handle>[1], res: Parameters<typeof handle>[2]): void => {
      void handle(ctx, req, res);
    };
    if (opts.tls) {
      const t = testTls();
      this.caPem = t.caPem;
      this.server = createHttpsServer({ cert: t.certPem, key: t.keyPem }, onRequest);
    } else this.server = createHttpServer(onRequest);
    this.server.on(opts.tls ? 'secureConnection' : 'connection', (s: Socket) => this.track(s));
    if (opts.tls) this.server.on('connection', (s: Socket) => this.track(s));
  }

  private track(s: Socket): void {
    if (this.outage) {
      s.destroy();
      return;
    }
    this.sockets.add(s);
    s.on('close', () => this.sockets.delete(s));
  }

  async listen(port = 0): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    this.url = `${this.caPem ? 'https' : 'http'}://127.0.0.1:${this.port}`;
    return this;
  }

  /** Ends every watch and connection, then stops listening. */
  async close(): Promise<void> {
    this.hub.closeAll();
    for (const s of this.sockets) s.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  // ---- resource types and direct store access (no HTTP, no faults, not in `requests`) ----

  register(rt: ResourceType): ResourceType {
    return this.registry.register(rt);
  }

  /**
   * Installs a CRD for `ref` (a default resource, served or omitted, or any ResourceType): stores its
   * CustomResourceDefinition, which makes discovery list it and its paths answer. Returns the stored CRD.
   */
  installCrd(ref: RefLike | ResourceType): KubeObject {
    const rt = typeof ref !== 'string' && 'kind' in ref ? ref : this.knownType(ref);
    return this.seed(crdOf(rt))[0]!;
  }

  /**
   * Uninstalls a resource as deleting its CRD does: its objects are deleted (watch events), its watches end and
   * it is no longer served (discovery and its paths answer 404). False when it was not served.
   */
  uninstallCrd(ref: RefLike): boolean {
    const rt = this.knownType(ref);
    if (!this.registry.find(rt.group, rt.plural)) return false;
    const crdName = `${rt.plural}.${rt.group}`;
    if (this.get(CRD_RESOURCE_REF, undefined, crdName)) this.delete(CRD_RESOURCE_REF, undefined, crdName);
    else
      uninstall(
        this.registry,
        this.store,
        this.hub,
        this.registry.ref({ group: rt.group, resource: rt.plural }),
      );
    return true;
  }

  /** RBAC forbids the matching requests (403 with the authorizer's Status) until the returned fault is removed. */
  forbid(match: FaultMatch): Fault {
    return this.faults.inject({ ...match, forbid: true, times: Infinity });
  }

  /** A registered type, or a default one (also when omitted or uninstalled). */
  private knownType(ref: RefLike): ResourceType {
    const { group, resource } = typeof ref === 'string' ? splitRef(ref) : ref;
    const rt =
      this.registry.find(group, resource) ??
      DEFAULT_RESOURCES.find((d) => d.group === group && d.plural === resource);
    if (!rt) throw new Error(`fake kube-apiserver: unknown resource ${resource}.${group}`);
    return rt;
  }

  resourceType(ref: RefLike): ResourceType {
    return this.registry.ref(typeof ref === 'string' ? splitRef(ref) : ref);
  }

  private typeOf(obj: KubeObject): { rt: ResourceType; version: string } {
    const rt = this.registry.byKind(obj.apiVersion ?? '', obj.kind ?? '');
    if (!rt)
      throw new Error(
        `fake kube-apiserver: no resource registered for ${obj.apiVersion ?? ''} ${obj.kind ?? ''}`,
      );
    return { rt, version: (obj.apiVersion ?? '').split('/').at(-1)! };
  }

  /**
   * Creates or replaces objects (by apiVersion/kind) as field manager `manager` (default 'fake-seed'),
   * with the same bookkeeping and watch events as an API write. Returns the stored objects.
   */
  seed(objs: KubeObject | KubeObject[], manager = 'fake-seed'): KubeObject[] {
    return (Array.isArray(objs) ? objs : [objs]).map((obj) => {
      const { rt, version } = this.typeOf(obj);
      const ns = rt.namespaced ? (obj.metadata.namespace ?? 'default') : undefined;
      const live = this.store.get(rt, ns, obj.metadata.name ?? '');
      const opts = { fieldManager: manager, withStatus: true };
      if (!live) return createObject(this.writeCtx, rt, version, ns, obj, opts);
      const body = { ...obj, metadata: { ...obj.metadata, resourceVersion: undefined } };
      return updateObject(this.writeCtx, rt, version, ns, obj.metadata.name ?? '', body, opts);
    });
  }

  get(ref: RefLike, namespace: string | undefined, name: string): KubeObject | undefined {
    const rt = this.resourceType(ref);
    const o = this.store.get(rt, rt.namespaced ? namespace : undefined, name);
    return o && present(rt, preferredVersion(rt), o);
  }

  /** Objects ordered by namespace/name (all namespaces when `namespace` is undefined). */
  list(ref: RefLike, namespace?: string): KubeObject[] {
    const rt = this.resourceType(ref);
    return this.store.scan(rt, namespace).map((o) => present(rt, preferredVersion(rt), o));
  }

  /** Deletes like an API DELETE (finalizers respected); false when it did not exist. */
  delete(ref: RefLike, namespace: string | undefined, name: string): boolean {
    const rt = this.resourceType(ref);
    const ns = rt.namespaced ? namespace : undefined;
    if (!this.store.get(rt, ns, name)) return false;
    deleteObject(this.store, this.now, rt, preferredVersion(rt), ns, name, {});
    return true;
  }

  /** The current global resourceVersion. */
  resourceVersion(): number {
    return this.store.currentRv();
  }

  // ---- request log ----

  onRequest(listener: (r: RequestRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Successful (2xx) write requests, optionally filtered. */
  writes(match: Omit<FaultMatch, 'path'> = {}): RequestRecord[] {
    return this.requests.filter(
      (r) =>
        r.verb !== undefined &&
        WRITE_VERBS.includes(r.verb) &&
        r.status >= 200 &&
        r.status < 300 &&
        (match.verb === undefined || [match.verb].flat().includes(r.verb)) &&
        (match.group === undefined || match.group === r.group) &&
        (match.resource === undefined || match.resource === r.resource) &&
        (match.namespace === undefined || match.namespace === r.namespace) &&
        (match.name === undefined || match.name === r.name) &&
        (match.token === undefined || match.token === r.token),
    );
  }

  clearRequests(): void {
    this.requests.length = 0;
  }

  // ---- faults on watches and connections ----

  get openWatches(): number {
    return this.hub.openCount;
  }

  /** Ends every open watch stream normally (informers re-watch from their last resourceVersion). */
  closeWatches(): void {
    this.hub.closeAll();
  }

  /** Sends a BOOKMARK on every watch that allowed them. */
  sendBookmarks(): void {
    this.hub.bookmarkAll();
  }

  /** Forgets the event log: a watch from any older resourceVersion now gets a 410 Expired ERROR event. */
  compact(): void {
    this.store.compact();
  }

  /** Drops every connection (watches included) and refuses new ones until setOutage(false). */
  setOutage(on: boolean): void {
    this.outage = on;
    if (!on) return;
    this.hub.closeAll();
    for (const s of this.sockets) s.destroy();
  }
}

const CRD_RESOURCE_REF: ResourceRef = { group: CRD_RESOURCE.group, resource: CRD_RESOURCE.plural };

/** `envoyfilters.networking.istio.io` → group and plural; `configmaps` → the core group. */
function splitRef(ref: string): ResourceRef {
  const dot = ref.indexOf('.');
  return dot < 0 ? { group: '', resource: ref } : { group: ref.slice(dot + 1), resource: ref.slice(0, dot) };
}

/** Starts a fake server on 127.0.0.1 (ephemeral port unless `port` is given). Close it with `close()`. */
export async function startFakeKubeApiServer(
  opts: FakeKubeApiServerOptions = {},
): Promise<FakeKubeApiServer> {
  return new FakeKubeApiServer(opts).listen(opts.port ?? 0);
}
