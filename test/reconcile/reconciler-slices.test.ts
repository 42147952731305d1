// A run's long passes in slices that yield to the event loop (issue 40): the same plan and writes as one stretch, a
// change delivered during a yield left to the next run (never half-applied), no write once stopped during a yield,
// no overlapping runs, and a resync's repair that keeps what the watch recorded during its yields.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OutputObject } from '../../src/model/objects.ts';
import { withContentHash } from '../../src/kit/owned-content.ts';
import { ManagedCache } from '../../src/reconcile/managed-cache.ts';
import { Reconciler, type DesiredSet, type RunReport } from '../../src/reconcile/reconciler.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { MemorySink, filter } from './support.ts';

const many = (n: number, v = 1) =>
  Array.from({ length: n }, (_, i) => filter('istio-system', `f${i}`, `ServiceEntry/ns/s${i}`, v));
const key = (i: number) => `EnvoyFilter/istio-system/f${i}`;

/** Lets resolved promises and their continuations run. */
const flush = () => new Promise<void>((r) => setImmediate(r));

interface Options {
  /** Slice length in ticks of the fake slice clock, which moves one tick per read (Infinity: one stretch). */
  readonly sliceMs?: number;
  readonly cache?: boolean;
  readonly resyncMs?: number;
}

function harness(objects: OutputObject[], o: Options = {}) {
  const sink = new MemorySink();
  const clock = new ManualClock(0);
  const cache = o.cache ? new ManagedCache() : undefined;
  cache?.markSynced();
  const state = { objects, desiredCalls: 0, onDesired: () => {} };
  const yields = { count: 0, hook: undefined as (() => void) | undefined };
  let ticks = 0;
  const repairs: number[] = [];
  const desired = (): DesiredSet => {
    state.desiredCalls++;
    state.onDesired();
    return { objects: state.objects, issues: [], failedSources: new Set() };
  };
  const rec = new Reconciler({
    sink,
    desired,
    ...(cache ? { cache } : {}),
    isSynced: () => true,
    quietMs: 5,
    maxWaitMs: 20,
    resyncMs: o.resyncMs ?? 0,
    retry: { initialMs: 5, maxMs: 20, jitter: 0 },
    onResyncRepairs: (n) => repairs.push(n),
    slices: {
      sliceMs: o.sliceMs ?? 20,
      now: () => ticks++,
      yieldNow: () => {
        yields.count++;
        const hook = yields.hook;
        yields.hook = undefined;
        hook?.();
        return flush();
      },
    },
    clock,
    logger: silentLogger,
  });
  const reports: RunReport[] = [];
  rec.onRun((r) => reports.push(r));
  return { sink, clock, cache, state, rec, reports, yields, repairs };
}

/** The sink seeded with 2,000 filters, a tenth of them stale and 100 of them no longer desired. */
function seeded(sliceMs: number) {
  const h = harness(many(1900), { sliceMs });
  for (const [i, f] of many(2000).entries()) {
    const stale = i % 10 === 3 ? filter('istio-system', `f${i}`, `ServiceEntry/ns/s${i}`, 9) : f;
    h.sink.seed(JSON.parse(JSON.stringify(withContentHash(stale))));
  }
  return h;
}

describe('Reconciler in slices', () => {
  it('a large listing reconcile yields to the loop and plans and writes exactly what one stretch does', async () => {
    const sliced = seeded(20);
    const whole = seeded(Infinity);
    await sliced.rec.runNow();
    await whole.rec.runNow();
    assert.ok(sliced.yields.count > 100, `yielded ${sliced.yields.count} times`);
    assert.equal(whole.yields.count, 0);
    assert.equal(sliced.sink.writes.length, 190 + 100);
    assert.deepEqual(sliced.sink.writes, whole.sink.writes);
    assert.deepEqual(
      sliced.reports,
      whole.reports.map((r) => ({ ...r })),
    );
    assert.deepEqual([...sliced.sink.objects.keys()], [...whole.sink.objects.keys()]);
  });

  it('a change delivered during a yield is not half-applied: the run after picks it up', async () => {
    const h = harness(many(300));
    h.yields.hook = () => {
      h.state.objects = [filter('istio-system', 'f0', 'ServiceEntry/ns/s0', 2), ...many(300).slice(2)];
      h.rec.trigger();
    };
    await h.rec.runNow();
    assert.ok(h.yields.count > 0);
    assert.equal(h.yields.hook, undefined, 'the change came during a yield');
    assert.equal(h.sink.writes.length, 300, 'the run wrote its own snapshot whole');
    assert.ok(h.sink.writes.every((w) => w.op === 'create'));
    h.clock.advance(5);
    await h.rec.idle();
    assert.deepEqual(h.sink.writes.slice(300), [
      { op: 'update', key: key(0) },
      { op: 'delete', key: key(1) },
    ]);
    assert.equal(h.state.desiredCalls, 2);
    await h.rec.stop();
  });

  it('stop() during a yield ends the run there: nothing is written, and the next term lists', async () => {
    const h = harness(many(300));
    let stopped: Promise<void> | undefined;
    h.yields.hook = () => {
      stopped = h.rec.stop();
    };
    await h.rec.runNow();
    await stopped;
    assert.equal(h.sink.writes.length, 0);
    assert.equal(h.reports.at(-1)?.interrupted, true);
    assert.equal(h.reports.at(-1)?.failures.length, 0);
    h.rec.start();
    await h.rec.runNow();
    assert.equal(h.sink.lists, 2, 'the new term lists');
    assert.equal(h.sink.writes.length, 300);
    await h.rec.stop();
  });

  it('a run requested during a yield starts after the run in progress, never beside it', async () => {
    const h = harness(many(300));
    let inRun = false;
    let overlapped = false;
    h.rec.onRun(() => (inRun = false));
    h.state.onDesired = () => {
      if (inRun) overlapped = true;
      inRun = true;
    };
    let second: Promise<void> | undefined;
    h.yields.hook = () => {
      second = h.rec.runNow();
      h.rec.trigger();
      h.clock.advance(50); // the debounce fires during the run
    };
    await h.rec.runNow();
    await second;
    await h.rec.idle();
    assert.equal(overlapped, false);
    assert.equal(h.state.desiredCalls, 2, 'the requests during the run made one more run');
    assert.equal(h.sink.writes.length, 300);
    await h.rec.stop();
  });

  it("a resync's repair keeps what the watch recorded during its yields", async () => {
    const h = harness(many(60), { cache: true, resyncMs: 1000 });
    h.rec.start();
    await h.rec.runNow();
    assert.equal(h.sink.writes.length, 60);
    let release = () => {};
    h.sink.listHold = new Promise((r) => (release = r));
    h.clock.advance(1005); // the resync: its list is in flight
    await h.rec.idle();
    // Another writer creates f60 after the list's snapshot; the watch reports it during the repair's first yield.
    h.state.objects = many(61);
    h.yields.hook = () => {
      h.sink.seed(JSON.parse(JSON.stringify(withContentHash(many(61)[60]!))));
      h.cache?.upsert(h.sink.existing(key(60))!);
    };
    release();
    await flush();
    await h.rec.idle();
    assert.equal(h.yields.hook, undefined, 'the watch event came during a yield');
    assert.deepEqual(h.repairs, [0], 'a change seen by the watch is no repair');
    assert.ok(h.cache?.get('EnvoyFilter', 'istio-system', 'f60'), 'still cached');
    assert.equal(h.sink.writes.length, 60, 'f60 is current: nothing written');
    assert.equal(h.reports.at(-1)?.failures.length, 0);
    await h.rec.stop();
  });
});
