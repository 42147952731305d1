/**
 * What `aeraki serve` reads, on every replica: the config store (with the plugins' kinds), the generators, the
 * topics several parts follow (serve-topics.ts), the config sources (sources.ts; a kind installed, deleted,
 * forbidden or granted is published on `kinds`), and the registry bridges of `--registry` filling the store.
 */
import { ConfigStore } from '../controller/store.ts';
import { limitedApply } from '../kit/apply.ts';
import type { Generator } from '../model/generator.ts';
import type { KeyPair } from '../kit/certs/key-pair.ts';
import { createGenerators, createPluginKinds } from '../plugins/registry.ts';
import type { Registries } from '../registry/registries.ts';
import { systemClock } from '../util/clock.ts';
import type { ServeOptions } from './options.ts';
import { createRegistries } from './registries.ts';
import type { ServeBase } from './serve-base.ts';
import { createTopics, type Topics } from './serve-topics.ts';
import { ConfigSources } from './sources.ts';

export interface ServeInputs {
  readonly store: ConfigStore;
  readonly generators: readonly Generator[];
  readonly topics: Topics;
  readonly sources: ConfigSources;
  /** The MCP client's certificate (`--cert-provider istiod`), for the streams to istiod. */
  readonly clientIdentity: (() => KeyPair | undefined) | undefined;
}

export function buildInputs(o: ServeOptions, base: ServeBase): ServeInputs {
  const { deps, logger, kc, informers, identity } = base;
  const store = new ConfigStore({
    rootNamespace: o.mesh.rootNamespace,
    clusterDomain: o.mesh.clusterDomain,
    kinds: createPluginKinds(),
    now: () => systemClock.now(),
  });
  const topics = createTopics(systemClock, logger.child({ component: 'topics' }));
  const mcpIdentity = identity.provider?.kind === 'istiod' ? identity.provider : undefined;
  const clientIdentity = mcpIdentity ? () => mcpIdentity.current() : undefined;
  const sources: ConfigSources = new ConfigSources({
    source: o.source,
    mesh: o.mesh,
    podName: o.podName,
    store,
    kc,
    logger,
    ...(deps.backoff ? { backoff: deps.backoff } : {}),
    ...(clientIdentity ? { clientIdentity } : {}),
    ...(deps.discovery ? { discovery: deps.discovery } : {}),
    onKindChange: () =>
      topics.kinds.publish({ synced: sources.synced, unavailable: sources.unavailableKinds() }),
    ...(informers ? { informers } : {}),
    // Namespaces, Gateways and GatewayClasses: our own waypoints are translated whenever serve runs (issue 39), and
    // --waypoint-envoyfilters writes filters for Istio's.
    ambient: true,
  });
  return { store, generators: createGenerators(), topics, sources, clientIdentity };
}

/** The registry bridges of `--registry` (undefined without any); throws for a registry type nothing watches. */
export function buildRegistries(
  o: ServeOptions,
  base: ServeBase,
  inputs: ServeInputs,
): Registries | undefined {
  const { deps, logger, kc, informers, identity, metrics, limiter } = base;
  return createRegistries(
    o.registries,
    { mesh: o.mesh, resyncMs: o.reconcile.resyncMs, handshake: o.handshake },
    {
      apply: limitedApply(limiter),
      store: inputs.store,
      kc,
      informers,
      metricsRegistry: metrics.registry,
      watcherFactory: deps.registryWatcher,
      backoff: deps.backoff,
      logger,
      mcpTls: identity.mcpTls,
    },
  );
}
