// The differential test of change-driven reconciles (issue 22): after every step of a seeded random sequence of
// store changes (test/support/random-mesh.ts), a reconciler fed by IncrementalGenerator and planning only what
// the changes touch leaves the sink holding exactly what a reconciler planning the full desired set (generateAll)
// against a fresh list every run leaves in its own sink, object by object. RECONCILE_DIFF_STEPS runs longer
// sequences, DIFF_SEED another seed; a failure names the seed, the step and the changes since the last step.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigStore } from '../../src/controller/store.ts';
import { generateAll } from '../../src/envoyfilter/generate-all.ts';
import { IncrementalGenerator } from '../../src/envoyfilter/incremental.ts';
import { createGenerators } from '../../src/plugins/registry.ts';
import { ManagedCache } from '../../src/reconcile/managed-cache.ts';
import {
  heldSourceKeys,
  Reconciler,
  type DesiredSet,
  type RunReport,
} from '../../src/reconcile/reconciler.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { stableStringify } from '../../src/util/json.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { picker, randomChange, ROOT } from '../support/random-mesh.ts';
import { MemorySink } from './support.ts';

const STEPS = Number(process.env['RECONCILE_DIFF_STEPS'] ?? 1500);
const SEED = Number(process.env['DIFF_SEED'] ?? 22);

/** The sink's objects as text, without the resource versions (each sink counts its own). */
function written(sink: MemorySink): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, o] of sink.objects) {
    const { resourceVersion: _, ...metadata } = o['metadata'] as Record<string, unknown>;
    out.set(key, stableStringify({ ...o, metadata }));
  }
  return out;
}

/** The keys whose objects differ between the two sinks (short, so a failure stays readable). */
function differences(a: MemorySink, b: MemorySink): string[] {
  const [x, y] = [written(a), written(b)];
  const keys = new Set([...x.keys(), ...y.keys()]);
  return [...keys].filter((k) => x.get(k) !== y.get(k)).sort();
}

function reconciler(store: ConfigStore, sink: MemorySink, desired: () => DesiredSet, cache?: ManagedCache) {
  const rec = new Reconciler({
    sink,
    desired,
    heldSources: () => heldSourceKeys(store.rejected()),
    ...(cache ? { cache } : {}),
    isSynced: () => true,
    resyncMs: 0,
    clock: new ManualClock(0),
    logger: silentLogger,
  });
  const reports: RunReport[] = [];
  rec.onRun((r) => reports.push(r));
  return { rec, reports };
}

describe('change-driven reconciles against full reconciles', () => {
  it(`write what full plans write after every one of ${STEPS} random changes (seed ${SEED})`, async () => {
    const store = new ConfigStore({ rootNamespace: ROOT });
    const generators = createGenerators();
    const options = { namespaceScope: false };
    const generator = new IncrementalGenerator(store, generators, options);
    const cache = new ManagedCache();
    cache.markSynced();
    const incSink = new MemorySink();
    const fullSink = new MemorySink();
    const inc = reconciler(store, incSink, () => generator.update(), cache);
    // No cache: every run lists, and plans the complete desired set.
    const full = reconciler(store, fullSink, () => generateAll(store, generators, options));
    const p = picker(SEED);
    let nonEmpty = 0;
    for (let step = 1; step <= STEPS; step++) {
      const change = randomChange(p, store);
      await inc.rec.runNow();
      await full.rec.runNow();
      assert.deepEqual(
        differences(incSink, fullSink),
        [],
        `seed ${SEED}, step ${step}, ${JSON.stringify(change)}`,
      );
      if (fullSink.objects.size > 0) nonEmpty++;
    }
    generator.stop();
    const incremental = inc.reports.filter((r) => r.incremental).length;
    assert.equal(incremental, STEPS - 1, 'every run after the first planned over the changes only');
    assert.ok(inc.reports.every((r) => r.failures.length === 0));
    assert.ok(nonEmpty > STEPS / 2, `only ${nonEmpty} of ${STEPS} steps had any output`);
    assert.ok(incSink.writes.length > STEPS / 10, 'the sequence writes');
  });
});
