import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ControllerLoop } from '../../src/kit/controller-loop.ts';
import { leaderLoopPart, Runtime, type RuntimePart } from '../../src/kit/runtime.ts';
import { LeaderElector, type LeaseClient } from '../../src/leader/leader-election.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { FakeElector } from '../support/fake-elector.ts';
import { recordingLogger } from '../support/recording-logger.ts';

/** A part recording its steps in `events`; `failStart` makes its start throw. */
function part(
  name: string,
  events: string[],
  o: { leader?: boolean; failStart?: boolean } = {},
): RuntimePart {
  return {
    name,
    needLeader: o.leader ?? false,
    start: async () => {
      await Promise.resolve();
      events.push(`start ${name}`);
      if (o.failStart) throw new Error(`start ${name} failed`);
    },
    drain: () => void events.push(`drain ${name}`),
    stop: () => void events.push(`stop ${name}`),
  };
}

/** A runtime with a FakeElector, recording the parts' steps, the elector's and the leadership callback. */
function harness() {
  const events: string[] = [];
  const elector = new FakeElector(events);
  const runtime = new Runtime({
    logger: recordingLogger(),
    elector,
    onLeadership: (leading) => events.push(leading ? 'leading' : 'not leading'),
  });
  return { events, elector, runtime };
}

