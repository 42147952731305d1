/**
 * What `startServe` shows operators: the metrics' providers, the admin server (`/metrics`, `/healthz`,
 * `/readyz`) and, with `--debug-endpoints`, the debug server (`/debug/config`, `/debug/envoyfilters`,
 * `/debug/routes`, `/debug/registries`, `/debug/proxies`, `/debug/protocols`).
 */
import type { ServeBase } from './serve-base.ts';
import type { ServeInputs } from './serve-inputs.ts';
import type { ServeRds } from './serve-rds.ts';
import type { ProxyStatusPart } from './proxy-status.ts';
import type { ConfigStore } from '../controller/store.ts';
import { trackChangeTimes } from '../controller/change-times.ts';
import type { Generator } from '../model/generator.ts';
import { AdminServer } from '../ops/admin-server.ts';
import type { AerakiMetrics } from '../ops/metrics.ts';
import type { ReadinessStatus } from '../ops/readiness.ts';
import type { Registries } from '../registry/registries.ts';
import { heldHosts } from '../status/held.ts';
import type { ListenerRejectionsDoc } from '../tools/proxies-document.ts';
import type { Logger } from '../util/logger.ts';
import type { RdsServer } from '../xds-rds/server.ts';
import type { SnapshotCache } from '../xds-rds/snapshot.ts';
import {
  configDocument,
  envoyFiltersDocument,
  proxiesDocument,
  routesDocument,
  withoutSecrets,
} from './debug.ts';
import { protocolsDocument } from '../model/protocol-facts.ts';
import { secretPolicy } from '../model/secret-fields.ts';
import type { ServeIdentity } from './identity.ts';
import type { ServeOptions } from './options.ts';
import type { ServeWriters } from './serve-writers.ts';
import { describeUnavailable, type ConfigSources, type UnavailableKind } from './sources.ts';
import { describeUnservedRoute, unservedRoutes, type UnservedRoute } from '../model/unserved-routes.ts';
import type { RunningWebhook } from './webhook.ts';

export interface ServeOpsInputs {
  readonly store: ConfigStore;
  readonly generators: readonly Generator[];
  readonly sources: ConfigSources;
  readonly registries: Registries | undefined;
  readonly writers: ServeWriters;
  readonly rds: RdsServer;
  readonly cache: SnapshotCache;
  readonly identity: ServeIdentity;
  readonly webhook: () => RunningWebhook | undefined;
  readonly metrics: AerakiMetrics;
  /** Leadership now, with leader election (`aeraki_leader`); absent without. */
  readonly leader?: () => boolean;
  /** Every source and registry synced once. */
  readonly allSynced: () => boolean;
  /** The RDS server's bound port; 0 until it listens. */
  readonly rdsPort: () => number;
  /** The object a route configuration is built from (RouteSource.originOf), for /debug/proxies. */
  readonly routeOrigin?: (route: string) => string | undefined;
  /** With proxy status on: the listener rejections part of /debug/proxies. */
  readonly listenerRejections?: () => ListenerRejectionsDoc;
  readonly logger: Logger;
}

/** The ops servers' inputs: serve's base, inputs and RDS side, with what is built after them. */
export function opsInputs(
  base: ServeBase,
  inputs: ServeInputs,
  rds: ServeRds,
  more: Pick<ServeOpsInputs, 'registries' | 'writers' | 'allSynced' | 'webhook'> & {
    readonly proxyStatus: ProxyStatusPart | undefined;
  },
): ServeOpsInputs {
  const { runtime, identity, metrics, logger } = base;
  const { proxyStatus, ...rest } = more;
  return {
    ...rest,
    store: inputs.store,
    generators: inputs.generators,
    sources: inputs.sources,
    rds: rds.server,
    cache: rds.cache,
    identity,
    metrics,
    ...(base.elects ? { leader: () => runtime.isLeader() } : {}),
    logger,
    rdsPort: () => rds.port(),
    routeOrigin: (route) => rds.routes.originOf(route),
    ...(proxyStatus ? { listenerRejections: () => proxyStatus.document() } : {}),
  };
}

/**
 * The managed EnvoyFilters naming an RDS route this replica does not serve (model/unserved-routes.ts); none before
 * every source synced (no routes are built before) or while the writer has not listed yet.
 */
export function unservedNow(i: Pick<ServeOpsInputs, 'writers' | 'cache' | 'allSynced'>): UnservedRoute[] {
  const filters = i.writers.output.managedRoutes.rdsRoutes();
  if (!filters || !i.allSynced()) return [];
  const served = i.cache.snapshot().resources;
  return unservedRoutes(filters, (route) => served.has(route));
}

