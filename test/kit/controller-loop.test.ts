// The controller loop on the manual clock: debounce, serialised runs, outcomes, resync, gates, stop, idle.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../src/util/clock.ts';
import {
  ControllerLoop,
  type AfterRun,
  type ControllerLoopOptions,
  type RunOutcome,
} from '../../src/kit/controller-loop.ts';
import { silentLogger } from '../../src/util/logger.ts';

interface Result {
  readonly n: number;
  readonly outcome: RunOutcome;
  readonly skipped?: string;
}

/** A run that waits for the test to release it (`release()`), or finishes at once when `auto` is set. */
function harness(o: Partial<ControllerLoopOptions<Result>> = {}) {
  const clock = new ManualClock(0);
  const state = { outcome: 'ok' as RunOutcome, synced: true, auto: true, runs: 0, active: 0 };
  const releases: (() => void)[] = [];
  const seen: { result: Result; after: AfterRun }[] = [];
  const loop = new ControllerLoop<Result>({
    run: async () => {
      const n = ++state.runs;
      state.active++;
      assert.equal(state.active, 1, 'runs never overlap');
      if (!state.auto) await new Promise<void>((r) => releases.push(r));
      await Promise.resolve();
      state.active--;
      return { n, outcome: state.outcome };
    },
    failed: () => ({ n: -1, outcome: 'transient' }),
    skipped: (gate) => ({ n: 0, outcome: 'retry-soon', skipped: gate }),
    classify: (r) => r.outcome,
    isSynced: () => state.synced,
    quietMs: 100,
    maxWaitMs: 1000,
    pollMs: 50,
    resyncMs: 0,
    retry: { initialMs: 10, maxMs: 40, multiplier: 2, jitter: 0 },
    clock,
    logger: silentLogger,
    ...o,
  });
  loop.onRun((result, after) => seen.push({ result, after }));
  const release = async () => {
    releases.shift()?.();
    await loop.idle();
  };
  return { clock, state, loop, seen, release };
}

