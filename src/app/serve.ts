/**
 * `aeraki serve`: one process running a config source, the store, the EnvoyFilter reconciler (leader only), the
 * RDS server (every replica), the validating webhook (with `--webhook-address`, every replica) and the admin HTTP
 * server. Each is a part of one runtime (kit/runtime.ts) and declares whether it needs the leader: the writers
 * (reconciler, status, bootstrap, VIPs, registries' kube output) run only while this replica leads (every replica
 * leads without leader election); the servers, sources, builders and watches run on every replica.
 *
 * Start order: the RDS, webhook and admin servers bind first (a taken port fails the start before anything else runs),
 * then the watches and the registries, with leader election (the writers start on election), then the sources.
 * Routes are built, and EnvoyFilters written, only after every source synced once.
 * Stop order (`stop()`, SIGTERM): `/readyz` turns 503, the writers stop, the lease is released; then the every-replica
 * parts in reverse: the registries and the RDS streams end, then the sources and watches stop and the debug, admin
 * and webhook servers and the identity provider close. A start that fails stops what started before it.
 */
import { InformerHub } from '../kit/kube/informer-hub.ts';
import { KubeConfig } from '@kubernetes/client-node';
import { leaderLoopPart, Runtime } from '../kit/runtime.ts';
import { ConfigStore } from '../controller/store.ts';
import { limitedApply } from '../kit/apply.ts';
import { systemClock } from '../util/clock.ts';
import { TokenBucket } from '../util/rate-limit.ts';
import type { Reconciler } from '../reconcile/reconciler.ts';
import { errorFields, type Logger } from '../util/logger.ts';
import { formatAddress, type ListenAddress } from '../util/address.ts';
import { AerakiMetrics } from '../ops/metrics.ts';
import { createGenerators, createPluginKinds } from '../plugins/registry.ts';
import type { BackoffOptions } from '../util/backoff.ts';
import { routeGrpcLogs } from '../util/grpc-logging.ts';
import type { KindDiscoveryOptions } from '../kit/kube/kind-informer.ts';
import { createLogger } from '../util/logging.ts';
import { routeAcksOf, RouteSource } from '../xds-rds/route-source.ts';
import { RdsServer } from '../xds-rds/server.ts';
import { SnapshotCache } from '../xds-rds/snapshot.ts';
import type { DevCertPaths } from '../tools/dev-certs.ts';
import { startIdentity, type ServeIdentity } from './identity.ts';
import { startWebhook, type RunningWebhook } from './webhook.ts';
import { buildWriters } from './serve-writers.ts';
import { buildOpsServers, provideServeMetrics, type ServeOpsInputs } from './serve-ops.ts';
import { httpPart, rdsPart, registriesPart, sourcesPart } from './serve-parts.ts';
import { needsKube, rdsLimits, rdsPeers, type ServeOptions } from './options.ts';
import { ConfigSources } from './sources.ts';
import { createRegistries } from './registries.ts';
import { buildProxyStatus } from './proxy-status.ts';
import { createTopics } from './serve-topics.ts';
import type { Registries, RegistryWatcherFactory } from '../registry/registries.ts';
import { leaderElector } from './kube-parts.ts';
import { outputOf } from './outputs.ts';

export interface ServeDeps {
  /** Default: winston with the options' level and format. */
  readonly logger?: Logger;
  /** Default: `options.kube.kubeconfig`, or the in-cluster configuration. */
  readonly kubeConfig?: KubeConfig;
  /** Retry backoff of informers, the MCP client and writes (tests shorten it). */
  readonly backoff?: BackoffOptions;
  /** Rediscovery period of kinds whose CRD is not installed, backoff after 403 (default 30 s; 5 s to 60 s). */
  readonly discovery?: KindDiscoveryOptions;
  /** Builds the registry watchers (default: REGISTRY_WATCHERS of registry/registries.ts by type). */
  readonly registryWatcher?: RegistryWatcherFactory;
}

