import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Reconciler, type DesiredSet, type RunReport } from '../../src/reconcile/reconciler.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { silentLogger, type Logger } from '../../src/util/logger.ts';
import { issue, warning } from '../../src/model/result.ts';
import type { OutputObject } from '../../src/model/objects.ts';
import { MemorySink, filter } from './support.ts';

interface Harness {
  sink: MemorySink;
  rec: Reconciler;
  state: { objects: OutputObject[]; failed: Set<string>; synced: boolean };
  reports: RunReport[];
  clock: ManualClock;
  /** Fires the due timers (retries, re-checks) and awaits the runs they start, until none is left. */
  settle(): Promise<void>;
}

function harness(objects: OutputObject[], opts: { retryMs?: number; resyncMs?: number } = {}): Harness {
  const sink = new MemorySink();
  const clock = new ManualClock(0);
  const state = { objects, failed: new Set<string>(), synced: true };
  const desired = (): DesiredSet => ({ objects: state.objects, issues: [], failedSources: state.failed });
  const rec = new Reconciler({
    sink,
    desired,
    isSynced: () => state.synced,
    quietMs: 5,
    maxWaitMs: 20,
    resyncMs: opts.resyncMs ?? 0,
    retry: { initialMs: opts.retryMs ?? 5, maxMs: 20, jitter: 0 },
    clock,
    logger: silentLogger,
  });
  const reports: RunReport[] = [];
  rec.onRun((r) => reports.push(r));
  const settle = async () => {
    for (let i = 0; i < 100 && clock.pending() > 0; i++) {
      clock.runAll();
      await rec.idle();
    }
    assert.equal(clock.pending(), 0, 'settled');
  };
  return { sink, rec, state, reports, clock, settle };
}

const many = (n: number, v = 1) =>
  Array.from({ length: n }, (_, i) => filter('istio-system', `f${i}`, `ServiceEntry/ns/s${i}`, v));

