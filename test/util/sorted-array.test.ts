import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SortedArray } from '../../src/util/sorted-array.ts';
import { random } from '../support/random-mesh.ts';

describe('SortedArray', () => {
  it('stays sorted and complete over random inserts and removals across many chunks', () => {
    const list = new SortedArray<number>((a, b) => a - b);
    const reference = new Set<number>();
    const next = random(7);
    for (let step = 0; step < 20000; step++) {
      const n = Math.floor(next() * 3000);
      if (next() < 0.6) {
        list.insert(n);
        reference.add(n);
      } else assert.equal(list.remove(n), reference.delete(n), `remove ${n} at step ${step}`);
    }
    const expected = [...reference].sort((a, b) => a - b);
    assert.ok(expected.length > 1000, 'the list spans several chunks');
    assert.equal(list.size, expected.length);
    assert.deepEqual(list.toArray(), expected);
    assert.deepEqual(list.view(), expected);
  });

  it('replaces an item that compares equal, and copies are not affected by later changes', () => {
    const list = new SortedArray<{ k: number; v: string }>((a, b) => a.k - b.k);
    list.insert({ k: 2, v: 'a' });
    list.insert({ k: 1, v: 'b' });
    const copy = list.toArray();
    list.insert({ k: 2, v: 'c' });
    assert.deepEqual(list.toArray(), [
      { k: 1, v: 'b' },
      { k: 2, v: 'c' },
    ]);
    assert.deepEqual(copy, [
      { k: 1, v: 'b' },
      { k: 2, v: 'a' },
    ]);
    assert.equal(list.remove({ k: 3, v: '' }), false);
  });
});
