// Slicer: a pass yields only once its slice has run its time, stops at a yield when its owner stopped, and gives
// the same result driven in slices as in one stretch; sortByKey in slices keeps the stable order of one sort.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { diffObjects, sortByKey, sortByKeySteps } from '../../src/kit/diff.ts';
import { Slicer, SlicesStopped, runToEnd } from '../../src/util/slices.ts';

/** A pass over `n` items that pauses after each and returns their sum. */
function* sum(n: number, seen: number[]): Generator<void, number, undefined> {
  let total = 0;
  for (let i = 0; i < n; i++) {
    total += i;
    seen.push(i);
    yield;
  }
  return total;
}

/** A slicer on a fake clock that moves `step` ms per read, counting its yields. */
function fake(o: { sliceMs?: number; step?: number; stopped?: () => boolean; onYield?: () => void } = {}) {
  let t = 0;
  const log: number[] = [];
  const slicer = new Slicer({
    sliceMs: o.sliceMs ?? 20,
    now: () => (t += o.step ?? 1),
    yieldNow: () => {
      log.push(t);
      o.onYield?.();
      return Promise.resolve();
    },
    ...(o.stopped ? { stopped: o.stopped } : {}),
  });
  return { slicer, log };
}

describe('Slicer', () => {
  it('yields once a slice has run sliceMs, and not before', async () => {
    const { slicer, log } = fake({ sliceMs: 20, step: 1 });
    const seen: number[] = [];
    assert.equal(await slicer.run(sum(100, seen)), 4950);
    assert.equal(seen.length, 100);
    assert.ok(slicer.yields >= 3 && slicer.yields <= 6, `${slicer.yields} yields`);
    for (let i = 1; i < log.length; i++) assert.ok(log[i]! - log[i - 1]! >= 20, 'each slice ran its time');
    assert.ok(slicer.longestMs >= 20);

    const quick = fake({ sliceMs: 1000, step: 1 });
    await quick.slicer.run(sum(100, []));
    assert.equal(quick.slicer.yields, 0, 'a short pass never yields');
  });

  it('gives the same result in slices as in one stretch', async () => {
    assert.equal(await fake().slicer.run(sum(500, [])), runToEnd(sum(500, [])));
  });

  it('rejects with SlicesStopped at the first yield after its owner stopped, doing no more work', async () => {
    let stopped = false;
    const { slicer } = fake({ sliceMs: 10, stopped: () => stopped, onYield: () => (stopped = true) });
    const seen: number[] = [];
    await assert.rejects(slicer.run(sum(1000, seen)), SlicesStopped);
    assert.equal(slicer.yields, 1);
    assert.ok(seen.length < 20, `stopped after ${seen.length} items`);
  });

  it('each() pauses between items', async () => {
    const { slicer } = fake({ sliceMs: 5 });
    const out: number[] = [];
    await slicer.each([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], (x) => out.push(x));
    assert.deepEqual(out, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert.ok(slicer.yields >= 1);
  });
});

describe('kit/diff passes', () => {
  it('sortByKey over many runs keeps the order of one stable sort, ties included', async () => {
    const items = Array.from({ length: 5000 }, (_, i) => ({
      ns: `ns-${(i * 7919) % 37}`,
      name: `n${i % 11}`,
      i,
    }));
    const key = (x: (typeof items)[number]) => [x.ns, x.name];
    const once = [...items].sort((a, b) =>
      a.ns + '\0' + a.name < b.ns + '\0' + b.name ? -1 : a.ns + '\0' + a.name > b.ns + '\0' + b.name ? 1 : 0,
    );
    assert.deepEqual(sortByKey(items, key), once);
    const { slicer } = fake({ sliceMs: 50 });
    assert.deepEqual(await slicer.run(sortByKeySteps(items, key)), once);
    assert.ok(slicer.yields > 10);
  });

  it('diffObjects is unchanged: creates, updates, deletes in input order', () => {
    const plan = diffObjects(['a', 'b', 'c'], ['b!', 'd!'], {
      desiredKey: (d) => d,
      existingKey: (e) => e.slice(0, 1),
      changed: (d, e) => (e === undefined || d === 'b' ? d : undefined),
    });
    assert.deepEqual(plan.creates, ['a', 'c']);
    assert.deepEqual(plan.updates, [{ desired: 'b', existing: 'b!' }]);
    assert.deepEqual(plan.deletes, ['d!']);
  });
});
