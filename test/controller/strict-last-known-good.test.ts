// A MetaRouter read by the directory source that gains a misspelt field (`mirrorPercentag`, which a lenient reader
// would drop, mirroring all traffic) is rejected with the field path, and its last valid version stays in effect:
// same routes, same filters, no change event; fixing the field applies the new version.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { DirSource } from '../../src/controller/dir-source.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { generateAll } from '../../src/envoyfilter/generate-all.ts';
import { formatIssue } from '../../src/model/result.ts';
import type { ConfigEvent } from '../../src/model/view.ts';
import { createGenerators } from '../../src/plugins/registry.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { buildRouteConfigurations } from '../../src/xds-rds/routes.ts';
import { META_HOST, metaEntry, metaRouterRaw, ROOT, type Raw } from '../support/lkg-objects.ts';

const dir = mkdtempSync(join(tmpdir(), 'aeraki-strict-lkg-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The valid MetaRouter of lkg-objects.ts mirroring `percent` % of its route to subset v2, under `field`. */
function mirroring(percent: number, field = 'mirrorPercentage'): Raw {
  const mr = metaRouterRaw(true);
  const spec = mr['spec'] as { routes: Raw[] };
  spec.routes = spec.routes.map((r) => ({
    ...r,
    mirror: { host: META_HOST, subset: 'v2' },
    [field]: { value: percent },
  }));
  return mr;
}

function write(raws: readonly Raw[]): void {
  writeFileSync(join(dir, 'config.yaml'), raws.map((r) => stringify(r)).join('---\n'));
}

/** The mirror policies of every route the proxies would get. */
function mirrorPolicies(store: ConfigStore): unknown[] {
  const text = JSON.stringify(buildRouteConfigurations(store).routes);
  return [...text.matchAll(/"requestMirrorPolicies":(\[[^\]]*\])/g)].map((m) => JSON.parse(m[1]!) as unknown);
}

const policy = (millionths: number) => [
  {
    cluster: `outbound|20880|v2|${META_HOST}`,
    runtimeFraction: { defaultValue: { numerator: millionths, denominator: 'MILLION' } },
  },
];

describe('strict reading in the directory source', () => {
  it('a misspelt field rejects the new version and keeps the last valid one in effect', () => {
    write([metaEntry, mirroring(10)]);
    const store = new ConfigStore({ rootNamespace: ROOT });
    const src = new DirSource({ dir, store, rootNamespace: ROOT, debounceMs: 10, logger: silentLogger });
    src.load();
    const valid = store.get('MetaRouter', 'shop', 'mr');
    assert.ok(valid);
    const routes = buildRouteConfigurations(store).routes;
    const filters = generateAll(store, createGenerators(), { namespaceScope: false }).objects;
    assert.deepEqual(mirrorPolicies(store), [policy(100_000)], 'the valid version mirrors 10 %');
    const events: ConfigEvent[] = [];
    store.subscribe((e) => events.push(e));

    write([metaEntry, mirroring(1, 'mirrorPercentag')]);
    src.load();
    assert.equal(store.get('MetaRouter', 'shop', 'mr'), valid, 'the last valid version is kept');
    assert.deepEqual(events, []);
    assert.deepEqual(
      store.rejected().flatMap((r) => r.issues.map(formatIssue)),
      ['MetaRouter shop/mr: spec.routes[0].mirrorPercentag: unknown field; did you mean mirrorPercentage?'],
    );
    assert.deepEqual(buildRouteConfigurations(store).routes, routes, 'routes unchanged');
    assert.deepEqual(mirrorPolicies(store), [policy(100_000)], 'still 10 %, not 100 %');
    assert.deepEqual(generateAll(store, createGenerators(), { namespaceScope: false }).objects, filters);

    write([metaEntry, mirroring(1)]);
    src.load();
    assert.deepEqual(store.rejected(), []);
    assert.notEqual(store.get('MetaRouter', 'shop', 'mr'), valid, 'the fixed version applies');
    assert.deepEqual(mirrorPolicies(store), [policy(10_000)], 'now 1 %');
  });
});
