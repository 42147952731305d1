/**
 * The registry bridges of `aeraki serve` (`--registry NAME=URL`): one watcher and one RegistryBridge per registry,
 * their ServiceEntries put straight into the ConfigStore as a source of their own (so EnvoyFilters and routes
 * follow without a round trip through istiod), and, with `--registry-output kube`, written to the API server by
 * `kubeOutput` (kube-output.ts), which is not started here: it writes only on the leader, so the composition runs it
 * as a leader part (kit/runtime.ts) while the bridges, started here, run on every replica. With `mcp`, `onEntries` receives the complete set after every change (the
 * ServiceEntry MCP server's `update`). Namespaces are watched when the Kubernetes API is available; an entry whose
 * namespace does not exist is held back until it does.
 */
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { ConfigObject } from '../model/objects.ts';
import type { RegistryEntriesTarget, RegistrySpec, RegistryWatcher } from '../model/registry-bridge.ts';
import { formatIssue } from '../model/result.ts';
import type { ApplyWrites } from '../kit/write.ts';
import { RegistryBridge, type BridgeDelta, type RegistryBridgeStatus } from './bridge.ts';
import type { RegistryServiceEntry, RegistryWatcherDeps } from './types.ts';
import { RegistryVips } from './vips.ts';
import { typedServiceEntry } from './typed-entry.ts';
import type { ServiceEntryMcpServer } from './mcp/server.ts';
import { EtcdWatcher } from './etcd/watcher.ts';
import { NacosWatcher } from './nacos/watcher.ts';
import { ZooKeeperWatcher } from './zookeeper/watcher.ts';
import type { BackoffOptions } from '../util/backoff.ts';
import type { Clock } from '../util/clock.ts';
import {
  InformerHub,
  namespacesWatch,
  type KubeInformers,
  type Subscription,
} from '../kit/kube/informer-hub.ts';
import type { Logger } from '../util/logger.ts';
import type { HandshakeStats } from '../util/handshake-guard.ts';
import { createKubeRegistryPort, RegistryKubeOutput, seedVipsFromKube } from './kube-output.ts';

/** Builds the watcher of one registry. */
export type RegistryWatcherFactory = (spec: RegistrySpec, deps: RegistryWatcherDeps) => RegistryWatcher;

/** The watcher class of each registry type (`--registry NAME=<type>://...`). */
export const REGISTRY_WATCHERS: Record<RegistrySpec['type'], RegistryWatcherFactory> = {
  zookeeper: (spec, deps) => new ZooKeeperWatcher(spec, deps),
  etcd: (spec, deps) => new EtcdWatcher(spec, deps),
  nacos: (spec, deps) => new NacosWatcher(spec, deps),
};

export type RegistryOutputKind = 'kube' | 'mcp';

export interface RegistriesOptions {
  readonly specs: readonly RegistrySpec[];
  readonly output: RegistryOutputKind;
  readonly rootNamespace: string;
  /** networking.istio.io version the kube output reads and writes ('v1' or 'v1alpha3'). */
  readonly istioVersion: string;
  /** The config store, where each registry's ServiceEntries go as a source of its own. */
  readonly store: RegistryEntriesTarget;
  /** Needed for the kube output; namespaces are watched whenever it is given. */
  readonly kc: KubeConfig | undefined;
  /** The process's shared informers (default, with `kc`: informers of its own). */
  readonly informers?: KubeInformers | undefined;
  /** Default: REGISTRY_WATCHERS by type. */
  readonly watcherFactory?: RegistryWatcherFactory;
  /** How the kube output applies its writes (reconcile/apply.ts, paced by the shared write limit): kube output only. */
  readonly apply?: ApplyWrites;
  /**
   * MCP output: the complete set, once every registry synced and after every change from then on (an earlier,
   * partial answer would make istiod drop the registry ServiceEntries it has).
   */
  readonly onEntries?: (entries: readonly RegistryServiceEntry[]) => void;
  /** MCP output: the server started and stopped with the registries (its `update` is `onEntries`). */
  readonly mcpServer?: ServiceEntryMcpServer;
  readonly resyncMs?: number;
  readonly backoff?: BackoffOptions;
  readonly clock?: Clock;
  readonly logger: Logger;
}

