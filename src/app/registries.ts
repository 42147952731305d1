/**
 * Wiring of the registries (`--registry NAME=URL`, src/registry/registries.ts) into `aeraki serve`: the config
 * store they fill, the shared informers (Namespaces), the write pacing and planning of the kube output, the
 * ServiceEntry MCP server of the mcp output, and the registry metrics.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import type { ConfigStore } from '../controller/store.ts';
import type { KubeInformers } from '../kit/kube/informer-hub.ts';
import type { ApplyWrites } from '../kit/write.ts';
import { registerRegistryMetrics } from '../ops/registry-metrics.ts';
import { applyWrites } from '../kit/apply.ts';
import { ServiceEntryMcpServer, type ServiceEntryMcpServerOptions } from '../registry/mcp/server.ts';
import { Registries, type RegistryWatcherFactory } from '../registry/registries.ts';
import type { BackoffOptions } from '../util/backoff.ts';
import type { HandshakeLimits } from '../util/handshake-guard.ts';
import type { Logger } from '../util/logger.ts';
import { mcpPeers, type MeshOptions, type RegistryBridgesOptions } from './options.ts';

/** The values the registries share with other parts: the mesh's names, the resync period, the listeners' limits. */
export interface RegistriesShared {
  readonly mesh: MeshOptions;
  readonly resyncMs: number;
  readonly handshake: HandshakeLimits;
}

/** What `createRegistries` takes from serve besides the options. */
export interface RegistriesDeps {
  readonly apply?: ApplyWrites;
  readonly store: ConfigStore;
  readonly kc: KubeConfig | undefined;
  readonly informers: KubeInformers | undefined;
  readonly metricsRegistry: Registry;
  readonly watcherFactory: RegistryWatcherFactory | undefined;
  readonly backoff: BackoffOptions | undefined;
  readonly logger: Logger;
  /** The MCP server's credentials (serve's identity, or plaintext with `--mcp-server-insecure`). */
  readonly mcpTls: ServiceEntryMcpServerOptions['tls'];
}

/** The registry bridges of `--registry`, or undefined without any; throws for a registry type nothing watches. */
export function createRegistries(
  o: RegistryBridgesOptions,
  shared: RegistriesShared,
  deps: RegistriesDeps,
): Registries | undefined {
  if (o.specs.length === 0) return undefined;
  const registries = new Registries({
    specs: o.specs,
    output: o.output,
    rootNamespace: shared.mesh.rootNamespace,
    istioVersion: shared.mesh.istioApiVersion === 'v1' ? 'v1' : 'v1alpha3',
    store: deps.store,
    kc: deps.kc,
    informers: deps.informers,
    ...(deps.watcherFactory ? { watcherFactory: deps.watcherFactory } : {}),
    apply: deps.apply ?? applyWrites,
    ...(deps.backoff ? { backoff: deps.backoff } : {}),
    ...(o.output === 'mcp'
      ? {
          mcpServer: new ServiceEntryMcpServer({
            host: o.mcpServerAddress.host || '0.0.0.0',
            port: o.mcpServerAddress.port,
            logger: deps.logger,
            tls: deps.mcpTls,
            peers: mcpPeers(o, shared.mesh),
            handshake: shared.handshake,
          }),
        }
      : {}),
    resyncMs: shared.resyncMs,
    logger: deps.logger,
  });
  registerRegistryMetrics(deps.metricsRegistry, () => registries.status());
  return registries;
}
