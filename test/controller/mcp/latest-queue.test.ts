import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LatestQueue } from '../../../src/controller/mcp/latest-queue.ts';

function harness() {
  const handled: string[] = [];
  const superseded: string[] = [];
  const turns: (() => void)[] = [];
  const q = new LatestQueue<string>(
    (item) => handled.push(item),
    (key) => superseded.push(key),
    (run) => turns.push(run),
  );
  const turn = () => turns.splice(0).forEach((run) => run());
  return { q, handled, superseded, turns, turn };
}

describe('LatestQueue', () => {
  it('handles each item a turn later when nothing else waits', () => {
    const h = harness();
    h.q.push('a', 'a1');
    assert.deepEqual(h.handled, [], 'never inside push');
    h.turn();
    h.q.push('a', 'a2');
    h.turn();
    assert.deepEqual(h.handled, ['a1', 'a2']);
    assert.deepEqual(h.superseded, []);
  });

  it('a newer item of a waiting key supersedes the older; order is that of the latest pushes', () => {
    const h = harness();
    h.q.push('a', 'a1');
    h.q.push('b', 'b1');
    h.q.push('a', 'a2');
    h.q.push('c', 'c1');
    h.q.push('a', 'a3');
    assert.equal(h.turns.length, 1, 'one turn scheduled for the lot');
    h.turn();
    assert.deepEqual(h.handled, ['b1', 'c1', 'a3']);
    assert.deepEqual(h.superseded, ['a', 'a']);
  });

  it('clear drops what waits without counting it', () => {
    const h = harness();
    h.q.push('a', 'a1');
    h.q.clear();
    h.q.push('b', 'b1');
    h.turn();
    assert.deepEqual(h.handled, ['b1']);
    assert.deepEqual(h.superseded, []);
  });

  it('an item pushed while the waiting ones are handled waits for the next turn', () => {
    const handled: string[] = [];
    const turns: (() => void)[] = [];
    const q: LatestQueue<string> = new LatestQueue<string>(
      (item) => {
        handled.push(item);
        if (item === 'a1') q.push('a', 'a2');
      },
      () => assert.fail('nothing is superseded'),
      (run) => turns.push(run),
    );
    q.push('a', 'a1');
    turns.shift()?.();
    assert.deepEqual(handled, ['a1']);
    assert.equal(turns.length, 1);
    turns.shift()?.();
    assert.deepEqual(handled, ['a1', 'a2']);
  });
});
