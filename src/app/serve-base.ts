/**
 * What every part of `aeraki serve` stands on, built first: the logger, the output's descriptor, the Kubernetes
 * client and its shared informers (when a source, the output or a registry needs the API), the metrics, the runtime
 * with its elector (when the output elects a leader and `--leader-elect` is on), the identity (started, as the
 * runtime's first part), and the write limiter.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { InformerHub } from '../kit/kube/informer-hub.ts';
import type { KindDiscoveryOptions } from '../kit/kube/kind-informer.ts';
import { Runtime } from '../kit/runtime.ts';
import { AerakiMetrics } from '../ops/metrics.ts';
import type { RegistryWatcherFactory } from '../registry/registries.ts';
import type { BackoffOptions } from '../util/backoff.ts';
import { systemClock } from '../util/clock.ts';
import { routeGrpcLogs } from '../util/grpc-logging.ts';
import type { Logger } from '../util/logger.ts';
import { createLogger } from '../util/logging.ts';
import { TokenBucket } from '../util/rate-limit.ts';
import { startIdentity, type ServeIdentity } from './identity.ts';
import { leaderElector } from './kube-parts.ts';
import { needsKube, type ServeOptions } from './options.ts';
import { outputOf, type OutputDescriptor } from './outputs.ts';

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

export interface ServeBase {
  readonly deps: ServeDeps;
  readonly logger: Logger;
  /** The `serve` component's own logger. */
  readonly log: Logger;
  readonly output: OutputDescriptor;
  readonly kc: KubeConfig | undefined;
  /** One informer per watched resource in the process, shared by every reader of it (with `kc`). */
  readonly informers: InformerHub | undefined;
  readonly metrics: AerakiMetrics;
  /** Leader election is on (the output elects a leader and `--leader-elect`). */
  readonly elects: boolean;
  readonly runtime: Runtime;
  readonly identity: ServeIdentity;
  /** Paces every write to the API server (--kube-api-qps, --kube-api-burst). */
  readonly limiter: TokenBucket;
}

function loadKubeConfig(path: string): KubeConfig {
  const kc = new KubeConfig();
  if (path) kc.loadFromFile(path);
  else kc.loadFromCluster();
  return kc;
}

/** Builds the base and starts the identity, the runtime's first part. */
export async function startBase(o: ServeOptions, deps: ServeDeps): Promise<ServeBase> {
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
  const identity = await startIdentity(
    o.identity,
    { mesh: o.mesh, rdsInsecure: o.rds.insecure, registries: o.registries },
    logger,
    deps.backoff,
  );
  await runtime.start({ name: 'identity', stop: () => identity.provider?.close() });
  const informers = kc
    ? new InformerHub({
        kc,
        ...(deps.backoff ? { backoff: deps.backoff } : {}),
        ...deps.discovery,
        logger: logger.child({ component: 'informers' }),
      })
    : undefined;
  const limiter = new TokenBucket({ qps: o.kube.apiQps, burst: o.kube.apiBurst, clock: systemClock });
  return {
    deps,
    logger,
    log,
    output,
    kc,
    informers,
    metrics,
    elects: elector !== undefined,
    runtime,
    identity,
    limiter,
  };
}

/** `make()`, or, when it throws, the runtime stopped (what started so far) and the error rethrown. */
export async function orStop<T>(runtime: Runtime, make: () => T | Promise<T>): Promise<T> {
  try {
    return await make();
  } catch (err) {
    await runtime.stop().catch(() => {}); // each failing stop is logged; the error reported is this one
    throw err;
  }
}
