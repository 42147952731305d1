// The differential test of incremental generation (issue 22): after every step of a seeded random sequence of
// changes of every kind (test/support/random-mesh.ts), the incrementally maintained desired set equals a full
// rebuild from scratch over the same store, byte for byte (stable JSON): generateAll for the EnvoyFilters. A
// second instance updated only every few steps checks batched changes the same way. DIFF_STEPS runs longer
// sequences, DIFF_SEED another seed; a failure names the seed, the step and the changes since the last check.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigStore } from '../../src/controller/store.ts';
import { generateAll } from '../../src/envoyfilter/generate-all.ts';
import { IncrementalGenerator } from '../../src/envoyfilter/incremental.ts';
import { createGenerators } from '../../src/plugins/registry.ts';
import { outputText as text, picker, randomChange, ROOT, type Change } from '../support/random-mesh.ts';

const STEPS = Number(process.env['DIFF_STEPS'] ?? 5000);
const SEED = Number(process.env['DIFF_SEED'] ?? 22);
const BATCH = 7;

describe('incremental generation against a full rebuild', () => {
  it(`gives generateAll's output after every one of ${STEPS} random changes (seed ${SEED})`, () => {
    const store = new ConfigStore({ rootNamespace: ROOT });
    const generators = createGenerators();
    const options = { namespaceScope: false };
    const everyStep = new IncrementalGenerator(store, generators, options);
    const batched = new IncrementalGenerator(store, generators, options);
    const p = picker(SEED);
    let recent: Change[] = [];
    let nonEmpty = 0;
    for (let step = 1; step <= STEPS; step++) {
      recent.push(randomChange(p, store));
      if (step % 500 === 250) everyStep.reset(); // a full regeneration now and then
      const full = text(generateAll(store, generators, options));
      const where = () =>
        `seed ${SEED}, step ${step}, changes since the last check: ${JSON.stringify(recent)}`;
      assert.equal(text(everyStep.update()), full, `every step: ${where()}`);
      if (step % BATCH === 0) {
        assert.equal(text(batched.update()), full, `batched: ${where()}`);
        recent = [];
      }
      if (full.length > 200) nonEmpty++;
    }
    // The sequence must exercise generation, not compare empty sets.
    assert.ok(nonEmpty > STEPS / 2, `only ${nonEmpty} of ${STEPS} steps had any output`);
    everyStep.stop();
    batched.stop();
  });
});
