import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { createDebouncer } from '../../src/kit/debounce.ts';
import { keepAliveClock, ManualClock, type Clock } from '../../src/util/clock.ts';

describe('createDebouncer (lodash.debounce with maxWait, on a Clock)', () => {
  it('coalesces a burst into one call, never calling inside trigger()', () => {
    let calls = 0;
    const d = createDebouncer(() => calls++, { quietMs: 10_000, maxWaitMs: 20_000, clock: keepAliveClock });
    for (let i = 0; i < 50; i++) d.trigger();
    assert.equal(calls, 0);
    d.flush();
    assert.equal(calls, 1);
    d.flush();
    assert.equal(calls, 1, 'nothing pending after a flush');
    d.trigger();
    d.cancel();
    d.flush();
    assert.equal(calls, 1, 'a cancelled call never runs');
  });

  it('flush leaves no timer armed (a pending timer would keep the process alive)', () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    let calls = 0;
    const d = createDebouncer(() => calls++, { quietMs: 60_000, maxWaitMs: 120_000, clock: keepAliveClock });
    d.trigger();
    assert.equal(timers(), before + 1);
    d.flush();
    assert.equal(calls, 1);
    assert.equal(timers(), before, 'the debounce timer is cleared by flush');
  });

  it('fires after maxWait even while triggers keep coming', async () => {
    let calls = 0;
    let twice!: () => void;
    const calledTwice = new Promise<void>((resolve) => (twice = resolve));
    const d = createDebouncer(
      () => {
        if (++calls === 2) twice();
      },
      { quietMs: 50, maxWaitMs: 100, clock: keepAliveClock },
    );
    const timer = setInterval(() => d.trigger(), 5);
    try {
      await calledTwice; // two calls during a continuous stream of triggers (the test times out otherwise)
    } finally {
      clearInterval(timer);
      d.cancel();
    }
  });

  it('runs on the manual clock: quiet period after the last trigger, max wait from the first of a burst', () => {
    const clock = new ManualClock(0);
    const calls: number[] = [];
    const d = createDebouncer(() => calls.push(clock.now()), { quietMs: 100, maxWaitMs: 250, clock });
    d.trigger();
    clock.advance(99);
    assert.deepEqual(calls, []);
    assert.equal(d.pending, true);
    clock.advance(1);
    assert.deepEqual(calls, [100], 'a quiet period after the only trigger');
    assert.equal(d.pending, false);
    assert.equal(clock.pending(), 0, 'no timer left once the call ran');
    // A burst of triggers every 50 ms: the call comes at the max wait, counted from the burst's first trigger.
    for (let i = 0; i < 8; i++) {
      d.trigger();
      clock.advance(50);
    }
    assert.deepEqual(calls, [100, 350]);
    clock.advance(100);
    assert.deepEqual(
      calls,
      [100, 350, 550],
      'the next burst (400 and 450 ms) ends a quiet period after its last',
    );
  });

  it('a new burst right after a call at the max wait counts its max wait from its own first trigger', () => {
    const clock = new ManualClock(0);
    const calls: number[] = [];
    const d = createDebouncer(() => calls.push(clock.now()), { quietMs: 100, maxWaitMs: 200, clock });
    for (let t = 0; t < 200; t += 60) {
      d.trigger();
      clock.advance(60);
    }
    assert.deepEqual(calls, [200]);
    clock.advance(10); // 250: the last trigger was at 180
    d.trigger();
    clock.advance(90);
    d.trigger();
    clock.advance(90);
    d.trigger();
    clock.advance(70); // 500: the burst began at 250, its last trigger was at 430
    assert.deepEqual(calls, [200, 450]);
  });

  it('never calls inside trigger(), even when its timer is late past the max wait', () => {
    const manual = new ManualClock(0);
    let now = 0;
    // The time moves on while the timers wait (a busy event loop): now() runs ahead of the manual timers.
    const clock: Clock = {
      now: () => now,
      setTimeout: (fn, ms) => manual.setTimeout(fn, ms),
      clearTimeout: (h) => manual.clearTimeout(h),
    };
    let calls = 0;
    const d = createDebouncer(() => calls++, { quietMs: 100, maxWaitMs: 200, clock });
    d.trigger();
    now = 300;
    d.trigger();
    assert.equal(calls, 0, 'not inside trigger()');
    manual.runAll();
    assert.equal(calls, 1, 'once, on a timer');
    assert.equal(d.pending, false);
  });

  it('cancel drops the pending call and its timers; flush runs it now', () => {
    const clock = new ManualClock(0);
    let calls = 0;
    const d = createDebouncer(() => calls++, { quietMs: 100, maxWaitMs: 1000, clock });
    d.trigger();
    d.cancel();
    assert.equal(clock.pending(), 0);
    clock.advance(2000);
    assert.equal(calls, 0);
    d.trigger();
    d.flush();
    assert.equal(calls, 1);
    assert.equal(clock.pending(), 0);
  });
  it('lodash reads the time from the clock only: no global Date.now, setTimeout or clearTimeout is called', () => {
    // Real time stands still here (the test is synchronous) and is far from the clock's: a debounce reading any
    // other time than the clock's would not fire on clock.advance(), or would arm a timer the clock never fires.
    const spies = [
      mock.method(Date, 'now'),
      mock.method(globalThis, 'setTimeout'),
      mock.method(globalThis, 'clearTimeout'),
    ];
    try {
      const clock = new ManualClock(0);
      const calls: number[] = [];
      const d = createDebouncer(() => calls.push(clock.now()), { quietMs: 100, maxWaitMs: 300, clock });
      d.trigger();
      assert.equal(clock.pending(), 1, 'the timer is armed on the clock');
      clock.advance(99);
      assert.deepEqual(calls, []);
      clock.advance(1);
      assert.deepEqual(calls, [100], 'fires on clock time, with no real time passing');
      for (let i = 0; i < 10; i++) {
        d.trigger();
        clock.advance(50);
      }
      assert.deepEqual(calls, [100, 400], 'the max wait is counted on the clock too');
      d.trigger();
      d.cancel();
      assert.equal(clock.pending(), 0, 'cancel clears the timer on the clock');
      assert.deepEqual(
        spies.map((s) => s.mock.callCount()),
        [0, 0, 0],
        'no global Date.now, setTimeout or clearTimeout was called',
      );
    } finally {
      for (const s of spies) s.mock.restore();
    }
  });

  it('the clock is set for lodash only: the debounced function and the clock see the global time names unchanged', () => {
    const globals = () => [Date.now, globalThis.setTimeout, globalThis.clearTimeout];
    const before = globals();
    const manual = new ManualClock(0);
    const seen: unknown[][] = [];
    // A clock that reads the global time names itself (as systemClock does) must not read lodash's.
    const clock: Clock = {
      now: () => {
        seen.push(globals());
        return manual.now();
      },
      setTimeout: (fn, ms) => {
        seen.push(globals());
        return manual.setTimeout(fn, ms);
      },
      clearTimeout: (h) => {
        seen.push(globals());
        manual.clearTimeout(h);
      },
    };
    let calls = 0;
    const d = createDebouncer(
      () => {
        seen.push(globals());
        if (++calls === 1) throw new Error('boom');
      },
      { quietMs: 100, maxWaitMs: 100, clock },
    );
    d.trigger();
    assert.deepEqual(globals(), before);
    assert.throws(() => manual.advance(100), /boom/);
    assert.deepEqual(globals(), before, 'restored when the debounced function throws');
    d.trigger();
    d.cancel();
    d.trigger();
    manual.advance(100);
    assert.equal(calls, 2);
    assert.ok(seen.length > 5);
    for (const names of seen) assert.deepEqual(names, before);
    assert.deepEqual(globals(), before);
  });
});
