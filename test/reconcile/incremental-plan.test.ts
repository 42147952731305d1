// Change-driven reconciles (issue 22): between full resyncs a run plans only the sources whose output changed,
// against the managed cache; the first run, a run after failed writes and a break in the change sets list and
// plan everything.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IncrementalGenerator } from '../../src/envoyfilter/incremental.ts';
import { createGenerators } from '../../src/plugins/registry.ts';
import { ManagedCache } from '../../src/reconcile/managed-cache.ts';
import { Reconciler, type RunReport } from '../../src/reconcile/reconciler.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { serviceEntry, storeOf } from '../support/builders.ts';
import { MemorySink } from './support.ts';

const host = (name: string, ns: string) => `${name}.${ns}.svc.cluster.local`;
const meta = (ns: string, name: string, address = '240.240.0.1') =>
  serviceEntry(ns, name, {
    hosts: [host(name, ns)],
    addresses: [address],
    ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo' }],
  });

function harness(o: { services?: number; yields?: { count: number } } = {}) {
  const services = o.services
    ? Array.from({ length: o.services }, (_, i) => meta('a', `s${i}`))
    : [meta('a', 's0'), meta('a', 's1'), meta('b', 's2')];
  const store = storeOf(services);
  const generator = new IncrementalGenerator(store, createGenerators(), { namespaceScope: false });
  const sink = new MemorySink();
  const cache = new ManagedCache();
  cache.markSynced();
  const held = new Set<string>();
  const rec = new Reconciler({
    sink,
    desired: () => generator.update(),
    heldSources: () => held,
    cache,
    isSynced: () => true,
    resyncMs: 0,
    clock: new ManualClock(0),
    logger: silentLogger,
    // A slice clock that moves one tick per read: a pass yields every 50 reads.
    ...(o.yields ? { slices: slicesCounting(o.yields) } : {}),
  });
  const reports: RunReport[] = [];
  rec.onRun((r) => reports.push(r));
  /** The writes of the next run. */
  const run = async () => {
    const before = sink.writes.length;
    await rec.runNow();
    return sink.writes.slice(before);
  };
  return { store, generator, sink, cache, held, rec, reports, run };
}

function slicesCounting(yields: { count: number }) {
  let ticks = 0;
  return {
    sliceMs: 50,
    now: () => ticks++,
    yieldNow: () => {
      yields.count++;
      return new Promise<void>((resolve) => setImmediate(resolve));
    },
  };
}

/** The source annotation of the stored object at `key`. */
const sourceOf = (sink: MemorySink, key: string) =>
  sink.existing(key)?.annotations['aeraki.io/source'] ?? '(none)';

