// Issue 3 benchmark: reconciling ~10,000 desired EnvoyFilters (3,334 synthetic MetaProtocol services, three filters
// each) against the fake kube-apiserver over HTTP: writes and wall time of the first sync, writes of an unchanged
// resync (target 0), writes after one service changes (target: exactly its changed filters), and memory.
import { performance } from 'node:perf_hooks';
import { ConfigStore } from '../src/controller/store.ts';
import { desiredHash } from '../src/reconcile/diff.ts';
import { generateAll } from '../src/envoyfilter/generate-all.ts';
import { createKubeSink } from '../src/reconcile/kube-sink.ts';
import { Reconciler } from '../src/reconcile/reconciler.ts';
import { silentLogger } from '../src/util/logger.ts';
import type { OutputObject } from '../src/model/objects.ts';
import { parseConfigObject } from '../src/model/parse.ts';
import { createGenerators } from '../src/plugins/registry.ts';
import { fakeKubeConfig } from '../test/fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer } from '../test/fakes/kube-apiserver/index.ts';
import { syntheticObjects } from './synthetic.ts';

const SERVICES = 3334;

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

const mb = (n: number) => Math.round((n / 2 ** 20) * 10) / 10;

function changedCount(before: readonly OutputObject[], after: readonly OutputObject[]): number {
  const old = new Map(
    before.map((o) => [`${o.kind}/${o.metadata.namespace}/${o.metadata.name}`, desiredHash(o)]),
  );
  let n = 0;
  for (const o of after)
    if (old.get(`${o.kind}/${o.metadata.namespace}/${o.metadata.name}`) !== desiredHash(o)) n++;
  return n + Math.max(0, before.length - after.length);
}

export async function benchReconcile(): Promise<Record<string, unknown>> {
  const store = new ConfigStore({ rootNamespace: 'istio-system' });
  for (const raw of syntheticObjects(SERVICES)) {
    const r = parseConfigObject(raw);
    if (r?.ok) store.upsert(r.value);
  }
  const generators = createGenerators();
  const desired = () => generateAll(store, generators, { namespaceScope: false });
  const api = await startFakeKubeApiServer({ eventWindow: 50_000 });
  try {
    const sink = createKubeSink(fakeKubeConfig(api, { token: 'bench' }));
    const rec = new Reconciler({ sink, desired, isSynced: () => true, resyncMs: 0, logger: silentLogger });
    const efWrites = () => api.writes({ resource: 'envoyfilters' }).length;
    const desiredCount = desired().objects.length;

    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    let t0 = performance.now();
    await rec.runNow();
    const firstMs = performance.now() - t0;
    const firstWrites = efWrites();
    const heapAfterFirst = process.memoryUsage().heapUsed;

    api.clearRequests();
    t0 = performance.now();
    await rec.runNow();
    const resyncMs = performance.now() - t0;
    const resyncWrites = efWrites();

    // One service changes: its workload selector (the inbound filter's selector).
    const before = desired().objects;
    const se = store.get('ServiceEntry', 'ns-7', 'svc-7')!;
    store.upsert({
      ...se,
      spec: { ...se.spec, workloadSelector: { labels: { app: 'svc-7-renamed' } } },
    });
    const expected = changedCount(before, desired().objects);
    api.clearRequests();
    t0 = performance.now();
    await rec.runNow();
    const oneChangeMs = performance.now() - t0;
    const oneChangeWrites = efWrites();
    await rec.stop();
    gc();

    const figures = {
      desiredEnvoyFilters: desiredCount,
      firstSyncWrites: firstWrites,
      firstSyncMs: Math.round(firstMs),
      firstSyncWritesPerSec: Math.round((firstWrites / firstMs) * 1000),
      unchangedResyncWrites: resyncWrites,
      unchangedResyncMs: Math.round(resyncMs),
      oneServiceChangedWrites: oneChangeWrites,
      oneServiceChangedExpected: expected,
      oneServiceChangedMs: Math.round(oneChangeMs),
      heapGrowthFirstSyncMb: mb(heapAfterFirst - heapBefore),
      heapUsedMb: mb(process.memoryUsage().heapUsed),
      rssMb: mb(process.memoryUsage().rss),
    };
    for (const [k, v] of Object.entries(figures)) console.log(`${k}: ${String(v)}`);
    return figures;
  } finally {
    await api.close();
  }
}

// Standalone: node --import tsx --expose-gc bench/reconcile.ts
if (import.meta.url === `file://${process.argv[1] ?? ''}`) await benchReconcile();
