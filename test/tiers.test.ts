// The two test entries: all.test.ts reaches every suite file; unit.test.ts lists exactly the suites that
// test/tiers/classify.ts finds spawn no process and open no socket, in all.test.ts's order, after its guard and
// step counts.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { after, describe, it } from 'node:test';
import { classify, entrySuites, reachableSuites, TEST_DIR } from './tiers/classify.ts';

const ENTRIES = new Set(['./all.test.ts', './unit.test.ts']);

function suiteFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.test.ts'))
    .map((e) => `./${relative(TEST_DIR, join(e.parentPath, e.name))}`)
    .filter((s) => !ENTRIES.has(s))
    .sort();
}

describe('test tiers', () => {
  it('all.test.ts reaches every suite file under test/', () => {
    const reached = reachableSuites('all.test.ts');
    const missing = suiteFiles(TEST_DIR).filter((s) => !reached.has(s));
    assert.deepEqual(missing, [], `add to test/all.test.ts: ${missing.join(', ')}`);
  });

  it('unit.test.ts lists exactly the suites classified as unit, in all.test.ts order', () => {
    const verdicts = entrySuites('all.test.ts').map((s) => classify(join(TEST_DIR, s)));
    const expected = verdicts.filter((v) => v.unit).map((v) => v.suite);
    const listed = entrySuites('unit.test.ts');
    const wrong = listed
      .filter((s) => !expected.includes(s))
      .map((s) => `${s} (${verdicts.find((v) => v.suite === s)?.reason ?? 'not in all.test.ts'})`);
    const missing = expected.filter((s) => !listed.includes(s));
    assert.deepEqual(wrong, [], `remove from test/unit.test.ts: ${wrong.join(', ')}`);
    assert.deepEqual(missing, [], `add to test/unit.test.ts: ${missing.join(', ')}`);
    assert.deepEqual(listed, expected, 'keep test/unit.test.ts in the order of test/all.test.ts');
  });

  it('unit.test.ts imports the guard and the unit step counts before any suite', () => {
    const text = readFileSync(join(TEST_DIR, 'unit.test.ts'), 'utf8');
    const imports = [...text.matchAll(/^import '([^']+)';$/gm)].map((m) => m[1]);
    assert.deepEqual(imports.slice(0, 2), ['./tiers/guard.ts', './tiers/unit-steps.ts']);
    assert.ok(imports.slice(2).every((s) => s?.endsWith('.test.ts')));
  });
});

describe('classify', () => {
  const root = mkdtempSync(join(tmpdir(), 'tiers-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const write = (path: string, text: string): string => {
    const file = join(root, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    return file;
  };
  write('support/server.ts', "import http from 'node:http';\nexport const s = http;\n");
  write('support/pure.ts', "import { join } from 'node:path';\nexport const j = join;\n");

  it('finds a socket module through test-local imports and names the module that imports it', () => {
    const file = write('a/one.test.ts', "import { s } from '../support/server.ts';\nvoid s;\n");
    assert.deepEqual(classify(file, join(root, 'a')), { suite: './one.test.ts', unit: true });
    assert.deepEqual(classify(file, root), {
      suite: './a/one.test.ts',
      unit: false,
      reason: 'support/server.ts imports node:http',
    });
  });

  it('reads dynamic imports and bare builtin names, and skips type-only imports', () => {
    // Joined so that this file's own text holds no dynamic import the classifier would read.
    const dynamic = write(
      'two.test.ts',
      ['const cp = await import', "('node:child_process');\nvoid cp;\n"].join(''),
    );
    const bare = write('three.test.ts', "export { createServer } from 'http2';\n");
    const typed = write(
      'four.test.ts',
      "import type { AddressInfo } from 'node:net';\nimport '@grpc/proto-loader';\n",
    );
    assert.equal(classify(dynamic, root).reason, 'two.test.ts imports node:child_process');
    assert.equal(classify(bare, root).reason, 'three.test.ts imports http2');
    assert.equal(classify(typed, root).unit, true);
  });

  it('keeps a suite whose test-local imports are pure in the unit tier', () => {
    const file = write(
      'five.test.ts',
      "import { j } from './support/pure.ts';\nimport x from 'node:fs';\nvoid j, x;\n",
    );
    assert.equal(classify(file, root).unit, true);
  });
});
