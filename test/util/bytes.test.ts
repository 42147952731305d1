import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ownedCopies, ownedCopy } from '../../src/util/bytes.ts';

describe('owned copies of long-lived bytes', () => {
  it('copies into a block of its own, never a slice of the shared pool', () => {
    const pooled = Buffer.from([1, 2, 3]);
    assert.ok(pooled.buffer.byteLength > pooled.length, 'Buffer.from of a few bytes is a slice of the pool');
    const copy = ownedCopy(pooled);
    assert.deepEqual([...copy], [1, 2, 3]);
    assert.equal(copy.buffer.byteLength, 3);
    pooled[0] = 9;
    assert.equal(copy[0], 1, 'a copy, not a view');
  });

  it('puts several parts in one block, in order', () => {
    const [a, b] = ownedCopies(new Uint8Array([1, 2]), new Uint8Array([3, 4, 5]));
    assert.deepEqual([...a!], [1, 2]);
    assert.deepEqual([...b!], [3, 4, 5]);
    assert.equal(a!.buffer, b!.buffer);
    assert.equal(a!.buffer.byteLength, 5);
    assert.equal(ownedCopy(new Uint8Array()).length, 0);
  });
});