describe('ControllerLoop', () => {
  it('debounces: one run a quiet period after the last request, none inside trigger()', async () => {
    const h = harness();
    h.loop.trigger();
    h.clock.advance(60);
    h.loop.trigger();
    assert.equal(h.state.runs, 0);
    h.clock.advance(99);
    assert.equal(h.state.runs, 0, 'the quiet period restarts with each request');
    h.clock.advance(1);
    await h.loop.idle();
    assert.equal(h.state.runs, 1);
    assert.equal(h.clock.pending(), 0);
  });

  it('runs at the latest maxWait after the first request of a continuous burst', async () => {
    const h = harness();
    for (let t = 0; t < 1000; t += 50) {
      h.loop.trigger();
      h.clock.advance(50);
    }
    await h.loop.idle();
    assert.equal(h.state.runs, 1);
    assert.equal(h.clock.now(), 1000);
  });

  it('serialises runs: requests during a run cause exactly one more run', async () => {
    const h = harness();
    h.state.auto = false;
    const first = h.loop.runNow();
    assert.equal(h.state.runs, 1, 'runNow starts at once when idle');
    const second = h.loop.runNow();
    const third = h.loop.runNow();
    h.loop.trigger();
    h.clock.advance(100);
    assert.equal(h.state.runs, 1);
    h.state.auto = true;
    await h.release();
    assert.equal(h.state.runs, 2);
    assert.deepEqual(
      (await Promise.all([first, second, third])).map((r) => r.n),
      [1, 2, 2],
    );
  });

  it('retries transient outcomes with the capped backoff and resets it after a success', async () => {
    const h = harness();
    h.state.outcome = 'transient';
    await h.loop.runNow();
    for (let i = 0; i < 3; i++) {
      h.clock.runAll();
      await h.loop.idle();
    }
    assert.deepEqual(
      h.seen.map((s) => s.after.nextInMs),
      [10, 20, 40, 40],
    );
    h.state.outcome = 'ok';
    h.clock.runAll();
    await h.loop.idle();
    assert.deepEqual(h.seen.at(-1)?.after, { outcome: 'ok' });
    assert.equal(h.clock.pending(), 0);
    h.state.outcome = 'transient';
    await h.loop.runNow();
    assert.equal(h.seen.at(-1)?.after.nextInMs, 10, 'the backoff starts again from its first delay');
  });

  it('waits for the next request after a terminal outcome', async () => {
    const h = harness();
    h.state.outcome = 'transient';
    await h.loop.runNow();
    h.state.outcome = 'terminal';
    h.clock.runAll();
    await h.loop.idle();
    assert.equal(h.state.runs, 2);
    assert.equal(h.clock.pending(), 0, 'no retry');
    h.state.outcome = 'transient';
    await h.loop.runNow();
    assert.equal(h.seen.at(-1)?.after.nextInMs, 20, 'a terminal outcome does not reset the backoff');
  });

  it('skips runs while not synced, re-checking every pollMs', async () => {
    const h = harness();
    h.state.synced = false;
    await h.loop.runNow();
    h.clock.advance(50);
    await h.loop.idle();
    h.state.synced = true;
    h.clock.advance(49);
    await h.loop.idle();
    assert.equal(h.state.runs, 0);
    h.clock.advance(1);
    await h.loop.idle();
    assert.deepEqual(
      h.seen.map((s) => [s.result.skipped, s.after.nextInMs]),
      [
        ['not-synced', 50],
        ['not-synced', 50],
        [undefined, undefined],
      ],
    );
    assert.equal(h.state.runs, 1);
  });

  it('mayWrite turns false synchronously on stop, and true again on start', async () => {
    const h = harness();
    assert.equal(h.loop.mayWrite(), true);
    const stopped = h.loop.stop();
    assert.equal(h.loop.mayWrite(), false, 'before the stop resolves');
    await stopped;
    assert.equal(h.loop.mayWrite(), false);
    h.loop.start();
    assert.equal(h.loop.mayWrite(), true);
    await h.loop.stop();
  });

  it('a rejected run becomes the failed result', async () => {
    const h = harness({ run: () => Promise.reject(new Error('bug')) });
    const r = await h.loop.runNow();
    assert.equal(r.n, -1);
    assert.equal(h.seen[0]?.after.outcome, 'transient');
  });

  it('resyncs periodically after start() through the debounce', async () => {
    const h = harness({ resyncMs: 1000 });
    h.loop.start();
    h.clock.advance(1000);
    assert.equal(h.state.runs, 0);
    h.clock.advance(100);
    await h.loop.idle();
    h.clock.advance(1000);
    await h.loop.idle();
    assert.equal(h.state.runs, 2);
  });

  it('stop() cancels every timer, ignores requests and waits for the run in progress', async () => {
    const h = harness({ resyncMs: 1000 });
    h.loop.start();
    h.state.auto = false;
    h.state.outcome = 'transient';
    void h.loop.runNow();
    h.loop.trigger();
    let stopped = false;
    const stopping = h.loop.stop().then(() => (stopped = true));
    await Promise.resolve();
    assert.equal(stopped, false, 'waits for the run');
    await h.release();
    await stopping;
    assert.equal(h.clock.pending(), 0, 'no debounce, retry or resync timer left');
    h.loop.trigger();
    assert.equal(h.clock.pending(), 0);
    assert.equal(h.state.runs, 1);
  });

  it('a throwing listener is reported and the other listeners still run', async () => {
    const errors: string[] = [];
    const logger = { ...silentLogger, error: (m: string) => errors.push(m) };
    const h = harness({ logger });
    h.loop.onRun(() => {
      throw new Error('listener');
    });
    let after = 0;
    const off = h.loop.onRun(() => after++);
    await h.loop.runNow();
    off();
    await h.loop.runNow();
    assert.deepEqual(errors, ['run listener threw', 'run listener threw']);
    assert.equal(after, 1);
    assert.equal(h.seen.length, 2);
  });

  it('idle() resolves at once when nothing is requested, and waits for a pending debounce', async () => {
    const h = harness();
    await h.loop.idle();
    h.loop.trigger();
    let done = false;
    const idle = h.loop.idle().then(() => (done = true));
    await Promise.resolve();
    assert.equal(done, false);
    h.clock.advance(100);
    await idle;
    assert.equal(h.state.runs, 1);
  });
});