/** What each metric reads, from the parts that own it. */
export function provideServeMetrics(i: ServeOpsInputs): void {
  const { store, sources, registries, rds, identity } = i;
  const { managedCache, unavailableKinds } = i.writers.output;
  const leader = i.leader;
  const mcp = sources.streamStatus();
  const files = sources.withProblems();
  i.metrics.provide({
    ...(mcp ? { mcp } : {}),
    rds: () => rds.metrics,
    routeAcks: () => rds.acks,
    ...(leader ? { leader } : {}),
    configObjects: () => Object.fromEntries(store.configKinds.map((k) => [k, store.list(k).length])),
    unavailableKinds: () => [...sources.unavailableKinds(), ...(unavailableKinds?.() ?? [])],
    rejectedObjects: () => {
      const counts: Record<string, number> = Object.fromEntries(store.configKinds.map((k) => [k, 0]));
      for (const r of store.rejected()) counts[r.ref.kind] = (counts[r.ref.kind] ?? 0) + 1;
      return counts;
    },
    // Kept by the drift watch on every replica: the objects after every run, incremental or full, leader or not.
    ...(managedCache
      ? { managedEnvoyFilters: () => (managedCache.synced ? managedCache.size : undefined) }
      : {}),
    ...(files ? { configFileErrors: () => files.problems().length } : {}),
    heldHosts: () => heldHosts(store, store.rejected(), store.heldHosts(), store.heldGateways()).length,
    unservedRoutes: () => unservedNow(i).length,
    ...(identity.provider ? { certificate: identity.metrics } : {}),
    handshakes: () => {
      const webhook = i.webhook();
      return [
        rds.handshakes.stats(),
        ...(registries?.mcpHandshakes ? [registries.mcpHandshakes] : []),
        ...(webhook ? [webhook.server.handshakes.stats()] : []),
      ];
    },
  });
}

/** The admin server and, with `--debug-endpoints`, the debug server; neither listens yet. */
export function buildOpsServers(
  o: Pick<ServeOptions, 'admin' | 'httpLimits'>,
  i: ServeOpsInputs,
): { readonly admin: AdminServer; readonly debug: AdminServer | undefined } {
  const { store, sources, registries, identity, logger } = i;
  const { sink, reconciler } = i.writers;
  const { unavailableKinds } = i.writers.output;
  const { generation } = i.writers;
  const admin = new AdminServer({
    address: o.admin.address,
    paths: 'ops',
    limits: o.httpLimits,
    metrics: i.metrics,
    readiness: {
      config: () => {
        // Kinds not installed are listed while ready; forbidden ones also name the source waiting for them.
        const details = sources.unavailableKinds().map(describeUnavailable);
        if (i.allSynced()) return { ready: true, details };
        const waiting = [...sources.pending(), ...(registries?.pending() ?? [])].join(', ');
        return { ready: false, reason: `waiting for ${waiting}`, details };
      },
      // Ready while a kept EnvoyFilter names a route not served (the rest is served), saying so.
      rds: () =>
        i.rdsPort() > 0
          ? { ready: true, details: unservedNow(i).map(describeUnservedRoute) }
          : { ready: false, reason: 'RDS server not listening' },
      ...(unavailableKinds
        ? { output: () => outputReadiness(unavailableKinds(), reconciler.refusalDetails()) }
        : {}),
      ...(identity.provider ? { certificate: identity.readiness } : {}),
    },
    logger,
  });
  // From now on: the store's objects arrive once the sources start.
  const times = o.admin.debugEndpoints ? trackChangeTimes(store) : undefined;
  const debug = o.admin.debugEndpoints
    ? new AdminServer({
        address: o.admin.debugAddress,
        paths: 'debug',
        limits: o.httpLimits,
        debug: withoutSecrets(
          {
            config: () => configDocument(store, sources.synced, sources.withProblems(), times),
            envoyfilters: () => envoyFiltersDocument(store, i.generators, generation, sink),
            routes: () => routesDocument(i.cache, unservedNow(i)),
            proxies: () =>
              proxiesDocument(i.rds.acks, {
                ...(i.routeOrigin ? { routeOrigin: i.routeOrigin } : {}),
                ...(i.listenerRejections ? { listenerRejections: i.listenerRejections } : {}),
              }),
            ...(registries ? { registries: () => registries.debugDocument() } : {}),
            protocols: () => protocolsDocument(i.generators, generation.protocolNames),
          },
          secretPolicy(store.kinds, i.generators),
        ),
        logger,
      })
    : undefined;
  return { admin, debug };
}

/**
 * The EnvoyFilter writer's kinds: a CRD not installed or a 403 on their watch keeps the replica unready, naming why.
 * Writes refused now (reconcile/refusals.ts, retried with backoff) are details of a ready check: RDS still serves.
 */
function outputReadiness(kinds: readonly UnavailableKind[], refused: readonly string[]): ReadinessStatus {
  const details = refused.length > 0 ? { details: refused } : {};
  if (kinds.length === 0) return { ready: true, ...details };
  return { ready: false, reason: kinds.map(describeUnavailable).join('; '), ...details };
}
