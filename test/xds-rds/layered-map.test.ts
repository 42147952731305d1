import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareStrings } from '../../src/model/order.ts';
import { LayeredMap } from '../../src/xds-rds/layered-map.ts';
import { random } from '../support/random-mesh.ts';

describe('LayeredMap', () => {
  it('equals a plain map in key order after random updates, across layers and flattenings', () => {
    const next = random(11);
    const key = () => `k${Math.floor(next() * 3000)}`;
    const reference = new Map<string, number>();
    for (let i = 0; i < 1000; i++) reference.set(key(), i);
    const sorted = (m: ReadonlyMap<string, number>) => [...m].sort(([a], [b]) => compareStrings(a, b));
    let map = LayeredMap.of(new Map(sorted(reference)));
    const versions: { map: LayeredMap<number>; entries: [string, number][] }[] = [];
    for (let step = 0; step < 400; step++) {
      const updates = new Map<string, number | undefined>();
      for (let u = 0; u < 1 + Math.floor(next() * 5); u++)
        updates.set(key(), next() < 0.3 ? undefined : step);
      for (const [k, v] of updates) {
        if (v === undefined) reference.delete(k);
        else reference.set(k, v);
      }
      map = map.with(updates);
      const k = key();
      assert.equal(map.get(k), reference.get(k), `get ${k} at step ${step}`);
      assert.equal(map.size, reference.size, `size at step ${step}`);
      if (step % 50 === 0) versions.push({ map, entries: sorted(reference) });
    }
    assert.deepEqual([...map], sorted(reference));
    assert.deepEqual([...map.keys()], [...sorted(reference).map(([k]) => k)]);
    // Earlier maps are unchanged by later updates.
    for (const v of versions) assert.deepEqual([...v.map.entries()], v.entries);
  });
});
