// The reconciler planning against the watched cache of managed objects: no list per run, writes recorded from
// their answers, the periodic resync as the safety net, pacing, progress and convergence times.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OutputObject } from '../../src/model/objects.ts';
import { ManagedCache } from '../../src/reconcile/managed-cache.ts';
import { Reconciler, type DesiredSet, type RunReport } from '../../src/reconcile/reconciler.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { silentLogger, type Logger } from '../../src/util/logger.ts';
import { TokenBucket } from '../../src/util/rate-limit.ts';
import { MemorySink, filter } from './support.ts';

const many = (n: number, v = 1) =>
  Array.from({ length: n }, (_, i) => filter('istio-system', `f${i}`, `ServiceEntry/ns/s${i}`, v));

const key = (i: number) => `EnvoyFilter/istio-system/f${i}`;

/** Lets resolved promises and their continuations run. */
const flush = () => new Promise<void>((r) => setImmediate(r));

interface Options {
  readonly resyncMs?: number;
  readonly limiter?: (clock: ManualClock) => TokenBucket;
  readonly logger?: Logger;
}

function harness(objects: OutputObject[], o: Options = {}) {
  const sink = new MemorySink();
  const clock = new ManualClock(0);
  const cache = new ManagedCache();
  cache.markSynced();
  const state = { objects };
  const desired = (): DesiredSet => ({ objects: state.objects, issues: [], failedSources: new Set() });
  const repairs: number[] = [];
  const converged: number[] = [];
  const rec = new Reconciler({
    sink,
    desired,
    cache,
    isSynced: () => true,
    quietMs: 5,
    maxWaitMs: 20,
    resyncMs: o.resyncMs ?? 0,
    retry: { initialMs: 5, maxMs: 20, jitter: 0 },
    ...(o.limiter ? { limiter: o.limiter(clock) } : {}),
    onResyncRepairs: (n) => repairs.push(n),
    onConverged: (ms) => converged.push(ms),
    progressEveryMs: 1000,
    clock,
    logger: o.logger ?? silentLogger,
  });
  const reports: RunReport[] = [];
  rec.onRun((r) => reports.push(r));
  return { sink, clock, cache, state, rec, reports, repairs, converged };
}

