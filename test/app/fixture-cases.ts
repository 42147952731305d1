// Reads the `aeraki render` acceptance cases from ../shared/fixtures/render and ../shared/fixtures/render-periphery
// (in place, never copied) and the project's own from test/fixtures/render and compares an output with a case's expectations as the fixtures README ("How output
// is compared") says.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const fixturesDir = path.resolve(repoRoot, '../shared/fixtures/render');
/** Cases 36 onward: Redis, Kafka, ZooKeeper and Dubbo authorization. */
export const peripheryDir = path.resolve(repoRoot, '../shared/fixtures/render-periphery');
/** The project's own cases, in the same layout: deviations decided after the shared fixtures (D16 onward). */
export const projectFixturesDir = path.resolve(repoRoot, 'test/fixtures/render');

export interface FixtureCase {
  readonly name: string;
  readonly dir: string;
  readonly input: string;
  readonly args: string[];
  readonly routes: boolean;
  readonly expected: unknown;
  readonly exit: number;
  readonly stderr: string[];
}

function readOptional(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/** Every case of the three folders, sorted by name (case names are unique across them). */
export function loadCases(): FixtureCase[] {
  return [fixturesDir, peripheryDir, projectFixturesDir]
    .filter((folder) => existsSync(folder))
    .flatMap((folder) =>
      readdirSync(folder, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => ({ folder, name: d.name })),
    )
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(({ folder, name }) => {
      const dir = path.join(folder, name);
      const args = (readOptional(path.join(dir, 'args')) ?? '').trim().split(/\s+/).filter(Boolean);
      const routes = args.includes('--routes');
      const expectedFile = path.join(dir, routes ? 'expected-routes.json' : 'expected-envoyfilters.json');
      const stderr = (readOptional(path.join(dir, 'expected-stderr.txt')) ?? '')
        .split('\n')
        .map((l) => l.trimEnd())
        .filter((l) => l !== '');
      return {
        name,
        dir,
        input: path.join(dir, 'input.yaml'),
        args,
        routes,
        expected: JSON.parse(readFileSync(expectedFile, 'utf8')) as unknown,
        exit: Number((readOptional(path.join(dir, 'expected-exit')) ?? '0').trim()),
        stderr,
      };
    });
}

type Item = Record<string, any>;

function itemsOf(doc: unknown, kind: string): Item[] {
  const d = doc as Item | null;
  assert.equal(d?.['kind'], kind, `top-level kind must be ${kind}`);
  assert.ok(Array.isArray(d['items']), 'items must be a list');
  return d['items'] as Item[];
}

function byKey(items: Item[], key: (i: Item) => string): Map<string, Item> {
  const m = new Map<string, Item>();
  for (const i of items) {
    const k = key(i);
    assert.ok(!m.has(k), `duplicate item ${k}`);
    m.set(k, i);
  }
  return m;
}

/** Asserts that `stdout` matches the case's expected file under the README's comparison rules. */
export function assertOutputMatches(c: FixtureCase, stdout: string): void {
  const actual: unknown = JSON.parse(stdout);
  if (c.routes) {
    const got = byKey(itemsOf(actual, 'RouteConfigurationList'), (i) => String(i['name']));
    const want = byKey(itemsOf(c.expected, 'RouteConfigurationList'), (i) => String(i['name']));
    assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort(), 'route names');
    for (const [name, w] of want) assert.deepEqual(got.get(name), w, `route ${name}`);
    return;
  }
  const efKey = (i: Item): string => `${i['metadata']?.namespace}/${i['metadata']?.name}`;
  const onlyFilters = (doc: unknown): Item[] =>
    itemsOf(doc, 'List').filter((i) => i['kind'] === 'EnvoyFilter');
  const got = byKey(onlyFilters(actual), efKey);
  const want = byKey(onlyFilters(c.expected), efKey);
  assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort(), 'EnvoyFilter namespace/names');
  for (const [key, w] of want) {
    const g = got.get(key)!;
    const pick = (i: Item): unknown => ({
      apiVersion: i['apiVersion'],
      kind: i['kind'],
      name: i['metadata']?.name,
      namespace: i['metadata']?.namespace,
      labels: i['metadata']?.labels,
      spec: i['spec'],
    });
    assert.deepEqual(pick(g), pick(w), `EnvoyFilter ${key}`);
  }
}

/** Items are sorted: by namespace, then name (EnvoyFilter lists) or by name (routes). */
export function assertSorted(c: FixtureCase, stdout: string): void {
  const doc = JSON.parse(stdout) as { items: Item[] };
  const keys = doc.items.map((i) =>
    c.routes ? [String(i['name'])] : [String(i['metadata']?.namespace), String(i['metadata']?.name)],
  );
  const sorted = [...keys].sort((a, b) => {
    for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return (a[k] ?? '') < (b[k] ?? '') ? -1 : 1;
    return 0;
  });
  assert.deepEqual(keys, sorted, 'items sorted');
}

export function assertStderr(c: FixtureCase, stderr: string): void {
  for (const line of c.stderr) assert.ok(stderr.includes(line), `stderr lacks "${line}":\n${stderr}`);
}

/** The fixture's extra flags as render options (the only flags the cases use). */
export function optionsOf(c: FixtureCase): {
  routes: boolean;
  rootNamespace: string;
  namespaceScope: boolean;
} {
  const i = c.args.indexOf('--root-namespace');
  return {
    routes: c.routes,
    namespaceScope: c.args.includes('--namespace-scope'),
    rootNamespace: i >= 0 ? (c.args[i + 1] ?? '') : 'istio-system',
  };
}
