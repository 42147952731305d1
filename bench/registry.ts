// `npm run bench -- registry`: the registry bridge end to end through a real ZooKeeper (Debian's jars, as the tests
// run it). The controller's registry part as `aeraki serve` builds it (`Registries`: the real ZooKeeperWatcher, the
// bridge, the ConfigStore; output `mcp` with `onEntries`, no Kubernetes) runs while 500, then 5,000 interfaces with
// 4 providers each are registered as Dubbo registers them. Per size: the time from the last registration to every
// ServiceEntry in the store and delivered through `onEntries`, the heap and RSS held (after a full collection), the
// cost of one provider change (one provider added to one interface, then removed: the time until the updated
// ServiceEntry is in the store, median of CHANGES each) and a controller started against the filled registry (start
// to every ServiceEntry). Target: change cost 5,000/500 at most 2. The registry URL sets `debounce=10ms` (default
// 500 ms), so the figures are the work, not the wait.
import { performance } from 'node:perf_hooks';
import type zookeeper from 'node-zookeeper-client';
import { Registries } from '../src/registry/registries.ts';
import { ConfigStore } from '../src/controller/store.ts';
import { registryEntryName, registryHost } from '../src/registry/convert.ts';
import { parseRegistrySpec } from '../src/registry/spec.ts';
import type { RegistryServiceEntry } from '../src/registry/types.ts';
import { silentLogger } from '../src/util/logger.ts';
import { connect, mkdirp } from '../test/support/dubbo-zookeeper.ts';
import { ZooKeeperServer } from '../test/support/zookeeper-server.ts';
import {
  CHANGED_INTERFACE,
  gc,
  median,
  PROVIDERS,
  registerInterfaces,
  timeProviderChanges,
} from './zookeeper-providers.ts';

const ROOT_NAMESPACE = 'istio-system';
const REGISTRY = 'bench';
const CHANGES = 20;
const CHANGED_ENTRY = registryEntryName(REGISTRY, registryHost(CHANGED_INTERFACE, ''));

type Delivered = (entries: readonly RegistryServiceEntry[]) => boolean;

/** The registry part of a controller over one ZooKeeper registry; its `onEntries` deliveries can be awaited. */
class Controller {
  readonly store = new ConfigStore({ rootNamespace: ROOT_NAMESPACE });
  readonly registries: Registries;
  private waiters: { readonly holds: Delivered; readonly resolve: (at: number) => void }[] = [];

  constructor(url: string) {
    const spec = parseRegistrySpec(`${REGISTRY}=${url}`);
    if (!spec.ok) throw new Error(`bad registry URL ${url}`);
    this.registries = new Registries({
      specs: [spec.value],
      output: 'mcp',
      rootNamespace: ROOT_NAMESPACE,
      istioVersion: 'v1',
      store: this.store,
      kc: undefined,
      onEntries: (entries) => this.delivered(entries),
      logger: silentLogger,
    });
  }

  /** Resolves with the time of the first delivery for which `holds` is true (ask before the change). */
  until(holds: Delivered): Promise<number> {
    return new Promise((resolve) => this.waiters.push({ holds, resolve }));
  }

  /** Every interface in the store and delivered, each with its PROVIDERS endpoints. */
  allPresent(interfaces: number): Promise<number> {
    return this.until(
      (entries) =>
        entries.length === interfaces &&
        entries.every((e) => e.spec.endpoints.length === PROVIDERS) &&
        this.store.list('ServiceEntry').length === interfaces,
    );
  }

  /** CHANGED_INTERFACE's ServiceEntry in the store with `endpoints` endpoints. */
  changedEntry(endpoints: number): Promise<number> {
    return this.until(
      () =>
        this.store.get('ServiceEntry', ROOT_NAMESPACE, CHANGED_ENTRY)?.spec.endpoints?.length === endpoints,
    );
  }

  /** Starts and waits for the first sync (of an empty or a filled registry). */
  async start(): Promise<void> {
    await this.registries.start();
    while (!this.registries.synced) await new Promise((r) => setTimeout(r, 10));
  }

  private delivered(entries: readonly RegistryServiceEntry[]): void {
    const at = performance.now();
    this.waiters = this.waiters.filter((w) => {
      if (!w.holds(entries)) return true;
      w.resolve(at);
      return false;
    });
  }
}

const mb = (bytes: number): number => Math.round(bytes / 1e5) / 10;
const ms = (t: number): number => Math.round(t * 100) / 100;

/** A new controller on a filled registry: the time from its start to every ServiceEntry delivered. */
async function timeRestart(url: string, interfaces: number): Promise<number> {
  const restarted = new Controller(url);
  const t0 = performance.now();
  const all = restarted.allPresent(interfaces);
  await restarted.registries.start();
  const restartMs = (await all) - t0;
  await restarted.registries.stop();
  return restartMs;
}

/** One size: registration under a running controller, memory, change cost, then a restart on the filled registry. */
async function run(
  address: string,
  client: zookeeper.Client,
  interfaces: number,
): Promise<Record<string, number>> {
  const root = `/dubbo-${interfaces}`;
  const url = `zookeeper://${address}${root}?debounce=10ms`;
  gc();
  const before = process.memoryUsage();
  const live = new Controller(url);
  await mkdirp(client, root);
  await live.start();
  const all = live.allPresent(interfaces);
  const registerMs = await registerInterfaces(client, root, interfaces);
  const lastRegistration = performance.now();
  const settleMs = Math.max(0, (await all) - lastRegistration);
  gc();
  const held = process.memoryUsage();
  const changes = await timeProviderChanges(client, root, CHANGES, (n) => live.changedEntry(n));
  await live.registries.stop();
  const restartMs = await timeRestart(url, interfaces);
  return {
    registerMs: Math.round(registerMs),
    settleMs: ms(settleMs),
    heapMb: mb(held.heapUsed - before.heapUsed),
    rssMb: mb(held.rss - before.rss),
    addMs: ms(median(changes.added)),
    removeMs: ms(median(changes.removed)),
    changeMs: ms(median([...changes.added, ...changes.removed])),
    restartMs: Math.round(restartMs),
  };
}

export async function benchRegistry(): Promise<Record<string, unknown>> {
  const server = await ZooKeeperServer.start();
  const client = await connect(server.address, 4000);
  try {
    await run(server.address, client, 100); // warm-up
    const out: Record<string, unknown> = {};
    for (const interfaces of [500, 5_000]) {
      const r = await run(server.address, client, interfaces);
      console.log(`${interfaces} interfaces x ${PROVIDERS}: ${JSON.stringify(r)}`);
      out[`interfaces${interfaces}`] = r;
    }
    const small = out['interfaces500'] as Record<string, number>;
    const large = out['interfaces5000'] as Record<string, number>;
    const ratio = Math.round((large['changeMs']! / small['changeMs']!) * 100) / 100;
    console.log(`change cost ratio 5,000/500: ${ratio} (target <= 2; debounce 10 ms)`);
    return { ...out, changeCostRatio5000to500: ratio };
  } finally {
    client.close();
    await server.stop();
  }
}
