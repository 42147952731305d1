// Every `--routes` render fixture through the real parser and store, compared with expected-routes.json.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfigFiles, fillStore } from '../../src/controller/file-source.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { formatIssue, severityOf } from '../../src/model/result.ts';
import { buildRouteConfigurations } from '../../src/xds-rds/routes.ts';
import { PLUGIN_KINDS } from '../support/kinds.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const fixtures = path.resolve(repoRoot, '../shared/fixtures/render');
const read = (dir: string, f: string) => readFileSync(path.join(fixtures, dir, f), 'utf8');

function routesOf(dir: string) {
  const result = loadConfigFiles([path.join(fixtures, dir, 'input.yaml')], {
    rootNamespace: 'istio-system',
    kinds: PLUGIN_KINDS,
  });
  const store = new ConfigStore({ rootNamespace: 'istio-system', mesh: result.mesh });
  fillStore(store, result);
  const built = buildRouteConfigurations(store);
  // Warnings may come with valid input (fixtures README): only errors are compared.
  const errors = [...result.issues, ...built.issues].filter((i) => severityOf(i) === 'error');
  return { ...built, issues: errors.map(formatIssue) };
}

describe('route fixtures', () => {
  const cases = readdirSync(fixtures).filter(
    (d) => existsSync(path.join(fixtures, d, 'args')) && read(d, 'args').includes('--routes'),
  );
  it('finds the --routes cases', () => assert.ok(cases.length >= 9));
  for (const dir of cases) {
    it(dir, () => {
      const { routes, issues } = routesOf(dir);
      const expected = JSON.parse(read(dir, 'expected-routes.json')) as { items: { name: string }[] };
      if (read(dir, 'expected-exit').trim() === '0') assert.deepEqual(issues, []);
      const byName = new Map(routes.map((r) => [r.name, r]));
      assert.deepEqual([...byName.keys()].sort(), expected.items.map((i) => i.name).sort());
      for (const item of expected.items) assert.deepEqual(byName.get(item.name), item, item.name);
      // Determinism: a second build gives the same bytes.
      assert.equal(JSON.stringify(routesOf(dir).routes), JSON.stringify(routes));
    });
  }
  it('D1 ports get no routes and are reported (25)', () => {
    const { routes, issues } = routesOf('25-d1-port-without-app-protocol');
    assert.deepEqual(
      routes.map((r) => r.name),
      ['org.apache.dubbo.samples.basic.api.demoservice_20880'],
    );
    assert.ok(issues.some((i) => i.startsWith('ServiceEntry metaprotocol/broken-bare')));
    assert.ok(issues.some((i) => i.startsWith('ServiceEntry metaprotocol/broken-empty')));
  });
});
