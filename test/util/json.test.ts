import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sortedKeys } from '../../src/util/json.ts';

describe('sortedKeys', () => {
  it('answers as Object.keys(o).sort() for random objects of 0 to 40 keys', () => {
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const alphabet = ['a', 'B', 'z', '0', '9', '-', '_', '.', 'é', '\u{1F600}', ''];
    for (let round = 0; round < 2000; round++) {
      const o: Record<string, number> = {};
      const size = random(41);
      for (let i = 0; i < size; i++) {
        let key = '';
        const length = random(5);
        for (let c = 0; c < length; c++) key += alphabet[random(alphabet.length)];
        if (random(4) === 0) key = String(random(100)); // integer-like keys come first in Object.keys
        o[key] = i;
      }
      assert.deepEqual(sortedKeys(o), Object.keys(o).sort(), JSON.stringify(o));
    }
  });

  it('leaves out inherited keys', () => {
    const o = Object.create({ inherited: 1 }) as Record<string, number>;
    o['b'] = 1;
    o['a'] = 2;
    assert.deepEqual(sortedKeys(o), ['a', 'b']);
  });
});