/** What the registries read of a Namespace: its name. */
function namespaceName(obj: KubernetesObject): KubernetesObject {
  const { name, resourceVersion } = obj.metadata ?? {};
  return {
    metadata: {
      ...(name !== undefined ? { name } : {}),
      ...(resourceVersion !== undefined ? { resourceVersion } : {}),
    },
  };
}

/** The store source name of one registry's ServiceEntries. */
export const registrySource = (name: string): string => `registry/${name}`;

/** The watchers of `specs`; throws (a startup error) for a type nothing watches. */
function buildWatchers(o: RegistriesOptions): RegistryWatcher[] {
  return o.specs.map((spec) => {
    const factory = o.watcherFactory ?? REGISTRY_WATCHERS[spec.type];
    return factory(spec, { logger: o.logger, ...(o.backoff ? { backoff: o.backoff } : {}) });
  });
}

export class Registries {
  readonly bridges: readonly RegistryBridge[];
  readonly vips = new RegistryVips();
  /** The MCP server's bound port once started (`--registry-output mcp`). */
  mcpPort: number | undefined;
  /** The MCP server's handshake guard (`--registry-output mcp`). */
  get mcpHandshakes(): HandshakeStats | undefined {
    return this.o.mcpServer?.handshakes.stats();
  }
  readonly kubeOutput: RegistryKubeOutput | undefined;
  private readonly o: RegistriesOptions;
  private readonly log: Logger;
  private readonly namespaces = new Set<string>();
  private readonly namespaceInformer: Subscription | undefined;

  constructor(o: RegistriesOptions) {
    this.o = o;
    this.log = o.logger.child({ component: 'registries' });
    if (o.output === 'kube' && !o.kc) throw new Error('--registry-output kube needs the Kubernetes API');
    const watchers = buildWatchers(o);
    const namespaceExists = o.kc ? (ns: string) => this.namespaces.has(ns) : undefined;
    this.bridges = o.specs.map(
      (spec, i) =>
        new RegistryBridge({
          spec,
          watcher: watchers[i]!,
          rootNamespace: o.rootNamespace,
          vips: this.vips,
          ...(namespaceExists ? { namespaceExists } : {}),
          ...(o.clock ? { clock: o.clock } : {}),
          logger: o.logger,
        }),
    );
    for (const b of this.bridges) b.onChange((d) => this.changed(b, d));
    if (o.kc) this.namespaceInformer = this.watchNamespaces(o.kc, o.informers);
    if (o.output === 'kube' && o.kc) {
      if (!o.apply) throw new Error('the kube output of the registries needs apply');
      this.kubeOutput = new RegistryKubeOutput({
        port: createKubeRegistryPort(o.kc, o.istioVersion),
        apply: o.apply,
        bridges: this.bridges,
        // Until the namespaces are listed every entry is held back: a run then would delete what exists.
        isSynced: () => this.namespaceInformer?.synced ?? true,
        ...(o.resyncMs !== undefined ? { resyncMs: o.resyncMs } : {}),
        ...(o.backoff ? { retry: o.backoff } : {}),
        ...(o.clock ? { clock: o.clock } : {}),
        logger: o.logger,
      });
    }
    if (o.output === 'mcp' && !o.onEntries && !o.mcpServer) {
      this.log.warn(
        'no ServiceEntry MCP server is wired: registry ServiceEntries reach this controller only',
      );
    }
  }

  /**
   * Every registry synced once and the namespaces are listed (the EnvoyFilter reconciler waits for it, so the
   * filters of registry services are not deleted before their ServiceEntries are known).
   */
  get synced(): boolean {
    return (this.namespaceInformer?.synced ?? true) && this.bridges.every((b) => b.synced);
  }

