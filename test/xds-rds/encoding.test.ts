import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadRdsProtos, messageToProto3Json } from '../../src/xds-rds/protos.ts';
import { encodeRouteConfiguration } from '../../src/tools/rds-codec.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const fixtures = path.resolve(repoRoot, '../shared/fixtures/render');

describe('RouteConfiguration wire encoding', () => {
  it('round-trips every expected-routes.json item through protobuf unchanged', () => {
    const p = loadRdsProtos();
    let n = 0;
    for (const dir of readdirSync(fixtures)) {
      const file = path.join(fixtures, dir, 'expected-routes.json');
      if (!existsSync(file)) continue;
      const { items } = JSON.parse(readFileSync(file, 'utf8')) as { items: unknown[] };
      for (const item of items) {
        const bytes = encodeRouteConfiguration(item);
        const back = messageToProto3Json(p.RouteConfiguration, p.RouteConfiguration.decode(bytes));
        assert.deepEqual(back, item, dir);
        n++;
      }
    }
    assert.ok(n >= 10, `only ${n} fixture routes found`);
  });
});
