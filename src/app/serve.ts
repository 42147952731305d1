/**
 * `aeraki serve`: one process running a config source, the store, the EnvoyFilter reconciler (leader only), the
 * RDS server (every replica), the validating webhook (with `--webhook-address`, every replica) and the admin HTTP
 * server.
 *
 * Start order: the RDS, webhook and admin servers bind first (a taken port fails the start before anything else runs),
 * then the reconciler, leader election and the watches, then the sources. Routes are built, and EnvoyFilters
 * written, only after every source synced once.
 * Stop order (`stop()`, SIGTERM): `/readyz` turns 503, the reconciler stops writing, the bootstrap controller
 * stops, the lease is released, RDS streams are closed; then the sources and watches stop and the debug, admin and
 * webhook servers and the identity provider close. Each is a part of one Lifecycle (kit/lifecycle.ts): started in
 * the order below, drained then stopped in reverse, and a start that fails stops what started before it.
 */
import { InformerHub } from '../kit/kube/informer-hub.ts';
import { KubeConfig } from '@kubernetes/client-node';
import { Lifecycle } from '../kit/lifecycle.ts';
import { ConfigStore } from '../controller/store.ts';
import { createDirSink } from '../reconcile/dir-sink.ts';
import { IncrementalGenerator } from '../envoyfilter/incremental.ts';
import { createKubeSink } from '../reconcile/kube-sink.ts';
import { limitedApply } from '../kit/apply.ts';
import { ManagedCache } from '../reconcile/managed-cache.ts';
import { systemClock } from '../util/clock.ts';
import { TokenBucket } from '../util/rate-limit.ts';
import { heldSourceKeys, Reconciler } from '../reconcile/reconciler.ts';
import type { EnvoyFilterSink } from '../reconcile/sink.ts';
import { errorFields, type Logger } from '../util/logger.ts';
import type { ConfigIssue } from '../model/result.ts';
import { heldHosts } from '../status/held.ts';
import { AdminServer } from '../ops/admin-server.ts';
import { formatAddress, type ListenAddress } from '../util/address.ts';
import { AerakiMetrics } from '../ops/metrics.ts';
import { createGenerators, createPluginKinds } from '../plugins/registry.ts';
import type { BackoffOptions } from '../util/backoff.ts';
import { routeGrpcLogs } from '../util/grpc-logging.ts';
import type { KindDiscoveryOptions } from '../kit/kube/kind-informer.ts';
import { createLogger } from '../util/logging.ts';
import { RouteSource } from '../xds-rds/route-source.ts';
import { RdsServer } from '../xds-rds/server.ts';
import { SnapshotCache } from '../xds-rds/snapshot.ts';
import { configDocument, envoyFiltersDocument, routesDocument } from './debug.ts';
import type { DevCertPaths } from '../tools/dev-certs.ts';
import { startIdentity } from './identity.ts';
import { KubeOutput } from './kube-output.ts';
import { startWebhook } from './webhook.ts';
import { httpPart, rdsPart, sourcesPart, writersPart } from './serve-parts.ts';
import { needsKube, rdsLimits, rdsPeers, type ServeOptions } from './options.ts';
import { ConfigSources, describeUnavailable, type UnavailableKind } from './sources.ts';
import type { ReadinessStatus } from '../ops/readiness.ts';
import { createRegistries } from './registries.ts';
import type { Registries, RegistryWatcherFactory } from '../registry/registries.ts';

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