  /** Readiness detail: the registries that have not synced yet. */
  pending(): string[] {
    const out = this.bridges.filter((b) => !b.synced).map((b) => `registry ${b.name}`);
    if (this.namespaceInformer && !this.namespaceInformer.synced) out.push('registry namespaces');
    return out;
  }

  status(): RegistryBridgeStatus[] {
    return this.bridges.map((b) => b.status());
  }

  /** `/debug/registries`. */
  debugDocument(): unknown {
    return {
      output: this.o.output,
      registries: this.bridges.map((b) => ({
        ...b.status(),
        entries: b.entries().map((e) => `${e.metadata.namespace}/${e.metadata.name}`),
        issues: b.issues(),
      })),
    };
  }

  /** Re-checks the written state (a written ServiceEntry changed); ignored while the kube output is stopped. */
  trigger(): void {
    this.kubeOutput?.trigger();
  }

  async start(): Promise<void> {
    if (this.o.output === 'kube' && this.o.kc) {
      const port = createKubeRegistryPort(this.o.kc, this.o.istioVersion);
      await seedVipsFromKube(
        port,
        this.o.specs.map((s) => s.name),
        this.vips,
        this.log,
      );
    }
    if (this.o.mcpServer) {
      this.mcpPort = await this.o.mcpServer.start();
      this.log.info('serving registry ServiceEntries over MCP', { port: this.mcpPort });
    }
    this.namespaceInformer?.start();
    void this.namespaceInformer?.whenSynced().then(() => this.namespacesChanged());
    for (const b of this.bridges) b.start();
  }

  /** Stops the bridges, the namespace watch and the MCP server (the kube output is stopped by its own part). */
  async stop(): Promise<void> {
    await Promise.all(this.bridges.map((b) => b.stop()));
    await this.namespaceInformer?.stop();
    await this.o.mcpServer?.stop();
  }

  private namespacesChanged(): void {
    for (const b of this.bridges) b.namespacesChanged();
    this.publish();
  }

  /** The complete set to the MCP output, once every registry synced (see `onEntries`). */
  private publish(): void {
    if (!this.synced) return;
    const entries = this.bridges.flatMap((b) => b.entries());
    this.o.onEntries?.(entries);
    this.o.mcpServer?.update(entries);
  }

  private watchNamespaces(kc: KubeConfig, shared: KubeInformers | undefined): Subscription {
    const hub =
      shared ??
      new InformerHub({
        kc,
        ...(this.o.backoff ? { backoff: this.o.backoff } : {}),
        logger: this.o.logger.child({ component: 'registry-namespaces' }),
      });
    const informer: Subscription = hub.subscribe(
      namespacesWatch(kc),
      {
        upsert: (obj) => {
          const name = obj.metadata?.name ?? '';
          if (this.namespaces.has(name)) return;
          this.namespaces.add(name);
          if (informer.synced) this.namespacesChanged();
        },
        delete: (obj) => {
          if (this.namespaces.delete(obj.metadata?.name ?? '') && informer.synced) this.namespacesChanged();
        },
      },
      { syncedWhen: 'listed-once', reduce: namespaceName },
    );
    return informer;
  }

  /** A bridge's change: into the store typed (as the bridge's own source), to the MCP server, to the kube output. */
  private changed(bridge: RegistryBridge, delta: BridgeDelta): void {
    const upserts: ConfigObject[] = [];
    for (const se of delta.upserted) {
      const typed = typedServiceEntry(se);
      if (typed.ok) upserts.push(typed.value);
      else this.log.error('registry ServiceEntry does not parse', { issues: typed.issues.map(formatIssue) });
    }
    const removals = delta.removed.map((r) => ({ kind: 'ServiceEntry', ...r }));
    this.o.store.applyOwned(registrySource(bridge.name), upserts, removals);
    this.publish();
    this.kubeOutput?.trigger();
  }
}
