import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createDebouncer } from '../../src/kit/debounce.ts';

describe('createDebouncer (lodash.debounce with maxWait)', () => {
  it('coalesces a burst into one call, never calling inside trigger()', () => {
    let calls = 0;
    const d = createDebouncer(() => calls++, { quietMs: 10_000, maxWaitMs: 20_000 });
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
    const d = createDebouncer(() => calls++, { quietMs: 60_000, maxWaitMs: 120_000 });
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
      { quietMs: 50, maxWaitMs: 100 },
    );
    const timer = setInterval(() => d.trigger(), 5);
    try {
      await calledTwice; // two calls during a continuous stream of triggers (the test times out otherwise)
    } finally {
      clearInterval(timer);
      d.cancel();
    }
  });
});
