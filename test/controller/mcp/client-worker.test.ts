// The MCP client with its receive worker against the fake istiod: a worker that dies or throws is replaced, counted,
// and the stream started afresh without losing what the store holds; stop() with a response in the worker ends it,
// and that response is neither applied nor answered.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { spawnReceiveWorker, type SpawnReceiveWorker } from '../../../src/controller/mcp/receiver.ts';
import { names, se, settled, trackedPairs, waitForStatus } from '../../fakes/istiod/harness.ts';

/** A worker that takes messages and does `onMessage` (eval'd plain JavaScript). */
function scripted(onMessage: string): Worker {
  return new Worker(`require('node:worker_threads').parentPort.on('message', (m) => { ${onMessage} });`, {
    eval: true,
  });
}

/** Spawns from `first` for the first worker, then real ones; every worker started is kept. */
function spawning(first?: () => Worker): { spawn: SpawnReceiveWorker; workers: Worker[] } {
  const workers: Worker[] = [];
  const spawn: SpawnReceiveWorker = (init) => {
    const w = workers.length === 0 && first ? first() : spawnReceiveWorker(init);
    workers.push(w);
    return w;
  };
  return { spawn, workers };
}

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !ok(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(ok(), what);
}

describe('MCP client receive worker', () => {
  const pair = trackedPairs();

  it('replaces a worker that dies, counts it, and resyncs on a new stream without spurious deletes', async () => {
    const { spawn, workers } = spawning();
    const p = await pair({ serve: 'v1' }, {}, (f) => f.set([se('a'), se('b')], { push: false }), {
      spawnReceiveWorker: spawn,
    });
    p.client.start();
    await p.client.whenSynced();
    await settled(p);
    p.events.length = 0;
    await workers[0]?.terminate();
    const down = await waitForStatus(p.client, (s) => s.receiveWorkerRestarts === 1, 'worker restarted');
    assert.equal(down.state, 'backoff');
    assert.equal(down.reconnects, 1);
    assert.equal(workers.length, 2, 'a new worker');
    p.fake.upsert(se('c'), { push: false });
    p.clock.advance(p.clock.pendingDelays()[0] ?? 0);
    await p.fake.waitFor(
      () => p.fake.requests.filter((r) => r.stream === 2 && r.kind === 'ack').length === 8,
      'resync on the new stream',
    );
    assert.deepEqual(names(p), ['shop/a', 'shop/b', 'shop/c']);
    assert.deepEqual(
      p.events.map((e) => `${e.type} ${e.name}`),
      ['added c'],
      'the new worker reads everything afresh; the store sees only what changed',
    );
  });

  it('replaces a worker that throws, and syncs through the new one', async () => {
    const { spawn, workers } = spawning(() => scripted("throw new Error('boom');"));
    const p = await pair({ serve: 'v1' }, {}, (f) => f.set([se('a')], { push: false }), {
      spawnReceiveWorker: spawn,
    });
    p.client.start();
    const down = await waitForStatus(p.client, (s) => s.receiveWorkerRestarts === 1, 'worker restarted');
    assert.equal(down.synced, false, 'nothing was applied from the failed worker');
    assert.match(down.lastError ?? '', /receive worker failed: boom/);
    p.clock.advance(p.clock.pendingDelays()[0] ?? 0);
    await p.client.whenSynced();
    assert.deepEqual(names(p), ['shop/a']);
    assert.equal(workers.length, 2);
  });

  it('stop() with a response in the worker: ends the worker; the response is neither applied nor answered', async () => {
    // A real worker (it owns the stream and reads istiod's answers) whose answers to the main thread are held
    // back: every response read stays in flight.
    let held = 0;
    const { spawn, workers } = spawning(() => {
      const w = spawnReceiveWorker(init);
      const on = w.on.bind(w);
      w.on = ((event: string, listener: (...args: unknown[]) => void) =>
        on(event, event === 'message' ? () => void held++ : listener)) as Worker['on'];
      return w;
    });
    let init!: Parameters<SpawnReceiveWorker>[0];
    const spawnHeld: SpawnReceiveWorker = (i) => ((init = i), spawn(i));
    const p = await pair({ serve: 'v1' }, {}, (f) => f.set([se('a')], { push: false }), {
      spawnReceiveWorker: spawnHeld,
    });
    let exited = false;
    p.client.start();
    workers[0]?.on('exit', () => (exited = true));
    await until('responses read in the worker', () => held >= 8);
    await p.client.stop();
    assert.ok(exited, 'the worker ended with stop()');
    const st = p.client.status();
    assert.equal(st.state, 'stopped');
    assert.equal(st.receiveWorkerRestarts, 0, 'an asked-for end is no failure');
    assert.equal(st.acksSent + st.nacksSent, 0);
    assert.equal(p.fake.filter('ack').length + p.fake.filter('nack').length, 0, 'nothing answered');
    assert.deepEqual(names(p), [], 'nothing applied');
  });
});
