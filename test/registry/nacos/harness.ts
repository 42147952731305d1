// A NacosWatcher against the fake Nacos on a manual clock: each `poll()` fires the pending timer and waits until
// the watcher has scheduled its next one (the poll finished), returning the changes it reported.
import type { RegistryChange, RegistrySpec } from '../../../src/model/registry-bridge.ts';
import { NacosWatcher } from '../../../src/registry/nacos/watcher.ts';
import { ManualClock } from '../../../src/util/clock.ts';
import { silentLogger } from '../../../src/util/logger.ts';
import { FakeNacos, type FakeNacosOptions } from '../../fakes/nacos/server.ts';

export const POLL_MS = 5_000;
export const BACKOFF_MS = 200;

export function nacosSpec(address: string | string[], params: Record<string, string> = {}): RegistrySpec {
  return {
    name: 'nacos',
    type: 'nacos',
    servers: Array.isArray(address) ? address : [address],
    root: '/dubbo',
    params,
    namespace: undefined,
    allow: [],
    deny: [],
    keepStaleWhenEmpty: false,
    debounceMs: 500,
  };
}

export interface Harness {
  readonly fake: FakeNacos;
  readonly watcher: NacosWatcher;
  readonly clock: ManualClock;
  readonly changes: RegistryChange[];
  /** Runs the next scheduled poll to its end; the changes it reported. */
  poll(): Promise<RegistryChange[]>;
  /** The delay of the next poll as scheduled (POLL_MS after a success, the backoff after a failure). */
  nextDelay(): number;
  close(): Promise<void>;
}

async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

export async function startHarness(
  params: Record<string, string> = {},
  fakeOptions: FakeNacosOptions = {},
  setup?: (fake: FakeNacos) => void,
  /** Servers listed before the fake in the URL. */
  before: readonly string[] = [],
): Promise<Harness> {
  const fake = await FakeNacos.start(fakeOptions);
  setup?.(fake);
  const clock = new ManualClock(1_000_000);
  const watcher = new NacosWatcher(nacosSpec([...before, fake.address], params), {
    logger: silentLogger,
    clock,
    pollIntervalMs: POLL_MS,
    backoff: { initialMs: BACKOFF_MS, jitter: 0 },
  });
  const changes: RegistryChange[] = [];
  watcher.start((c) => changes.push(c));
  return {
    fake,
    watcher,
    clock,
    changes,
    async poll() {
      const before = changes.length;
      clock.advance(clock.pendingDelays()[0] ?? 0);
      await until(() => clock.pending() === 1, 'the poll to finish');
      return changes.slice(before);
    },
    nextDelay: () => clock.pendingDelays()[0] ?? -1,
    async close() {
      await watcher.stop();
      await fake.close();
    },
  };
}
