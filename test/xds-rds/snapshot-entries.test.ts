// What an RDS snapshot entry holds (src/xds-rds/snapshot.ts): the route as built and its encoded entries, no
// second copy of the route as JSON text; unchanged content is still recognised (no re-encode) by its version.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  EMPTY_SNAPSHOT,
  encodeResource,
  nextSnapshot,
  type EncodeStats,
} from '../../src/xds-rds/snapshot.ts';
import type { RouteConfigurationJson } from '../../src/xds-rds/route-json.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const fixtures = path.resolve(repoRoot, '../shared/fixtures/render');

function fixtureRoutes(): RouteConfigurationJson[] {
  const out: RouteConfigurationJson[] = [];
  for (const dir of readdirSync(fixtures)) {
    const file = path.join(fixtures, dir, 'expected-routes.json');
    if (!existsSync(file)) continue;
    const { items } = JSON.parse(readFileSync(file, 'utf8')) as { items: RouteConfigurationJson[] };
    for (const item of items) out.push({ ...item, name: `${dir}/${item.name}` });
  }
  return out;
}

describe('xds-rds/snapshot: entries hold the encoded bytes, not the JSON text again', () => {
  it('an entry holds no JSON text; equal content is not re-encoded, changed content is, to a fresh encoding', () => {
    const routes = fixtureRoutes();
    assert.ok(routes.length >= 10);
    const stats: EncodeStats = { resourceEncodes: 0, resourceBytes: 0 };
    const first = nextSnapshot(EMPTY_SNAPSHOT, routes, stats).snapshot;
    assert.equal(stats.resourceEncodes, routes.length);
    for (const r of first.resources.values()) {
      assert.deepEqual(Object.keys(r).sort(), [
        'deltaEntry',
        'digest',
        'json',
        'name',
        'sotwEntry',
        'version',
      ]);
    }
    // The same content as new objects: every resource kept as it is.
    const again = nextSnapshot(first, structuredClone(routes), stats);
    assert.equal(again.snapshot, first);
    assert.equal(stats.resourceEncodes, routes.length);
    // One route changed: that one re-encoded, to the bytes a fresh encoding gives.
    const changed = { ...routes[0]!, validateClusters: true } as RouteConfigurationJson;
    const next = nextSnapshot(first, [changed, ...routes.slice(1)], stats);
    assert.deepEqual(next.changed, [changed.name]);
    assert.equal(stats.resourceEncodes, routes.length + 1);
    const fresh = encodeResource(changed);
    const got = next.snapshot.resources.get(changed.name)!;
    assert.deepEqual(
      [got.version, got.sotwEntry, got.deltaEntry],
      [fresh.version, fresh.sotwEntry, fresh.deltaEntry],
    );
  });
});