describe('Reconciler', () => {
  it('first sync creates exactly the desired set; an unchanged resync writes nothing', async () => {
    const h = harness(many(20));
    await h.rec.runNow();
    assert.equal(h.sink.writes.length, 20);
    assert.ok(h.sink.writes.every((w) => w.op === 'create'));
    await h.rec.runNow();
    assert.equal(h.sink.writes.length, 20);
    assert.equal(h.reports.at(-1)?.unchanged, 20);
    await h.rec.stop();
  });

  it('one changed service rewrites only its filters', async () => {
    const h = harness(many(10));
    await h.rec.runNow();
    h.state.objects = h.state.objects.map((o, i) =>
      i === 3 ? filter('istio-system', 'f3', 'ServiceEntry/ns/s3', 9) : o,
    );
    await h.rec.runNow();
    assert.deepEqual(h.sink.writes.slice(10), [{ op: 'update', key: 'EnvoyFilter/istio-system/f3' }]);
    await h.rec.stop();
  });

  it('writes nothing before every source synced, nor once stopped (leadership lost)', async () => {
    const h = harness(many(3));
    h.state.synced = false;
    await h.rec.runNow();
    assert.equal(h.reports.at(-1)?.skipped, 'not-synced');
    h.state.synced = true;
    await h.rec.stop();
    h.rec.trigger();
    await h.rec.runNow();
    await h.settle();
    assert.equal(h.reports.length, 1, 'no run once stopped');
    assert.equal(h.sink.writes.length, 0);
  });

  it('stops writing at once when stopped mid-run (leadership lost after the first write)', async () => {
    const h = harness(many(50));
    let stopped: Promise<void> | undefined;
    h.sink.beforeWrite = () => {
      stopped ??= h.rec.stop();
    };
    await h.rec.runNow();
    await stopped;
    assert.equal(h.sink.writes.length, 1, 'nothing written after the stop');
    assert.equal(h.reports.at(-1)?.interrupted, true);
  });

  it('retries 409 and 500 with backoff until convergence, collecting every failure', async () => {
    const h = harness(many(5));
    h.sink.faults.push({ op: 'create', code: 500, times: 3 }, { op: 'create', code: 409, times: 2 });
    await h.rec.runNow();
    assert.equal(h.reports[0]?.failures.length, 5);
    assert.deepEqual(h.clock.pendingDelays(), [5], 'a retry after the first backoff delay');
    await h.settle();
    assert.equal(h.reports.at(-1)?.failures.length, 0);
    assert.deepEqual(
      h.reports.map((r) => [r.created, r.failures.length]),
      [
        [0, 5],
        [5, 0],
      ],
    );
    assert.equal(h.sink.objects.size, 5);
    await h.rec.stop();
  });

  it('a refused write is retried; its refusal clears when written, no longer desired, or no longer leading', async () => {
    const h = harness(many(3));
    h.sink.faults.push({ op: 'create', code: 403, times: 3 }, { op: 'update', code: 401, times: 100 });
    await h.rec.runNow();
    assert.equal(h.reports[0]?.failures.length, 3);
    assert.ok(h.reports[0]?.failures.every((f) => f.error.transient && f.error.code === 403));
    assert.deepEqual(h.clock.pendingDelays(), [5], 'retried after the backoff, not left for a change');
    assert.equal(h.rec.refused().length, 3);
    await h.settle();
    assert.equal(h.sink.objects.size, 3);
    assert.deepEqual(h.rec.refused(), []);

    // An update refused (401), then no longer needed: the next full run drops it.
    h.state.objects = [...many(2), filter('istio-system', 'f2', 'ServiceEntry/ns/s2', 2)];
    await h.rec.runNow();
    assert.deepEqual(
      h.rec.refused().map((r) => `${r.verb} ${r.code} ${r.name}`),
      ['update 401 f2'],
    );
    h.state.objects = many(3);
    await h.rec.runNow();
    assert.deepEqual(h.rec.refused(), []);

    // Refused again, then leadership moves (stopped): a standby writes nothing, so it reports nothing refused.
    h.state.objects = [...many(2), filter('istio-system', 'f2', 'ServiceEntry/ns/s2', 3)];
    await h.rec.runNow();
    assert.equal(h.rec.refused().length, 1);
    await h.rec.stop();
    assert.deepEqual(h.rec.refusalDetails(), []);
  });

  it('survives a failing list (API outage) and converges afterwards', async () => {
    const h = harness(many(3));
    h.sink.faults.push({ op: 'list', code: 503, times: 4 });
    await h.rec.runNow();
    await h.settle();
    assert.equal(h.sink.objects.size, 3);
    assert.equal(h.reports.at(-1)?.failures.length, 0);
    assert.equal(h.reports.filter((r) => r.skipped === 'desired-failed').length, 4);
    await h.rec.stop();
  });

  it('keeps the filters of a failing service and deletes those of a removed one', async () => {
    const h = harness(many(3));
    await h.rec.runNow();
    h.state.objects = [h.state.objects[0]!];
    h.state.failed = new Set(['ServiceEntry/ns/s1']);
    await h.rec.runNow();
    assert.deepEqual([...h.sink.objects.keys()].sort(), [
      'EnvoyFilter/istio-system/f0',
      'EnvoyFilter/istio-system/f1',
    ]);
    await h.rec.stop();
  });

  it('coalesces a burst of triggers into one run, at the latest maxWait after the first', async () => {
    const h = harness(many(2));
    for (let i = 0; i < 50; i++) h.rec.trigger();
    h.clock.advance(4);
    assert.equal(h.reports.length, 0);
    h.clock.advance(1);
    await h.rec.idle();
    assert.equal(h.reports.length, 1);
    for (let t = 0; t < 20; t += 4) {
      h.rec.trigger();
      h.clock.advance(4);
    }
    await h.rec.idle();
    assert.equal(h.reports.length, 2, 'a continuous stream still runs after maxWaitMs');
    await h.rec.runNow();
    assert.equal(h.reports.length, 3);
    await h.rec.stop();
  });

  it('re-checks a closed gate every quietMs and converges once it opens, without a trigger', async () => {
    const h = harness(many(2));
    h.state.synced = false;
    await h.rec.runNow();
    assert.deepEqual(h.clock.pendingDelays(), [5]);
    h.clock.advance(5);
    await h.rec.idle();
    assert.equal(h.reports.at(-1)?.skipped, 'not-synced');
    h.state.synced = true;
    await h.settle();
    assert.equal(h.sink.objects.size, 2);
    await h.rec.stop();
  });

  it('runs a periodic resync after start(), and nothing after stop()', async () => {
    const h = harness(many(1), { resyncMs: 1000 });
    h.rec.start();
    h.clock.advance(1005);
    await h.rec.idle();
    assert.equal(h.sink.objects.size, 1);
    await h.rec.stop();
    assert.equal(h.clock.pending(), 0);
    await h.rec.runNow();
    assert.equal(h.reports.length, 1, 'runNow after stop() does nothing');
  });

  it('repairs a filter deleted or edited by hand on the next run', async () => {
    const h = harness(many(2));
    await h.rec.runNow();
    h.sink.objects.delete('EnvoyFilter/istio-system/f0');
    const f1 = h.sink.objects.get('EnvoyFilter/istio-system/f1')!;
    h.sink.seed({ ...f1, spec: { configPatches: [] } });
    await h.rec.runNow();
    assert.deepEqual(
      h.sink.writes
        .slice(2)
        .map((w) => w.op)
        .sort(),
      ['create', 'update'],
    );
    await h.rec.stop();
  });

  it('logs warnings at warn level once, counts only errors as issues, and writes the output of a warned source', async () => {
    const lines: { level: string; message: string; issue: unknown }[] = [];
    const record =
      (level: string) =>
      (message: string, fields?: Record<string, unknown>): void => {
        lines.push({ level, message, issue: fields?.['issue'] });
      };
    const logger: Logger = {
      debug: () => {},
      info: () => {},
      warn: record('warn'),
      error: record('error'),
      child: () => logger,
    };
    const ref = { kind: 'ServiceEntry', namespace: 'ns', name: 's0' };
    const issues = [warning(ref, 'spec.addresses', 'no addresses'), issue(ref, 'spec.ports[1].name', 'bad')];
    const sink = new MemorySink();
    const rec = new Reconciler({
      sink,
      desired: () => ({ objects: many(1), issues, failedSources: new Set() }),
      isSynced: () => true,
      resyncMs: 0,
      clock: new ManualClock(0),
      logger,
    });
    const reports: RunReport[] = [];
    rec.onRun((r) => reports.push(r));
    await rec.runNow();
    await rec.runNow();
    assert.deepEqual(lines, [
      { level: 'warn', message: 'config warning', issue: 'ServiceEntry ns/s0: spec.addresses: no addresses' },
      { level: 'warn', message: 'config issue', issue: 'ServiceEntry ns/s0: spec.ports[1].name: bad' },
    ]);
    assert.deepEqual(
      reports.map((r) => r.issues),
      [1, 1],
    );
    assert.deepEqual(sink.writes, [{ op: 'create', key: 'EnvoyFilter/istio-system/f0' }]);
    await rec.stop();
  });
});
