// A full regeneration in slices (issue 40): store changes delivered during its yields are caught up before it
// resolves, so its output is generateAll's over the store as it then is; a stop during a yield leaves the next
// update to regenerate everything.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigStore } from '../../src/controller/store.ts';
import { generateAll } from '../../src/envoyfilter/generate-all.ts';
import { IncrementalGenerator } from '../../src/envoyfilter/incremental.ts';
import { createGenerators } from '../../src/plugins/registry.ts';
import { Slicer, SlicesStopped } from '../../src/util/slices.ts';
import { outputText as text, picker, randomChange, ROOT } from '../support/random-mesh.ts';

/** A slicer that yields every `every` pause points and runs `onYield` at each yield. */
function slicer(every: number, onYield: () => void, stopped?: () => boolean): Slicer {
  let t = 0;
  return new Slicer({
    sliceMs: every,
    now: () => t++,
    yieldNow: () => {
      onYield();
      return Promise.resolve();
    },
    ...(stopped ? { stopped } : {}),
  });
}

const generators = createGenerators();
const options = { namespaceScope: false };

function mesh(seed: number, steps: number) {
  const store = new ConfigStore({ rootNamespace: ROOT });
  const p = picker(seed);
  for (let i = 0; i < steps; i++) randomChange(p, store);
  return { store, p };
}

describe('IncrementalGenerator.updateSliced', () => {
  it("gives generateAll's output over the store as it is when it resolves, changes during its yields included", async () => {
    const { store, p } = mesh(40, 400);
    const gen = new IncrementalGenerator(store, generators, options);
    let changes = 0;
    for (let round = 0; round < 20; round++) {
      gen.reset();
      const s = slicer(3 + (round % 5), () => {
        if (changes++ % 2 === 0) randomChange(p, store);
      });
      const out = await gen.updateSliced(s);
      assert.ok(s.yields > 0, `round ${round} yielded`);
      assert.equal(text(out), text(generateAll(store, generators, options)), `round ${round}`);
      // And the next change-driven update goes on from it.
      randomChange(p, store);
      assert.equal(
        text(gen.update()),
        text(generateAll(store, generators, options)),
        `round ${round}, after`,
      );
    }
    assert.ok(changes > 40, `${changes} changes came during yields`);
    gen.stop();
  });

  it('a stop during a yield rejects, and the next update regenerates everything', async () => {
    const { store, p } = mesh(42, 300);
    const gen = new IncrementalGenerator(store, generators, options);
    let stopped = false;
    await assert.rejects(
      gen.updateSliced(
        slicer(
          5,
          () => {
            stopped = true;
            randomChange(p, store);
          },
          () => stopped,
        ),
      ),
      SlicesStopped,
    );
    const next = gen.update();
    assert.equal(next.changes.from, -1, 'a full regeneration');
    assert.equal(text(next), text(generateAll(store, generators, options)));
    gen.stop();
  });

  it('is update() once the state exists (a change-driven update takes no slices)', async () => {
    const { store, p } = mesh(43, 100);
    const gen = new IncrementalGenerator(store, generators, options);
    gen.update();
    randomChange(p, store);
    const s = slicer(1, () => {});
    const out = await gen.updateSliced(s);
    assert.equal(s.yields, 0);
    assert.notEqual(out.changes.from, -1);
    assert.equal(text(out), text(generateAll(store, generators, options)));
    gen.stop();
  });
});
