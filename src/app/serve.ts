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
import { leaderLoopPart, type RuntimePart } from '../kit/runtime.ts';
import type { ConfigStore } from '../controller/store.ts';
import type { Reconciler } from '../reconcile/reconciler.ts';
import { formatAddress, type ListenAddress } from '../util/address.ts';
import type { AerakiMetrics } from '../ops/metrics.ts';
import type { SnapshotCache } from '../xds-rds/snapshot.ts';
import type { DevCertPaths } from '../tools/dev-certs.ts';
import { startWebhook, type RunningWebhook } from './webhook.ts';
import { buildWriters, writersInputs } from './serve-writers.ts';
import { buildOpsServers, opsInputs, provideServeMetrics } from './serve-ops.ts';
import { httpPart, registriesPart, sourcesPart } from './serve-parts.ts';
import type { ServeOptions } from './options.ts';
import { buildProxyStatus } from './proxy-status.ts';
import type { Registries } from '../registry/registries.ts';
import { orStop, startBase, type ServeBase, type ServeDeps } from './serve-base.ts';
import { buildInputs, buildRegistries, type ServeInputs } from './serve-inputs.ts';
import { buildRds } from './serve-rds.ts';
import { buildWaypoint, buildWaypointGateways, gatewayParts } from './serve-waypoint.ts';
import { afterFirstSync, wireFlow } from './serve-flow.ts';

export type { ServeDeps } from './serve-base.ts';

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

/** The route and EnvoyFilter builders' timers, stopped once nothing writes. */
function stopBuilders(routes: { stop(): void }, desiredState: { stop(): void }): void {
  routes.stop();
  desiredState.stop();
}

/** What the listeners bound to, set as their parts start. */
interface Bound {
  webhook?: RunningWebhook;
  admin: ListenAddress;
  debug?: ListenAddress;
}

/** The validating webhook (`--webhook-address`), on every replica. */
function webhookPart(o: ServeOptions, base: ServeBase, inputs: ServeInputs, bound: Bound): RuntimePart {
  const shared = { mesh: o.mesh, output: o.output, handshake: o.handshake, httpLimits: o.httpLimits };
  return {
    name: 'webhook',
    start: async () => {
      bound.webhook = await startWebhook(
        o.webhook,
        shared,
        inputs.store,
        base.identity.devCerts,
        base.logger,
      );
    },
    stop: () => bound.webhook?.server.stop(),
  };
}

/**
 * The parts and the topics that join them (serve-topics.ts, serve-flow.ts), declared in start order: the identity
 * (serve-base.ts), the RDS and webhook listeners, the writers (the reconciler and the output's parts: leader parts
 * start on election, serve-writers.ts), the registries, the sources, proxy status and the readiness drain.
 */
export async function startServe(o: ServeOptions, deps: ServeDeps = {}): Promise<RunningServe> {
  const base = await startBase(o, deps);
  const { runtime, logger, log, metrics, identity } = base;
  const inputs = buildInputs(o, base);
  const { store, topics, sources } = inputs;
  const rds = buildRds(o, base, inputs);
  const waypoint = buildWaypoint(o, base, inputs, rds.ads);
  const gateways = buildWaypointGateways(o, base, rds, waypoint);
  const bound: Bound = { admin: { host: '', port: 0 } };
  await runtime.start(rds.part);
  await runtime.start(webhookPart(o, base, inputs, bound));
  const registries = await orStop(runtime, () => buildRegistries(o, base, inputs));
  const allSynced = () => sources.synced && (registries?.synced ?? true);
  const proxyStatus = buildProxyStatus(o, {
    desired: () => topics.desired.latest()?.value.objects ?? [],
    metrics: metrics.proxyStatus,
    ...(inputs.clientIdentity ? { clientIdentity: inputs.clientIdentity } : {}),
    logger,
  });
  const rdsPort = rds.port();
  const writers = await buildWriters(o, writersInputs(base, inputs, { registries, rdsPort, allSynced }));
  const { reconciler, desiredState } = writers;
  const { routes, cache } = rds;
  const flow = { store, topics, sources, reconciler, routes, proxyStatus };
  wireFlow(flow);
  const webhook = () => bound.webhook;
  const ops = opsInputs(base, inputs, rds, { registries, writers, allSynced, webhook, proxyStatus });
  provideServeMetrics(ops);
  const { admin, debug } = buildOpsServers(o, ops);
  const registryOutput = registries?.kubeOutput;
  await runtime.startGroups([
    [httpPart('admin', admin, '--http-address', (a) => (bound.admin = a))],
    debug ? [httpPart('debug', debug, '--debug-address', (a) => (bound.debug = a))] : [],
    [{ name: 'builders', drain: () => stopBuilders(routes, desiredState) }],
    [
      ...writers.parts,
      ...(registries ? [registriesPart(registries)] : []),
      ...(registryOutput ? [leaderLoopPart('registry-output', registryOutput)] : []),
    ],
    [sourcesPart(sources, log)],
    // After the sources: their readers join the shared informers (Gateways, slices) first.
    [...waypoint.parts, ...gatewayParts(gateways)],
    proxyStatus
      ? [{ name: 'proxy-status', start: () => proxyStatus.start(), stop: () => proxyStatus.stop() }]
      : [],
    [{ name: 'readiness', drain: () => admin.beginShutdown() }],
  ]);
  const synced = afterFirstSync(flow, log);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      log.info('shutting down');
      admin.beginShutdown(); // /readyz turns 503 first
      await runtime.stop();
      log.info('stopped');
    })());

  return {
    store,
    synced,
    metrics,
    reconciler,
    cache,
    registries,
    stop,
    rdsAddress: formatAddress(rds.host, rds.port()),
    rdsPort: rds.port(),
    adminAddress: formatAddress(bound.admin.host || '0.0.0.0', bound.admin.port),
    debugAddress: bound.debug && formatAddress(bound.debug.host || '0.0.0.0', bound.debug.port),
    webhookAddress: bound.webhook?.address,
    devCerts: identity.devCerts,
    isLeader: () => runtime.isLeader(),
  };
}