export interface RunningServe {
  readonly store: ConfigStore;
  readonly rdsAddress: string;
  readonly rdsPort: number;
  readonly adminAddress: string;
  /** Where `/debug/*` is served (`--debug-endpoints`); undefined when it is off. */
  readonly debugAddress: string | undefined;
  /** The webhook's bound `host:port`; undefined without `--webhook-address`. */
  readonly webhookAddress: string | undefined;
  /** Development certificates in use (`--dev-certs`), with `generated` true when written by this start. */
  readonly devCerts: { readonly paths: DevCertPaths; readonly generated: boolean } | undefined;
  /** Resolves once every source synced and the first routes were built. */
  readonly synced: Promise<void>;
  readonly metrics: AerakiMetrics;
  readonly reconciler: Reconciler;
  readonly cache: SnapshotCache;
  /** The registry bridges; undefined without `--registry`. */
  readonly registries: Registries | undefined;
  isLeader(): boolean;
  /** Graceful stop; idempotent. */
  stop(): Promise<void>;
}

function loadKubeConfig(path: string): KubeConfig {
  const kc = new KubeConfig();
  if (path) kc.loadFromFile(path);
  else kc.loadFromCluster();
  return kc;
}

/** `make()`, or, when it throws, the runtime stopped (what started so far) and the error rethrown. */
async function orStop<T>(runtime: Runtime, make: () => T): Promise<T> {
  try {
    return make();
  } catch (err) {
    await runtime.stop().catch(() => {}); // each failing stop is logged; the error reported is this one
    throw err;
  }
}

/** The process's shared informers (one per watched resource). */
function sharedInformers(kc: KubeConfig, deps: ServeDeps, logger: Logger): InformerHub {
  return new InformerHub({
    kc,
    ...(deps.backoff ? { backoff: deps.backoff } : {}),
    ...deps.discovery,
    logger: logger.child({ component: 'informers' }),
  });
}

/** The RDS server on `host` (not listening yet). */
function rdsServer(
  o: ServeOptions,
  host: string,
  identity: ServeIdentity,
  cache: SnapshotCache,
  logger: Logger,
): RdsServer {
  const { rds, mesh, handshake } = o;
  return new RdsServer(
    {
      host,
      port: rds.address.port,
      tls: identity.tls,
      logger,
      peers: rdsPeers(rds, mesh),
      limits: rdsLimits(rds),
      handshake,
    },
    cache,
  );
}

/** What the listeners bound to, set as their parts start. */
interface Bound {
  rdsPort: number;
  webhook?: RunningWebhook;
  admin: ListenAddress;
  debug?: ListenAddress;
}