export async function startServe(o: ServeOptions, deps: ServeDeps = {}): Promise<RunningServe> {
  const logger =
    deps.logger ?? createLogger({ level: o.logging.level, format: o.logging.format, component: 'aeraki' });
  if (!deps.logger) routeGrpcLogs(logger); // grpc-js's own lines through ours (tests keep theirs apart)
  const log = logger.child({ component: 'serve' });
  const rdsListen = o.rds.address;
  const life = new Lifecycle(log);
  const identity = await startIdentity(
    o.identity,
    { mesh: o.mesh, rdsInsecure: o.rds.insecure, registries: o.registries },
    logger,
    deps.backoff,
  );
  await life.start({ name: 'identity', stop: () => identity.provider?.close() });
  const { tls, devCerts } = identity;
  const kc = needsKube(o.source.kind, o.output.kind, o.registries)
    ? (deps.kubeConfig ?? loadKubeConfig(o.kube.kubeconfig))
    : undefined;
  // One informer per watched resource in the process, shared by every reader of it.
  const informers = kc
    ? new InformerHub({
        kc,
        ...(deps.backoff ? { backoff: deps.backoff } : {}),
        ...deps.discovery,
        logger: logger.child({ component: 'informers' }),
      })
    : undefined;

  const store = new ConfigStore({
    rootNamespace: o.mesh.rootNamespace,
    clusterDomain: o.mesh.clusterDomain,
    kinds: createPluginKinds(),
    now: () => systemClock.now(),
  });
  const generators = createGenerators();
  const metrics = new AerakiMetrics({ version: o.version });
  const cache = new SnapshotCache();
  const rdsHost = rdsListen.host === '' ? '0.0.0.0' : rdsListen.host;
  const rds = new RdsServer(
    {
      host: rdsHost,
      port: rdsListen.port,
      tls,
      logger,
      peers: rdsPeers(o.rds, o.mesh),
      limits: rdsLimits(o.rds),
      handshake: o.handshake,
    },
    cache,
  );
  let rdsPort = 0;
  const rdsWhere = formatAddress(rdsHost, rdsListen.port);
  await life.start(rdsPart(rds, rdsWhere, (port) => (rdsPort = port)));

  let webhook: Awaited<ReturnType<typeof startWebhook>>;
  await life.start({
    name: 'webhook',
    start: async () => {
      const shared = { mesh: o.mesh, output: o.output, handshake: o.handshake, httpLimits: o.httpLimits };
      webhook = await startWebhook(o.webhook, shared, store, devCerts, logger);
    },
    stop: () => webhook?.server.stop(),
  });

  const mcpIdentity = identity.provider?.kind === 'istiod' ? identity.provider : undefined;
  /** Set once the reconciler and the routes exist: a kind installed, deleted, forbidden or granted. */
  let onKindChange = (): void => {};
  const sources = new ConfigSources(
    o.source,
    { mesh: o.mesh, podName: o.podName },
    store,
    kc,
    logger,
    deps.backoff,
    mcpIdentity && (() => mcpIdentity.current()),
    deps.discovery,
    () => onKindChange(),
    informers,
  );
  /** Paces every write to the API server (--kube-api-qps, --kube-api-burst). */
  const limiter = new TokenBucket({ qps: o.kube.apiQps, burst: o.kube.apiBurst, clock: systemClock });
  let registries: Registries | undefined;
  const registryShared = { mesh: o.mesh, resyncMs: o.reconcile.resyncMs, handshake: o.handshake };
  try {
    registries = createRegistries(o.registries, registryShared, {
      apply: limitedApply(limiter),
      store,
      kc,
      informers,
      metricsRegistry: metrics.registry,
      watcherFactory: deps.registryWatcher,
      backoff: deps.backoff,
      logger,
      isLeader: () => kubeOut?.isLeader() ?? true,
      mcpTls: identity.mcpTls,
    });
  } catch (err) {
    await life.stop().catch(() => {}); // each failing stop is logged; the error reported is this one
    throw err;
  }
  const allSynced = () => sources.synced && (registries?.synced ?? true);
  const sink: EnvoyFilterSink =
    o.output.kind === 'kube' && kc ? createKubeSink(kc) : createDirSink(o.output.dir);
  let kubeOut: KubeOutput | undefined;
  const toKube = o.output.kind === 'kube' && kc !== undefined;
  const managedCache = toKube ? new ManagedCache() : undefined;
  /** The issues of the last generation pass (status conditions and aeraki_config_issues). */
  let generationIssues: readonly ConfigIssue[] = [];
  let generationConflicts: readonly ConfigIssue[] | undefined;
  // The desired set is maintained: each reconcile regenerates only the sources a change touched.
  const desiredState = new IncrementalGenerator(store, generators, {
    namespaceScope: o.output.namespaceScope,
  });
  const reconciler = new Reconciler({
    sink,
    desired: () => {
      const desired = desiredState.update();
      metrics.recordUnhandledPorts(desired.unhandledPorts);
      generationIssues = desired.issues;
      generationConflicts = desired.conflicts;
      metrics.recordConfigIssues([...store.rejected().flatMap((r) => r.issues), ...desired.issues]);
      return desired;
    },
    heldSources: () => heldSourceKeys(store.rejected()),
    holdDeletes: () => sources.partial,
    isSynced: allSynced,
    isLeader: () => kubeOut?.isLeader() ?? true,
    quietMs: o.reconcile.debounceAfterMs,
    maxWaitMs: o.reconcile.debounceMaxMs,
    resyncMs: o.reconcile.resyncMs,
    ...(deps.backoff ? { retry: deps.backoff } : {}),
    ...(toKube ? { limiter } : {}),
    ...(managedCache ? { cache: managedCache } : {}),
    onResyncRepairs: (n) => metrics.resyncRepairs.inc(n),
    onConverged: (ms) => metrics.configToWrite.observe(ms / 1000),
    logger,
  });
  reconciler.onRun((r) => {
    metrics.recordReconcileRun(r);
    if (!r.skipped) kubeOut?.status.trigger(); // the generation issues may have changed
  });
  if (o.output.kind === 'kube' && kc && informers) {
    const { leader, bootstrap, vip, reconcile, podName, mesh } = o;
    kubeOut = new KubeOutput({ leader, bootstrap, vip, reconcile, podName, mesh }, kc, rdsPort, {
      informers,
      onChange: () => {
        reconciler.trigger();
        registries?.trigger();
      },
      statusInputs: () => ({
        view: store,
        rejected: store.rejected(),
        issues: generationIssues,
        ...(generationConflicts ? { conflicts: generationConflicts } : {}),
      }),
      isSynced: () => sources.synced,
      metrics,
      protocols: generators.flatMap((g) => g.protocols),
      kinds: store.kinds,
      serverIdentity: identity.serverIdentity,
      ...(managedCache ? { managedCache } : {}),
      ...(deps.discovery ? { discovery: deps.discovery } : {}),
      apply: limitedApply(limiter),
      ...(deps.backoff ? { backoff: deps.backoff } : {}),
      logger,
    });
  }
  sources.dir?.onProblemsChanged(() => reconciler.trigger());
  const routes = new RouteSource(store, cache, {
    quietMs: o.rds.debounceAfterMs,
    maxWaitMs: o.rds.debounceMaxMs,
    onPushed: (ms) => metrics.configToPush.observe(ms / 1000),
    now: () => systemClock.now(),
    logger,
  });
  let wasSynced = false;
  onKindChange = () => {
    // Events were not routed while a kind was forbidden: rebuild once every source is synced again.
    const now = sources.synced;
    if (now && !wasSynced) routes.rebuild();
    wasSynced = now;
    reconciler.trigger();
  };
  store.subscribe((e) => {
    // Before the first sync, the time from an event to its write would measure the sync, not a change.
    if (sources.synced) reconciler.changed(e);
    else reconciler.trigger();
    kubeOut?.status.trigger();
    if (sources.synced) routes.onEvent(e);
  });

  const elector = kubeOut?.elector;
  metrics.provide({
    ...(sources.mcp ? { mcp: () => sources.mcp!.status() } : {}),
    rds: () => rds.metrics,
    ...(elector ? { leader: () => elector.isLeader() } : {}),
    configObjects: () => Object.fromEntries(store.configKinds.map((k) => [k, store.list(k).length])),
    unavailableKinds: () => [...sources.unavailableKinds(), ...(kubeOut?.unavailableKinds() ?? [])],
    rejectedObjects: () => {
      const counts: Record<string, number> = Object.fromEntries(store.configKinds.map((k) => [k, 0]));
      for (const r of store.rejected()) counts[r.ref.kind] = (counts[r.ref.kind] ?? 0) + 1;
      return counts;
    },
    // Kept by the drift watch on every replica: the objects after every run, incremental or full, leader or not.
    ...(managedCache
      ? { managedEnvoyFilters: () => (managedCache.synced ? managedCache.size : undefined) }
      : {}),
    ...(sources.dir ? { configFileErrors: () => sources.dir!.problems().length } : {}),
    heldHosts: () => heldHosts(store, store.rejected(), store.heldHosts()).length,
    ...(identity.provider ? { certificate: identity.metrics } : {}),
    handshakes: () => [
      rds.handshakes.stats(),
      ...(registries?.mcpHandshakes ? [registries.mcpHandshakes] : []),
      ...(webhook ? [webhook.server.handshakes.stats()] : []),
    ],
  });
  const httpLimits = o.httpLimits;
  const admin = new AdminServer({
    address: o.admin.address,
    paths: 'ops',
    limits: httpLimits,
    metrics,
    readiness: {
      config: () => {
        // Kinds not installed are listed while ready; forbidden ones also name the source waiting for them.
        const details = sources.unavailableKinds().map(describeUnavailable);
        if (allSynced()) return { ready: true, details };
        const waiting = [...sources.pending(), ...(registries?.pending() ?? [])].join(', ');
        return { ready: false, reason: `waiting for ${waiting}`, details };
      },
      rds: () => (rdsPort > 0 ? true : { ready: false, reason: 'RDS server not listening' }),
      ...(kubeOut ? { output: () => outputReadiness(kubeOut?.unavailableKinds() ?? []) } : {}),
      ...(identity.provider ? { certificate: identity.readiness } : {}),
    },
    logger,
  });
  const debug = o.admin.debugEndpoints
    ? new AdminServer({
        address: o.admin.debugAddress,
        paths: 'debug',
        limits: httpLimits,
        debug: {
          config: () => configDocument(store, sources.synced, sources.dir),
          envoyfilters: () =>
            envoyFiltersDocument(store, generators, { namespaceScope: o.output.namespaceScope }, sink),
          routes: () => routesDocument(cache),
          ...(registries ? { registries: () => registries.debugDocument() } : {}),
        },
        logger,
      })
    : undefined;
  let adminAddress: ListenAddress = { host: '', port: 0 };
  let debugAddress: ListenAddress | undefined;
  /** The route and EnvoyFilter builders' timers, stopped once nothing writes. */
  const stopBuilders = (): void => {
    routes.stop();
    desiredState.stop();
  };
  await life.startGroups([
    [httpPart('admin', admin, '--http-address', (a) => (adminAddress = a))],
    debug ? [httpPart('debug', debug, '--debug-address', (a) => (debugAddress = a))] : [],
    [{ name: 'builders', drain: stopBuilders }],
    [writersPart(reconciler, registries, kubeOut)],
    [sourcesPart(sources, log)],
    [{ name: 'readiness', drain: () => admin.beginShutdown() }], // drained first: /readyz turns 503
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
      await life.stop();
      log.info('stopped');
    })();
    return stopping;
  };

  return {
    store,
    rdsAddress: formatAddress(rdsHost, rdsPort),
    rdsPort,
    adminAddress: formatAddress(adminAddress.host || '0.0.0.0', adminAddress.port),
    debugAddress: debugAddress && formatAddress(debugAddress.host || '0.0.0.0', debugAddress.port),
    webhookAddress: webhook?.address,
    devCerts,
    synced,
    metrics,
    reconciler,
    cache,
    registries,
    isLeader: () => kubeOut?.isLeader() ?? true,
    stop,
  };
}

/** The EnvoyFilter writer's kinds: a CRD not installed or a 403 keeps the replica unready, naming why. */
function outputReadiness(kinds: readonly UnavailableKind[]): ReadinessStatus {
  if (kinds.length === 0) return { ready: true };
  return { ready: false, reason: kinds.map(describeUnavailable).join('; ') };
}
