import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../src/util/clock.ts';
import { TokenBucket } from '../../src/util/rate-limit.ts';

/** Lets resolved promises run their continuations. */
const flush = () => new Promise<void>((r) => setImmediate(r));

describe('TokenBucket', () => {
  it('lets a burst through at once, then one request per 1/qps seconds, in call order', async () => {
    const clock = new ManualClock(0);
    const bucket = new TokenBucket({ qps: 10, burst: 3, clock });
    const done: number[] = [];
    for (let i = 0; i < 6; i++) void bucket.take().then(() => done.push(i));
    await flush();
    assert.deepEqual(done, [0, 1, 2], 'the burst');
    clock.advance(99);
    await flush();
    assert.deepEqual(done, [0, 1, 2], 'no token before 100 ms');
    clock.advance(1);
    await flush();
    assert.deepEqual(done, [0, 1, 2, 3]);
    clock.advance(200);
    await flush();
    assert.deepEqual(done, [0, 1, 2, 3, 4, 5]);
    assert.equal(clock.pending(), 0, 'no timer left once every waiter is served');
  });

  it('refills up to the burst while idle, never above it', async () => {
    const clock = new ManualClock(0);
    const bucket = new TokenBucket({ qps: 2, burst: 2, clock });
    await bucket.take();
    await bucket.take();
    assert.ok(bucket.available() < 1);
    clock.advance(60_000);
    assert.equal(bucket.available(), 2);
  });

  it('a request made after a refill waits for its own token', async () => {
    const clock = new ManualClock(0);
    const bucket = new TokenBucket({ qps: 1, burst: 1, clock });
    const done: string[] = [];
    void bucket.take().then(() => done.push('a'));
    void bucket.take().then(() => done.push('b'));
    await flush();
    clock.advance(1000);
    void bucket.take().then(() => done.push('c'));
    await flush();
    assert.deepEqual(done, ['a', 'b']);
    clock.advance(1000);
    await flush();
    assert.deepEqual(done, ['a', 'b', 'c']);
  });

  it('refuses a rate of 0 or a burst below 1', () => {
    const clock = new ManualClock(0);
    assert.throws(() => new TokenBucket({ qps: 0, burst: 1, clock }), /qps must be > 0/);
    assert.throws(() => new TokenBucket({ qps: 1, burst: 0, clock }), /burst >= 1/);
  });
});