describe('Runtime', () => {
  it('every-replica parts start with the process; leader parts only on election', async () => {
    const { events, elector, runtime } = harness();
    await runtime.startGroups([
      [part('rds', events)],
      [part('watch', events), part('writer', events, { leader: true })],
      [part('sources', events)],
    ]);
    assert.deepEqual(runtime.started(), ['rds', 'watch', 'sources']);
    assert.deepEqual(runtime.leading(), []);
    assert.deepEqual(events, ['start rds', 'start watch', 'start', 'start sources']);
    events.length = 0;
    elector.elect();
    await runtime.settled();
    assert.deepEqual(events, ['elected', 'leading', 'start writer']);
    assert.deepEqual(runtime.leading(), ['writer']);
    await runtime.stop();
  });

  it('without an elector every replica leads: leader parts start with their group, after its other parts', async () => {
    const events: string[] = [];
    const runtime = new Runtime({ logger: silentLogger });
    await runtime.start(part('writer', events, { leader: true }), part('watch', events));
    assert.deepEqual(events, ['start watch', 'start writer']);
    assert.equal(runtime.isLeader(), true);
    await runtime.stop();
    assert.deepEqual(events.slice(2), ['drain writer', 'stop writer', 'drain watch', 'stop watch']);
  });

  it('on loss the leader parts are drained before anything else, in reverse, then stopped; the rest runs on', async () => {
    const { events, elector, runtime } = harness();
    await runtime.start(
      part('watch', events),
      part('a', events, { leader: true }),
      part('b', events, { leader: true }),
    );
    elector.elect();
    await runtime.settled();
    events.length = 0;
    elector.lose();
    assert.deepEqual(events, ['lost', 'drain b', 'drain a', 'not leading'], 'drained within the callback');
    await runtime.settled();
    assert.deepEqual(events.slice(4), ['stop b', 'stop a']);
    assert.deepEqual(runtime.leading(), []);
    assert.deepEqual(runtime.started(), ['watch'], 'every-replica parts are unaffected');
    await runtime.stop();
  });

  it('starts the leader parts again on re-election', async () => {
    const { events, elector, runtime } = harness();
    await runtime.start(part('a', events, { leader: true }), part('b', events, { leader: true }));
    elector.elect();
    await runtime.settled();
    elector.lose();
    elector.elect(); // transitions are serialised: the second term starts once the first stopped
    await runtime.settled();
    assert.deepEqual(runtime.leading(), ['a', 'b']);
    assert.deepEqual(
      events.filter((e) => /^(start|drain|stop) [ab]$/.test(e)),
      ['start a', 'start b', 'drain b', 'drain a', 'stop b', 'stop a', 'start a', 'start b'],
    );
    await runtime.stop();
  });

  it('a leader part failing to start on election: its term is undone, the lease released, no more competing', async () => {
    const { events, elector, runtime } = harness();
    await runtime.start(
      part('watch', events),
      part('a', events, { leader: true }),
      part('b', events, { leader: true, failStart: true }),
      part('c', events, { leader: true }),
    );
    events.length = 0;
    elector.elect();
    await runtime.settled();
    await Promise.resolve(); // the failure handler runs after the term settled
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(events, [
      'elected',
      'leading',
      'start a',
      'start b',
      'drain a',
      'stop a',
      'not leading',
      'stop',
      'lost',
    ]);
    assert.deepEqual(runtime.leading(), []);
    assert.deepEqual(runtime.started(), ['watch'], 'the replica keeps serving');
    await runtime.stop();
  });

  it('without an elector a failing leader part fails the start and stops what started', async () => {
    const events: string[] = [];
    const runtime = new Runtime({ logger: silentLogger });
    await runtime.start(part('rds', events));
    await assert.rejects(
      runtime.start(
        part('a', events, { leader: true }),
        part('b', events, { leader: true, failStart: true }),
      ),
      /start b failed/,
    );
    assert.deepEqual(events, [
      'start rds',
      'start a',
      'start b',
      'drain a',
      'stop a',
      'drain rds',
      'stop rds',
    ]);
  });

  it('stop: the leader parts first, then the lease is released, then the rest drained and stopped in reverse', async () => {
    const { events, elector, runtime } = harness();
    await runtime.startGroups([
      [part('rds', events)],
      [part('watch', events), part('writer', events, { leader: true })],
    ]);
    elector.elect();
    await runtime.settled();
    events.length = 0;
    await runtime.stop();
    assert.deepEqual(events, [
      'drain writer',
      'stop writer',
      'not leading',
      'stop',
      'lost',
      'drain watch',
      'drain rds',
      'stop watch',
      'stop rds',
    ]);
    await assert.rejects(runtime.start(part('late', events)), /stopping/);
  });

  it('a write sequence interrupted by loss: the loop writes nothing after the loss', async () => {
    const { elector, runtime } = harness();
    const clock = new ManualClock(0);
    const written: number[] = [];
    let release: () => void = () => {};
    const loop: ControllerLoop<number> = new ControllerLoop<number>({
      run: async () => {
        for (let i = 0; i < 5; i++) {
          if (!loop.mayWrite()) break;
          written.push(i);
          await new Promise<void>((r) => (release = r)); // the write is in flight
        }
        return written.length;
      },
      failed: () => -1,
      skipped: () => 0,
      classify: () => 'ok',
      quietMs: 10,
      maxWaitMs: 10,
      pollMs: 10,
      resyncMs: 0,
      retry: { initialMs: 10, maxMs: 10 },
      clock,
      logger: silentLogger,
    });
    await runtime.start(leaderLoopPart('writer', { start: () => loop.start(), stop: () => loop.stop() }));
    elector.elect();
    await runtime.settled();
    const run = loop.runNow();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(written, [0]);
    elector.lose();
    assert.equal(loop.mayWrite(), false, 'the gate closed within the loss callback');
    release();
    await run;
    await runtime.settled();
    assert.deepEqual(written, [0], 'nothing written after the loss');
    await runtime.stop();
  });

  it('with a LeaderElector whose lease requests hang, the writes stop at the renew deadline', async () => {
    const clock = new ManualClock(0);
    let hang = false;
    const never = new Promise<never>(() => {});
    let current: Awaited<ReturnType<LeaseClient['get']>>;
    const client: LeaseClient = {
      get: () => (hang ? never : Promise.resolve(current)),
      create: (record) => {
        current = { record, resourceVersion: '1' };
        return hang ? never : Promise.resolve();
      },
      update: (record) => {
        current = { record, resourceVersion: '2' };
        return hang ? never : Promise.resolve();
      },
    };
    const elector = new LeaderElector({
      client,
      identity: 'a',
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      clock,
      logger: silentLogger,
    });
    const loop = new ControllerLoop<number>({
      run: () => Promise.resolve(0),
      failed: () => -1,
      skipped: () => 0,
      classify: () => 'ok',
      quietMs: 10,
      maxWaitMs: 10,
      pollMs: 10,
      resyncMs: 0,
      retry: { initialMs: 10, maxMs: 10 },
      clock,
      logger: silentLogger,
    });
    const runtime = new Runtime({ logger: silentLogger, elector });
    await runtime.start(leaderLoopPart('writer', loop));
    await runtime.settled();
    await new Promise((r) => setImmediate(r));
    assert.equal(loop.mayWrite(), true, 'elected');
    hang = true;
    clock.advance(2_000); // the renewal hangs
    clock.advance(7_999);
    assert.equal(loop.mayWrite(), true, 'before the deadline');
    clock.advance(1);
    assert.equal(loop.mayWrite(), false, 'stopped at the renew deadline, by the clock alone');
    assert.equal(runtime.isLeader(), false);
    // The stop waits for the hanging request at most a renew deadline.
    let done = false;
    const stopped = runtime.stop().then(() => (done = true));
    for (let i = 0; i < 20 && !done; i++) {
      await new Promise((r) => setImmediate(r));
      clock.advance(1_000);
    }
    await stopped;
  });
});
