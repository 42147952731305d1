// What the ZooKeeper registry benchmarks (registry, registry-watch) share: interfaces registered in a real ZooKeeper
// as Dubbo providers register them, pipelined; timed provider changes; medians and forced collections.
import { performance } from 'node:perf_hooks';
import type zookeeper from 'node-zookeeper-client';
import { forEachLimit } from '../src/registry/watcher-base.ts';
import {
  createChild,
  mkdirp,
  providerPath,
  registerProvider,
  removeNode,
  type ProviderSpec,
} from '../test/support/dubbo-zookeeper.ts';

/** Providers of every interface. */
export const PROVIDERS = 4;
/** Requests in flight on the registering session. */
const IN_FLIGHT = 512;
/** The interface whose providers change. */
export const CHANGED_INTERFACE = 'org.bench.Service7';

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

/** A full collection (the benches run with --expose-gc). */
export function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

const interfaceName = (i: number): string => `org.bench.Service${i}`;

/** Provider `p` (0-based) of interface number `i`. */
function benchProvider(i: number, p: number): ProviderSpec {
  return {
    iface: interfaceName(i),
    ip: `10.${(i >> 8) & 255}.${i & 255}.${p + 1}`,
    port: 20880,
    version: '1.0.0',
  };
}

/**
 * Registers `interfaces` interfaces of PROVIDERS providers each under Dubbo's root node `root`, pipelined on one
 * session (IN_FLIGHT requests at a time, not one after the other): the persistent `<interface>/providers` nodes,
 * then the ephemeral provider nodes. Resolves once the last registration is acknowledged, with the time taken.
 */
export async function registerInterfaces(
  client: zookeeper.Client,
  root: string,
  interfaces: number,
): Promise<number> {
  const t0 = performance.now();
  const ids = Array.from({ length: interfaces }, (_, i) => i);
  await mkdirp(client, root);
  await forEachLimit(ids, IN_FLIGHT, async (i) => {
    await createChild(client, `${root}/${interfaceName(i)}`, '', false);
    await createChild(client, `${root}/${interfaceName(i)}/providers`, '', false);
  });
  const providers = ids.flatMap((i) => Array.from({ length: PROVIDERS }, (_, p) => benchProvider(i, p)));
  await forEachLimit(providers, IN_FLIGHT, async (p) => {
    await createChild(client, providerPath(root, p));
  });
  return performance.now() - t0;
}

/** The times of `changes` provider changes of CHANGED_INTERFACE, each from the write to its `seen` resolving. */
export interface ChangeTimes {
  readonly added: readonly number[];
  readonly removed: readonly number[];
}

/**
 * `changes` rounds of one provider registered on CHANGED_INTERFACE, then removed. `seen(providers)` is called
 * before each write, with the number of providers the change leads to, and resolves once it is observed.
 */
export async function timeProviderChanges(
  client: zookeeper.Client,
  root: string,
  changes: number,
  seen: (providers: number) => Promise<unknown>,
): Promise<ChangeTimes> {
  const added: number[] = [];
  const removed: number[] = [];
  for (let k = 0; k < changes; k++) {
    let t0 = performance.now();
    const up = seen(PROVIDERS + 1);
    const node = await registerProvider(client, root, {
      iface: CHANGED_INTERFACE,
      ip: `10.99.0.${k}`,
      port: 20880,
    });
    await up;
    added.push(performance.now() - t0);
    t0 = performance.now();
    const down = seen(PROVIDERS);
    await removeNode(client, node);
    await down;
    removed.push(performance.now() - t0);
  }
  return { added, removed };
}
