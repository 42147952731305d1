import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  LeaderElector,
  type LeaseClient,
  type LeaseRecord,
  type ObservedLease,
} from '../../src/leader/leader-election.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { ManualClock } from '../../src/util/clock.ts';

/** A Lease held in memory with resourceVersion preconditions, as the API server enforces them. */
class MemoryLease implements LeaseClient {
  current: ObservedLease | undefined;
  private rv = 0;
  failing = false;
  /** Every request from now on never answers. */
  hanging = false;
  get(): Promise<ObservedLease | undefined> {
    if (this.hanging) return new Promise(() => {});
    if (this.failing) return Promise.reject(new Error('down'));
    return Promise.resolve(this.current);
  }
  create(record: LeaseRecord): Promise<void> {
    if (this.failing) return Promise.reject(new Error('down'));
    if (this.current) return Promise.reject(new Error('409 AlreadyExists'));
    this.current = { record, resourceVersion: String(++this.rv) };
    return Promise.resolve();
  }
  update(record: LeaseRecord, resourceVersion: string): Promise<void> {
    if (this.failing) return Promise.reject(new Error('down'));
    if (this.current?.resourceVersion !== resourceVersion) return Promise.reject(new Error('409 Conflict'));
    this.current = { record, resourceVersion: String(++this.rv) };
    return Promise.resolve();
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

async function step(clock: ManualClock, ms: number, by = 100): Promise<void> {
  for (let t = 0; t < ms; t += by) {
    clock.advance(by);
    await settle();
  }
}

function elector(id: string, lease: LeaseClient, clock: ManualClock, events: string[] = []): LeaderElector {
  return new LeaderElector({
    client: lease,
    identity: id,
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 2_000,
    clock,
    logger: silentLogger,
    onStartedLeading: () => events.push(`${id}+`),
    onStoppedLeading: () => events.push(`${id}-`),
  });
}

describe('LeaderElector', () => {
  it('elects exactly one leader; the other takes over within a lease duration after a crash', async () => {
    const clock = new ManualClock(1_000_000);
    const lease = new MemoryLease();
    const events: string[] = [];
    const a = elector('a', lease, clock, events);
    const b = elector('b', lease, clock, events);
    a.start();
    await settle();
    b.start();
    await step(clock, 10_000);
    assert.equal(a.isLeader(), true);
    assert.equal(b.isLeader(), false);
    assert.equal(lease.current?.record.holderIdentity, 'a');
    // a "crashes": it stops renewing without releasing (its timers are simply never run again).
    (a as unknown as { running: boolean }).running = false;
    let tookOver = -1;
    for (let t = 0; t <= 20_000; t += 100) {
      await step(clock, 100);
      if (b.isLeader() && tookOver < 0) tookOver = t;
      // Never two leaders at the same instant.
      assert.ok(!(a.isLeader() && b.isLeader()), `two leaders at +${t}ms`);
    }
    assert.ok(tookOver > 0 && tookOver <= 15_000 + 2_000 + 100, `took over after ${tookOver} ms`);
    assert.equal(lease.current?.record.holderIdentity, 'b');
    assert.equal(lease.current?.record.leaseTransitions, 1);
    assert.deepEqual(events, ['a+', 'a-', 'b+']);
    await b.stop();
  });

  it('a leader that cannot renew stops leading at its renew deadline, before the lease expires', async () => {
    const clock = new ManualClock(0);
    const lease = new MemoryLease();
    const a = elector('a', lease, clock);
    a.start();
    await settle();
    assert.equal(a.isLeader(), true);
    lease.failing = true;
    await step(clock, 9_900);
    assert.equal(a.isLeader(), true);
    await step(clock, 200);
    assert.equal(a.isLeader(), false);
    await a.stop();
  });

  it('fires onStoppedLeading at the renew deadline by itself while a renewal hangs; stop() does not hang', async () => {
    const clock = new ManualClock(0);
    const lease = new MemoryLease();
    const events: string[] = [];
    const a = elector('a', lease, clock, events);
    const seen: string[] = [];
    a.start({ onStartedLeading: () => seen.push('+'), onStoppedLeading: () => seen.push('-') });
    await settle();
    assert.deepEqual(events, ['a+']);
    lease.hanging = true;
    clock.advance(9_999); // the renewal at 2 s never answers: no tick runs again
    await settle();
    assert.deepEqual(events, ['a+']);
    clock.advance(1);
    assert.deepEqual(events, ['a+', 'a-'], 'at the deadline, synchronously in the timer');
    assert.deepEqual(seen, ['+', '-'], 'the callbacks given to start() too');
    let stopped = false;
    const stopping = a.stop().then(() => (stopped = true));
    for (let i = 0; i < 20 && !stopped; i++) {
      await settle();
      clock.advance(1_000);
    }
    await stopping;
  });

  it('stop() releases the lease so a follower takes over at its next retry', async () => {
    const clock = new ManualClock(0);
    const lease = new MemoryLease();
    const a = elector('a', lease, clock);
    const b = elector('b', lease, clock);
    a.start();
    await settle();
    b.start();
    await step(clock, 4_000);
    await a.stop();
    assert.equal(lease.current?.record.holderIdentity, '');
    await step(clock, 2_100);
    assert.equal(b.isLeader(), true);
    await b.stop();
  });

  it('rejects a renew deadline that is not shorter than the lease', () => {
    assert.throws(
      () =>
        new LeaderElector({
          client: new MemoryLease(),
          identity: 'x',
          leaseDurationMs: 10,
          renewDeadlineMs: 10,
          logger: silentLogger,
        }),
    );
  });
});
