// The registry bridge alone (src/registry/bridge.ts, with the store injection of src/registry/registries.ts): 500 and
// 5,000 Dubbo interfaces with 4 providers each from an in-memory watcher. Reports the time of the first full
// conversion, the median time of one provider change (re-conversion of that interface, its store update) and the
// ratio of that cost at 5,000 to 500 interfaces (target: at most 2, i.e. independent of the number of services).
// The end-to-end figures through a real ZooKeeper are bench/registry.ts's.
import { performance } from 'node:perf_hooks';
import { registrySource } from '../src/registry/registries.ts';
import { ConfigStore } from '../src/controller/store.ts';
import type { ConfigObject } from '../src/model/objects.ts';
import { parseConfigObject } from '../src/model/parse/parse.ts';
import { RegistryBridge } from '../src/registry/bridge.ts';
import { parseRegistrySpec } from '../src/registry/spec.ts';
import { RegistryVips } from '../src/registry/vips.ts';
import { ManualClock } from '../src/util/clock.ts';
import { silentLogger } from '../src/util/logger.ts';
import { FakeRegistryWatcher, provider } from '../test/fakes/registry/fake-watcher.ts';

const CHANGES = 200;

const providersOf = (svc: string, i: number, gen = 0) =>
  [1, 2, 3, 4].map((p) =>
    provider(svc, `10.${(i >> 8) & 255}.${i & 255}.${p + gen * 4}`, 20880, { version: '1.0' }),
  );

async function run(interfaces: number): Promise<{ firstMs: number; changeMs: number; heapMb: number }> {
  const spec = parseRegistrySpec('zk=zookeeper://zk:2181/dubbo');
  if (!spec.ok) throw new Error('bad spec');
  const clock = new ManualClock(0);
  const watcher = new FakeRegistryWatcher('zk');
  const store = new ConfigStore({ rootNamespace: 'istio-system' });
  const names = Array.from({ length: interfaces }, (_, i) => `org.bench.svc${i}.DemoService`);
  names.forEach((svc, i) => watcher.set(svc, providersOf(svc, i), true));
  const bridge = new RegistryBridge({
    spec: spec.value,
    watcher,
    rootNamespace: 'istio-system',
    vips: new RegistryVips(),
    clock,
    logger: silentLogger,
  });
  bridge.onChange((d) => {
    const upserts: ConfigObject[] = [];
    for (const se of d.upserted) {
      const r = parseConfigObject(se);
      if (r?.ok) upserts.push(r.value);
    }
    store.applyOwned(
      registrySource('zk'),
      upserts,
      d.removed.map((r) => ({ kind: 'ServiceEntry', ...r })),
    );
  });
  const heap0 = process.memoryUsage().heapUsed;
  bridge.start();
  watcher.sync();
  let t0 = performance.now();
  clock.advance(500);
  await bridge.idle();
  const firstMs = performance.now() - t0;
  if (store.list('ServiceEntry').length !== interfaces) throw new Error('not every ServiceEntry converted');
  const heapMb = Math.round(((process.memoryUsage().heapUsed - heap0) / 2 ** 20) * 10) / 10;
  const times: number[] = [];
  for (let c = 0; c < CHANGES; c++) {
    const i = (c * 7919) % interfaces;
    watcher.set(names[i]!, providersOf(names[i]!, i, (c % 3) + 1));
    t0 = performance.now();
    clock.advance(500);
    await bridge.idle();
    times.push(performance.now() - t0);
  }
  const last = ((CHANGES - 1) * 7919) % interfaces;
  const want = `.${1 + (((CHANGES - 1) % 3) + 1) * 4}`;
  const entry = bridge
    .entries()
    .find((x) => x.metadata.annotations['aeraki.io/registry-service'] === names[last]);
  const stored = entry && store.get('ServiceEntry', entry.metadata.namespace, entry.metadata.name);
  if (!stored || !entry.spec.endpoints.some((x) => x.address.endsWith(want))) {
    throw new Error('the last provider change did not reach the store');
  }
  await bridge.stop();
  times.sort((a, b) => a - b);
  return { firstMs: Math.round(firstMs), changeMs: times[Math.floor(times.length / 2)]!, heapMb };
}

export async function benchRegistryBridge(): Promise<Record<string, unknown>> {
  await run(200); // warm-up
  const small = await run(500);
  const large = await run(5000);
  const ratio = Math.round((large.changeMs / small.changeMs) * 100) / 100;
  const out = {
    interfaces500: { ...small, changeMs: Math.round(small.changeMs * 1000) / 1000 },
    interfaces5000: { ...large, changeMs: Math.round(large.changeMs * 1000) / 1000 },
    changeCostRatio5000to500: ratio,
  };
  console.log(JSON.stringify(out));
  return out;
}