describe('change-driven reconciles', () => {
  it('lists and plans everything first, then writes only the objects of the source that changed', async () => {
    const h = harness();
    const first = await h.run();
    assert.equal(h.reports.at(-1)?.listed, true);
    assert.equal(h.reports.at(-1)?.incremental, undefined);
    assert.ok(first.length >= 3, 'every source written');
    h.store.upsert(meta('a', 's1', '240.240.0.9'));
    const writes = await h.run();
    const report = h.reports.at(-1);
    assert.equal(report?.incremental, true);
    assert.equal(report?.listed, false);
    assert.equal(h.sink.lists, 1, 'no list call');
    const s1 = (address: string) =>
      `EnvoyFilter/istio-system/aeraki-outbound-${host('s1', 'a')}-${address}-20880`;
    assert.deepEqual(writes, [
      { op: 'create', key: s1('240.240.0.9') },
      { op: 'delete', key: s1('240.240.0.1') },
    ]);
    // The answers to the run's own writes hold what it planned: the next run re-checks nothing.
    assert.deepEqual(await h.run(), [], 'nothing changed: nothing written');
    assert.equal(h.reports.at(-1)?.unchanged, 0);
    assert.equal(h.cache.takeChanged().length, 0);
    h.store.upsert(meta('b', 's2', '240.240.0.1'));
    assert.deepEqual(await h.run(), []);
    assert.equal(h.reports.at(-1)?.unchanged, 0, 'nothing changed since: nothing diffed');
    h.generator.stop();
  });

  it('deletes the objects of a source that disappears, and only those', async () => {
    const h = harness();
    await h.run();
    const ofS2 = [...h.sink.objects.keys()].filter((k) => sourceOf(h.sink, k) === 'ServiceEntry/b/s2');
    assert.ok(ofS2.length > 0);
    h.store.delete('ServiceEntry', 'b', 's2');
    const writes = await h.run();
    assert.equal(h.reports.at(-1)?.incremental, true);
    assert.deepEqual(
      writes.map((w) => w.key),
      ofS2,
    );
    assert.ok(writes.every((w) => w.op === 'delete'));
    h.generator.stop();
  });

  it('keeps the objects of a held source, and deletes them once it is no longer held', async () => {
    const h = harness();
    await h.run();
    const count = h.sink.objects.size;
    h.held.add('ServiceEntry/a/s0');
    h.store.delete('ServiceEntry', 'a', 's0');
    assert.deepEqual(await h.run(), [], 'held: kept');
    assert.equal(h.reports.at(-1)?.incremental, true);
    assert.ok((h.reports.at(-1)?.kept ?? 0) > 0);
    assert.equal(h.sink.objects.size, count);
    h.held.delete('ServiceEntry/a/s0');
    h.rec.trigger();
    const writes = await h.run();
    assert.ok(writes.length > 0 && writes.every((w) => w.op === 'delete'), 'released: deleted');
    assert.equal(h.reports.at(-1)?.incremental, true);
    h.generator.stop();
  });

  it('repairs an object changed behind its back (a watch event in the cache) without a change of its source', async () => {
    const h = harness();
    await h.run();
    const key = [...h.sink.objects.keys()].find((k) => sourceOf(h.sink, k) === 'ServiceEntry/a/s0') ?? '';
    const e = h.sink.existing(key);
    assert.ok(e);
    // Someone deletes it; the drift watch records the deletion in the cache.
    h.sink.objects.delete(key);
    h.cache.remove(e.kind, e.namespace, e.name);
    assert.deepEqual(await h.run(), [{ op: 'create', key }]);
    assert.equal(h.reports.at(-1)?.incremental, true);
    h.generator.stop();
  });

  it('lists and plans everything after a failed write, then goes back to change-driven runs', async () => {
    const h = harness();
    await h.run();
    h.sink.faults.push({ op: 'create', code: 500, times: 1 });
    h.store.upsert(meta('a', 's1', '240.240.0.9'));
    await h.run();
    assert.ok((h.reports.at(-1)?.failures.length ?? 0) > 0);
    await h.run();
    assert.equal(h.reports.at(-1)?.listed, true, 'the run after a failure lists');
    assert.equal(h.reports.at(-1)?.incremental, undefined);
    assert.equal(h.reports.at(-1)?.failures.length, 0);
    h.store.upsert(meta('a', 's1', '240.240.0.8'));
    await h.run();
    assert.equal(h.reports.at(-1)?.incremental, true);
    h.generator.stop();
  });

  it('compares a change set that touches every source in slices that yield to the loop', async () => {
    const yields = { count: 0 };
    const h = harness({ services: 200, yields });
    await h.run();
    for (let i = 0; i < 200; i++) h.store.upsert(meta('a', `s${i}`, '240.240.0.7'));
    const before = yields.count;
    const writes = await h.run();
    assert.equal(h.reports.at(-1)?.incremental, true);
    assert.equal(h.reports.at(-1)?.listed, false);
    assert.ok(yields.count > before, 'the change-driven plan yielded');
    assert.equal(writes.filter((w) => w.op === 'create').length, 200);
    assert.equal(writes.filter((w) => w.op === 'delete').length, 200);
    h.generator.stop();
  });
});
