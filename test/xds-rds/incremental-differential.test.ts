// The differential test of incremental routes (issue 22): after every step of a seeded random sequence of changes
// of every kind (test/support/random-mesh.ts), IncrementalRoutes gives what buildRouteConfigurations gives over
// the same store, byte for byte (stable JSON), and a snapshot cache patched with only the changed names holds
// the same snapshot (version and every resource) as one given the complete routes, and reports the same changed
// names. DIFF_STEPS runs longer sequences, DIFF_SEED another seed; a failure names the seed and the step.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigStore } from '../../src/controller/store.ts';
import { stableStringify } from '../../src/util/json.ts';
import { IncrementalRoutes } from '../../src/xds-rds/incremental-routes.ts';
import { buildRouteConfigurations } from '../../src/xds-rds/routes.ts';
import { SnapshotCache, type Snapshot } from '../../src/xds-rds/snapshot.ts';
import { picker, randomChange, ROOT, type Change } from '../support/random-mesh.ts';

const STEPS = Number(process.env['DIFF_STEPS'] ?? 5000);
const SEED = Number(process.env['DIFF_SEED'] ?? 22);

function snapshotText(s: Snapshot): string {
  return JSON.stringify({
    version: s.version,
    resources: [...s.resources.values()].map((r) => [r.name, JSON.stringify(r.json)]),
  });
}

describe('incremental routes against a full rebuild', () => {
  it(`give buildRouteConfigurations' result and snapshot after every one of ${STEPS} random changes (seed ${SEED})`, () => {
    const store = new ConfigStore({ rootNamespace: ROOT });
    const incremental = new IncrementalRoutes(store);
    const [fullCache, patchedCache] = [new SnapshotCache(), new SnapshotCache()];
    const p = picker(SEED);
    let served = 0;
    for (let step = 1; step <= STEPS; step++) {
      const change: Change = randomChange(p, store);
      if (step % 500 === 250) incremental.reset(); // a full rebuild now and then, patched into the same cache
      const where = `seed ${SEED}, step ${step}, change ${JSON.stringify(change)}`;
      const full = buildRouteConfigurations(store);
      const { result, changed } = incremental.update();
      assert.equal(stableStringify(result), stableStringify(full), `routes: ${where}`);
      const fullChanged = fullCache.setRoutes(full.routes, full.held);
      const patchedChanged = patchedCache.patchRoutes({
        names: changed,
        route: (name) => incremental.route(name),
        isHeld: (name) => incremental.isHeld(name),
      });
      assert.deepEqual(patchedChanged, fullChanged, `changed names: ${where}`);
      assert.equal(
        snapshotText(patchedCache.snapshot()),
        snapshotText(fullCache.snapshot()),
        `snapshot: ${where}`,
      );
      served += fullCache.snapshot().resources.size;
    }
    // The sequence must exercise the builder, not compare empty snapshots.
    assert.ok(served > STEPS, `only ${served} resources served over ${STEPS} steps`);
    incremental.stop();
  });
});
