// ZooKeeper watcher benchmark, against the real ZooKeeper of the tests (Debian's jars): 5,000 interfaces with 4
// providers each registered as Dubbo registers them; the time of the watcher's first full read (start to
// `synced`), the heap it holds, and the cost of one provider change (the time from the change to its `services`
// report) with 500 and with 5,000 interfaces in the same run. Target: the change cost does not grow with the
// number of interfaces (ratio 5,000/500 at most 2). The bridge's ServiceEntries come after this (bench/registry.ts).
import { performance } from 'node:perf_hooks';
import type { RegistryChange } from '../src/model/registry-bridge.ts';
import { silentLogger } from '../src/util/logger.ts';
import { ZooKeeperWatcher } from '../src/registry/zookeeper/watcher.ts';
import { connect } from '../test/support/dubbo-zookeeper.ts';
import { ZooKeeperServer } from '../test/support/zookeeper-server.ts';
import { gc, median, PROVIDERS, registerInterfaces, timeProviderChanges } from './zookeeper-providers.ts';

const CHANGES = 15;

/** Starts a watcher on `root`, waits for its first `synced`; returns it, its changes and the time taken. */
async function startWatcher(address: string, root: string) {
  const changes: RegistryChange[] = [];
  let notify: () => void = () => {};
  const watcher = new ZooKeeperWatcher(
    {
      name: 'bench',
      type: 'zookeeper',
      servers: [address],
      root,
      params: {},
      namespace: undefined,
      allow: [],
      deny: [],
      keepStaleWhenEmpty: false,
      debounceMs: 500,
    },
    { logger: silentLogger },
  );
  const next = (type: RegistryChange['type']): Promise<void> =>
    new Promise((resolve) => {
      notify = () => {
        if (changes.at(-1)?.type === type) resolve();
      };
    });
  const t0 = performance.now();
  const synced = next('synced');
  watcher.start((c) => {
    changes.push(c);
    notify();
  });
  await synced;
  return { watcher, readMs: performance.now() - t0, next };
}

export async function benchRegistryWatch(): Promise<Record<string, unknown>> {
  const server = await ZooKeeperServer.start();
  const client = await connect(server.address, 4000);
  try {
    const results: Record<string, number> = {};
    for (const interfaces of [500, 5_000]) {
      const root = `/dubbo-${interfaces}`;
      const registerMs = await registerInterfaces(client, root, interfaces);
      gc();
      const heap0 = process.memoryUsage().heapUsed;
      const { watcher, readMs, next } = await startWatcher(server.address, root);
      gc();
      const heapMb = (process.memoryUsage().heapUsed - heap0) / 1e6;
      const services = watcher.services().length;
      const changes = await timeProviderChanges(client, root, CHANGES, () => next('services'));
      const changeMs = median(changes.added);
      await watcher.stop();
      console.log(
        `${interfaces} interfaces x ${PROVIDERS}: registered in ${registerMs.toFixed(0)} ms; first full read ` +
          `${readMs.toFixed(0)} ms (${services} services); heap held ${heapMb.toFixed(1)} MB; one change ` +
          `${changeMs.toFixed(2)} ms (median of ${CHANGES})`,
      );
      results[`read_ms_${interfaces}`] = Math.round(readMs);
      results[`heap_mb_${interfaces}`] = Number(heapMb.toFixed(1));
      results[`change_ms_${interfaces}`] = Number(changeMs.toFixed(2));
    }
    const ratio = results['change_ms_5000']! / results['change_ms_500']!;
    console.log(`change cost ratio 5,000/500: ${ratio.toFixed(2)} (target <= 2)`);
    return { ...results, change_ratio: Number(ratio.toFixed(2)) };
  } finally {
    client.close();
    await server.stop();
  }
}