describe('Reconciler with the managed cache', () => {
  it('lists once, then plans against the cache: an unchanged run lists nothing and writes nothing', async () => {
    const h = harness(many(20));
    await h.rec.runNow();
    assert.equal(h.sink.lists, 1);
    assert.equal(h.reports.at(-1)?.listed, true);
    assert.equal(h.cache.size, 20, 'the write answers are in the cache');
    await h.rec.runNow();
    assert.equal(h.sink.lists, 1, 'no list call');
    assert.equal(h.reports.at(-1)?.listed, false);
    assert.equal(h.reports.at(-1)?.unchanged, 20);
    assert.equal(h.sink.writes.length, 20, 'nothing written again');
    h.state.objects = [
      ...many(20).slice(0, 3),
      filter('istio-system', 'f3', 'ServiceEntry/ns/s3', 2),
      ...many(20).slice(4, 19),
    ];
    await h.rec.runNow();
    assert.deepEqual(h.sink.writes.slice(20), [
      { op: 'update', key: key(3) },
      { op: 'delete', key: key(19) },
    ]);
    assert.equal(h.sink.lists, 1);
    await h.rec.runNow();
    assert.equal(h.sink.writes.length, 22, 'the update answer and the deletion are in the cache');
  });

  it('a periodic resync lists, repairs what the cache missed and counts each difference', async () => {
    const h = harness(many(5), { resyncMs: 1000 });
    h.rec.start();
    await h.rec.runNow();
    h.clock.advance(1005);
    await h.rec.idle();
    assert.deepEqual(h.repairs, [0], 'a correct cache: nothing to repair');
    assert.equal(h.sink.lists, 2);
    assert.equal(h.sink.writes.length, 5);

    // Two changes the watch never reported: a deletion and an edit by hand.
    h.sink.objects.delete(key(1));
    const edited = many(5)[2]!;
    h.sink.seed(JSON.parse(JSON.stringify({ ...edited, spec: { configPatches: [] } })));
    await h.rec.runNow();
    assert.equal(h.sink.writes.length, 5, 'the cache does not see them');
    h.clock.advance(1000);
    await h.rec.idle();
    assert.deepEqual(h.repairs, [0, 2]);
    assert.equal(h.reports.at(-1)?.repairs, 2);
    assert.deepEqual(h.sink.writes.slice(5), [
      { op: 'create', key: key(1) },
      { op: 'update', key: key(2) },
    ]);
    await h.rec.runNow();
    assert.equal(h.sink.writes.length, 7, 'repaired for good');
    await h.rec.stop();
  });

  it('a periodic resync lists in the background: changes are written meanwhile and are no repairs', async () => {
    const warnings: Record<string, unknown>[] = [];
    const logger: Logger = { ...silentLogger, child: () => logger, warn: (_m, f) => warnings.push(f ?? {}) };
    const h = harness(many(5), { resyncMs: 1000, logger });
    h.rec.start();
    await h.rec.runNow();
    // Drift before the resync's list: a deletion and an edit by hand that the watch never reported.
    h.sink.objects.delete(key(3));
    h.sink.seed(JSON.parse(JSON.stringify({ ...many(5)[2]!, spec: { configPatches: [] } })));
    let release = () => {};
    h.sink.listHold = new Promise((r) => (release = r));
    h.clock.advance(1005); // the resync: its list is now in flight
    await h.rec.idle();
    assert.equal(h.sink.lists, 2, 'the resync listed');
    assert.equal(h.reports.at(-1)?.listed, false, 'the run the resync requested planned against the cache');

    // Changes while the list is in flight are written at once, against the cache.
    h.state.objects = [...many(5).slice(0, 1), ...many(6, 2).slice(1, 2), ...many(5).slice(2), many(6)[5]!];
    h.rec.trigger();
    h.clock.advance(20);
    await h.rec.idle();
    assert.deepEqual(h.sink.writes.slice(5), [
      { op: 'create', key: key(5) },
      { op: 'update', key: key(1) },
    ]);
    assert.deepEqual(h.repairs, [], 'no repair before the list is in');

    // The list is in: the repair run starts without waiting for a debounce.
    release();
    await flush();
    await h.rec.idle();
    assert.deepEqual(h.repairs, [2], 'the deletion and the edit; not what the writes changed meanwhile');
    assert.equal(h.reports.at(-1)?.listed, true);
    assert.equal(h.reports.at(-1)?.repairs, 2);
    assert.deepEqual(h.sink.writes.slice(7), [
      { op: 'create', key: key(3) },
      { op: 'update', key: key(2) },
    ]);
    assert.equal(h.cache.size, 6, 'the filter created during the list stays in the cache');
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]?.['repairs'], 2);
    await h.rec.runNow();
    assert.equal(h.sink.writes.length, 9, 'repaired for good');
    await h.rec.stop();
  });

  it('a standby (stopped) lists nothing at a resync; its first run as leader again lists', async () => {
    const h = harness(many(3), { resyncMs: 1000 });
    h.rec.start();
    await h.rec.runNow();
    await h.rec.stop(); // leadership lost
    h.clock.advance(1005);
    await flush();
    await h.rec.idle();
    assert.equal(h.sink.lists, 1, 'no background list while standby');
    h.rec.start(); // elected again
    await h.rec.runNow();
    assert.equal(h.reports.at(-1)?.listed, true);
    assert.equal(h.sink.lists, 2);
    await h.rec.stop();
  });

  it('a standby (stopped) notes no change: its next term as leader times none of them', async () => {
    const h = harness(many(1));
    await h.rec.stop();
    h.rec.changed({ kind: 'ServiceEntry', namespace: 'ns', name: 's0', at: 0 });
    h.clock.advance(1000);
    h.rec.start(); // elected: the first run creates the filter of s0
    await h.rec.runNow();
    assert.equal(h.reports.at(-1)?.created, 1);
    assert.deepEqual(h.converged, [], 'the change seen as a standby is not timed by the new term');
    await h.rec.stop();
  });

  it('a failed resync list is reported and the next run lists', async () => {
    const warnings: string[] = [];
    const logger: Logger = { ...silentLogger, child: () => logger, warn: (m) => warnings.push(m) };
    const h = harness(many(3), { resyncMs: 1000, logger });
    h.rec.start();
    await h.rec.runNow();
    h.sink.faults.push({ op: 'list', code: 500, times: 1 });
    h.clock.advance(1005);
    await flush(); // the resync's list fails: a run is requested
    h.clock.advance(5);
    await h.rec.idle();
    assert.ok(warnings.includes('resync list failed; the next run lists'), warnings.join('; '));
    assert.equal(h.reports.at(-1)?.listed, true);
    assert.equal(h.sink.lists, 2);
    assert.deepEqual(h.repairs, [], 'an inline list after a failure counts nothing');
    await h.rec.stop();
  });

  it('after a failed write the next run lists instead of trusting the cache', async () => {
    const h = harness(many(3));
    await h.rec.runNow();
    h.sink.faults.push({ op: 'update', code: 409, times: 1 });
    h.state.objects = many(3, 2);
    await h.rec.runNow();
    assert.equal(h.reports.at(-1)?.failures.length, 1);
    h.clock.advance(5); // the retry
    await h.rec.idle();
    assert.equal(h.reports.at(-1)?.listed, true);
    assert.equal(h.reports.at(-1)?.failures.length, 0);
    assert.equal(h.sink.lists, 2);
  });

  it('paces writes; a change during a long first sync is written right after it, alone; progress is logged', async () => {
    const progress: Record<string, unknown>[] = [];
    const logger: Logger = {
      debug: () => {},
      info: (message, fields) => {
        if (message === 'writing' && fields) progress.push(fields);
      },
      warn: () => {},
      error: () => {},
      child: () => logger,
    };
    const h = harness(many(30), {
      limiter: (clock) => new TokenBucket({ qps: 10, burst: 1, clock }),
      logger,
    });
    let done = false;
    const first = h.rec.runNow().then(() => (done = true));
    let changedAt = -1;
    let syncEnd = -1;
    while (!done) {
      h.clock.advance(50);
      await flush();
      if (changedAt < 0 && h.sink.writes.length >= 10) {
        changedAt = h.clock.now();
        h.state.objects = [filter('istio-system', 'f0', 'ServiceEntry/ns/s0', 2), ...many(30).slice(1)];
        h.rec.changed({ kind: 'ServiceEntry', namespace: 'ns', name: 's0', at: changedAt });
      }
      if (syncEnd < 0 && h.reports.length > 0) syncEnd = h.clock.now();
    }
    await first;
    assert.equal(h.reports.length, 2, 'the sync and one run right after it');
    assert.equal(h.reports[0]?.created, 30);
    assert.equal(h.reports[1]?.updated, 1);
    assert.equal(h.reports[1]?.created, 0);
    assert.equal(h.reports[1]?.listed, false, 'no second pass over the API server');
    assert.ok(h.clock.now() >= 2900, 'the sync took its paced time (30 writes at 10/s)');
    assert.ok(h.clock.now() - syncEnd <= 150, 'applied within one token after the sync ended');
    assert.equal(h.converged.length, 1);
    assert.ok(h.converged[0]! >= syncEnd - changedAt);
    assert.ok(progress.length >= 2, 'a progress line every second of a 3 s sync');
    const line = progress[0]!;
    assert.equal(line['total'], 30);
    assert.ok(Number(line['written']) > 0 && Number(line['written']) < 30);
    assert.ok(Number(line['perSecond']) > 0);
    assert.ok(Number(line['etaSeconds']) > 0);
  });

  it("times a source change at the write of its own filter, other kinds at the run's last write", async () => {
    const h = harness(many(3));
    await h.rec.runNow();
    h.rec.changed({ kind: 'ServiceEntry', namespace: 'ns', name: 's1', at: 0 }); // its filters do not change
    h.rec.changed({ kind: 'MetaRouter', namespace: 'ns', name: 'mr', at: 10 });
    h.rec.changed({ kind: 'ServiceEntry', namespace: 'ns', name: 's2', at: 20 });
    h.state.objects = [...many(3).slice(0, 2), filter('istio-system', 'f2', 'ServiceEntry/ns/s2', 2)];
    h.clock.advance(40); // the debounce fires at 5; the writes happen after this call returns, at 40
    await h.rec.idle();
    assert.equal(h.sink.writes.length, 4);
    assert.deepEqual(h.converged, [20, 30]);
    await h.rec.runNow();
    assert.deepEqual(h.converged, [20, 30], 'each change is observed at most once');
  });
});