export async function startServe(o: ServeOptions, deps: ServeDeps = {}): Promise<RunningServe> {
  const logger =
    deps.logger ?? createLogger({ level: o.logging.level, format: o.logging.format, component: 'aeraki' });
  if (!deps.logger) routeGrpcLogs(logger); // grpc-js's own lines through ours (tests keep theirs apart)
  const log = logger.child({ component: 'serve' });
  const output = outputOf(o.output.kind);
  const kc = needsKube(o.source.kind, output, o.registries)
    ? (deps.kubeConfig ?? loadKubeConfig(o.kube.kubeconfig))
    : undefined;
  const metrics = new AerakiMetrics({ version: o.version });
  const elector = kc && output.electsLeader && o.leader.elect ? leaderElector(o, kc, logger) : undefined;
  const runtime = new Runtime({
    logger: log,
    elector,
    ...(elector ? { onLeadership: (leading: boolean) => metrics.recordLeadership(leading) } : {}),
  });
  const bound: Bound = { rdsPort: 0, admin: { host: '', port: 0 } };
  const identity = await startIdentity(
    o.identity,
    { mesh: o.mesh, rdsInsecure: o.rds.insecure, registries: o.registries },
    logger,
    deps.backoff,
  );
  await runtime.start({ name: 'identity', stop: () => identity.provider?.close() });
  // One informer per watched resource in the process, shared by every reader of it.
  const informers = kc ? sharedInformers(kc, deps, logger) : undefined;
  const store = new ConfigStore({
    rootNamespace: o.mesh.rootNamespace,
    clusterDomain: o.mesh.clusterDomain,
    kinds: createPluginKinds(),
    now: () => systemClock.now(),
  });
  const generators = createGenerators();
  const topics = createTopics(systemClock, logger.child({ component: 'topics' }));

  const cache = new SnapshotCache();
  const rdsHost = o.rds.address.host === '' ? '0.0.0.0' : o.rds.address.host;
  const rds = rdsServer(o, rdsHost, identity, cache, logger);
  rds.acks.onAllAcked = (ms) => metrics.configToAck.observe(ms / 1000);
  await runtime.start(rdsPart(rds, formatAddress(rdsHost, o.rds.address.port), (p) => (bound.rdsPort = p)));
  await runtime.start({
    name: 'webhook',
    start: async () => {
      const shared = { mesh: o.mesh, output: o.output, handshake: o.handshake, httpLimits: o.httpLimits };
      bound.webhook = await startWebhook(o.webhook, shared, store, identity.devCerts, logger);
    },
    stop: () => bound.webhook?.server.stop(),
  });

  const mcpIdentity = identity.provider?.kind === 'istiod' ? identity.provider : undefined;
  const sources = new ConfigSources({
    source: o.source,
    mesh: o.mesh,
    podName: o.podName,
    store,
    kc,
    logger,
    ...(deps.backoff ? { backoff: deps.backoff } : {}),
    ...(mcpIdentity ? { clientIdentity: () => mcpIdentity.current() } : {}),
    ...(deps.discovery ? { discovery: deps.discovery } : {}),
    onKindChange: () =>
      topics.kinds.publish({ synced: sources.synced, unavailable: sources.unavailableKinds() }),
    ...(informers ? { informers } : {}),
  });
  /** Paces every write to the API server (--kube-api-qps, --kube-api-burst). */
  const limiter = new TokenBucket({ qps: o.kube.apiQps, burst: o.kube.apiBurst, clock: systemClock });
  const registries = await orStop(runtime, () =>
    createRegistries(
      o.registries,
      { mesh: o.mesh, resyncMs: o.reconcile.resyncMs, handshake: o.handshake },
      {
        apply: limitedApply(limiter),
        store,
        kc,
        informers,
        metricsRegistry: metrics.registry,
        watcherFactory: deps.registryWatcher,
        backoff: deps.backoff,
        logger,
        mcpTls: identity.mcpTls,
      },
    ),
  );
  const allSynced = () => sources.synced && (registries?.synced ?? true);
  const proxyStatus = buildProxyStatus(o, {
    desired: () => topics.desired.latest()?.value.objects ?? [],
    metrics: metrics.proxyStatus,
    ...(mcpIdentity ? { clientIdentity: () => mcpIdentity.current() } : {}),
    logger,
  });
  const writers = await buildWriters(o, {
    store,
    generators,
    sources,
    registries,
    kc,
    informers,
    metrics,
    limiter,
    rdsPort: bound.rdsPort,
    serverIdentity: identity.serverIdentity,
    allSynced,
    backoff: deps.backoff,
    discovery: deps.discovery,
    logger,
    topics,
  });
  const { reconciler, desiredState } = writers;
  if (proxyStatus) {
    proxyStatus.rejections.subscribe((list) => topics.rejections.publish(list));
    reconciler.onRun((r) => {
      if (r.created + r.updated > 0) proxyStatus.nudge(); // ask the proxies soon after a write
    });
  }
  sources.withProblems()?.onProblemsChanged(() => reconciler.trigger());
  const routes = new RouteSource(store, cache, {
    quietMs: o.rds.debounceAfterMs,
    maxWaitMs: o.rds.debounceMaxMs,
    onPushed: (ms) => metrics.configToPush.observe(ms / 1000),
    onRoutesChanged: (changed, at) => rds.acks.noteChange(changed, at),
    // MetaRouters' Programmed follows the generations the routes carry and the proxies' answers.
    onRebuilt: (names) => topics.routes.publish({ routes: names }),
    now: () => systemClock.now(),
    logger,
  });
  // The acks topic's value is the live view of the proxies' answers, published again when where they stand moves.
  const routeAcks = routeAcksOf(routes, rds.acks);
  topics.acks.publish(routeAcks);
  rds.acks.onStateChange = () => topics.acks.publish(routeAcks);
  let wasSynced = false;
  topics.kinds.subscribe(({ synced }) => {
    // Events were not routed while a kind was forbidden: rebuild once every source is synced again.
    if (synced && !wasSynced) routes.rebuild();
    wasSynced = synced;
    reconciler.trigger();
  });
  topics.config.subscribe((e) => {
    // Before the first sync, the time from an event to its write would measure the sync, not a change.
    if (sources.synced) reconciler.changed(e);
    else reconciler.trigger();
    if (sources.synced) routes.onEvent(e);
  });
  store.subscribe((e) => topics.config.publish(e));

  const ops: ServeOpsInputs = {
    store,
    generators,
    sources,
    registries,
    writers,
    rds,
    cache,
    identity,
    metrics,
    ...(elector ? { leader: () => runtime.isLeader() } : {}),
    allSynced,
    logger,
    webhook: () => bound.webhook,
    rdsPort: () => bound.rdsPort,
    routeOrigin: (route) => routes.originOf(route),
    ...(proxyStatus ? { listenerRejections: () => proxyStatus.document() } : {}),
  };
  provideServeMetrics(ops);
  const { admin, debug } = buildOpsServers(o, ops);
  /** The route and EnvoyFilter builders' timers, stopped once nothing writes. */
  const stopBuilders = (): void => {
    routes.stop();
    desiredState.stop();
  };
  const registryOutput = registries?.kubeOutput;
  await runtime.startGroups([
    [httpPart('admin', admin, '--http-address', (a) => (bound.admin = a))],
    debug ? [httpPart('debug', debug, '--debug-address', (a) => (bound.debug = a))] : [],
    [{ name: 'builders', drain: stopBuilders }],
    [
      ...writers.parts,
      ...(registries ? [registriesPart(registries)] : []),
      ...(registryOutput ? [leaderLoopPart('registry-output', registryOutput)] : []),
    ],
    [sourcesPart(sources, log)],
    proxyStatus
      ? [{ name: 'proxy-status', start: () => proxyStatus.start(), stop: () => proxyStatus.stop() }]
      : [],
    [{ name: 'readiness', drain: () => admin.beginShutdown() }],
  ]);
  const synced = sources
    .whenSynced()
    .then(() => {
      const counts: Record<string, number> = {};
      for (const k of store.configKinds) if (store.list(k).length > 0) counts[k] = store.list(k).length;
      log.info('config synced', { objects: counts, rejected: store.rejected().length });
      routes.rebuild();
      reconciler.trigger();
    })
    .catch((err: unknown) => log.error('first build after sync failed', errorFields(err)));

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      log.info('shutting down');
      admin.beginShutdown(); // /readyz turns 503 first
      await runtime.stop();
      log.info('stopped');
    })();
    return stopping;
  };

  return {
    store,
    rdsAddress: formatAddress(rdsHost, bound.rdsPort),
    rdsPort: bound.rdsPort,
    adminAddress: formatAddress(bound.admin.host || '0.0.0.0', bound.admin.port),
    debugAddress: bound.debug && formatAddress(bound.debug.host || '0.0.0.0', bound.debug.port),
    webhookAddress: bound.webhook?.address,
    devCerts: identity.devCerts,
    synced,
    metrics,
    reconciler,
    cache,
    registries,
    isLeader: () => runtime.isLeader(),
    stop,
  };
}
