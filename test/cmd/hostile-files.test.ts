// Hostile input files for `aeraki render` and `aeraki validate`: each case is one exact stderr line and exit 1, in
// process and through the CLI (no stack trace, every other file still rendered). Near-miss kinds and misspelt
// fields are another suite's.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { render } from '../../src/app/render.ts';
import { validateFiles } from '../../src/app/validate.ts';
import { hasErrors, issueLine } from '../../src/model/result.ts';
import { fixturesDir, repoRoot } from '../app/fixture-cases.ts';
import { cliArgs } from '../support/process.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-hostile-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const LIMITS = { maxFileBytes: 16 * 1024, maxFileDocuments: 50, maxYamlAliasNodes: 100_000 };
const LIMIT_FLAGS = ['--max-file-size', '16Ki', '--max-file-documents', '50'];

const BOMB = [
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ...['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'].map(
    (k, i) => `${k}: &${k} [${`*${'abcdefgh'[i]},`.repeat(8)}*${'abcdefgh'[i]}]`,
  ),
].join('\n');

const SE = `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: a, namespace: shop}
spec:
  hosts: [a.shop.svc.cluster.local]
  ports: [{number: 9090, name: tcp-metaprotocol-thrift}]
`;

/** Each case: the file's name and content, and the text after `error: File <path>: `. */
const CASES: readonly { name: string; content: string | Buffer; line: string }[] = [
  {
    name: 'alias-bomb.yaml',
    content: BOMB,
    line: 'YAML aliases add more than 100000 nodes when expanded (the limit of --max-yaml-alias-nodes)',
  },
  {
    name: 'recursive-alias.yaml',
    content: 'spec: &a {self: *a}\n',
    line: 'a YAML alias refers to a node that contains it',
  },
  {
    name: 'oversized.yaml',
    content: `${SE}# ${'x'.repeat(17 * 1024)}\n`,
    line: '17601 bytes, more than the limit of 16384 (--max-file-size)',
  },
  {
    name: 'too-many-documents.yaml',
    content: 'a: 1\n---\n'.repeat(51),
    line: '51 documents, more than the limit of 50 (--max-file-documents)',
  },
  {
    name: 'binary-junk.yaml',
    content: Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00, 0x0a]),
    line: 'line 1, column 8: invalid YAML: null byte is not allowed in input',
  },
  {
    name: 'control-characters.yaml',
    content: 'kind: \x01\x02\n',
    // js-yaml names the end of the scalar it was reading.
    line: 'line 1, column 9: invalid YAML: the stream contains non-printable characters',
  },
  {
    name: 'invalid-utf8.yaml',
    content: Buffer.concat([
      Buffer.from('kind: ServiceEntry\nmetadata: {name: caf'),
      Buffer.from([0xe9, 0x7d, 0x0a]),
    ]),
    line: 'line 2, column 21: invalid UTF-8',
  },
  {
    name: 'deeply-nested.yaml',
    content: `spec: ${'['.repeat(150)}${']'.repeat(150)}\n`,
    line: 'line 1, column 106: invalid YAML: nesting exceeded maxDepth (100)',
  },
  {
    name: 'duplicate-keys.yaml',
    content: SE.replace('kind: ServiceEntry\n', 'kind: ServiceEntry\nkind: MetaRouter\n'),
    line: 'line 3, column 1: invalid YAML: duplicated mapping key',
  },
  {
    name: 'syntax-error.yaml',
    content: SE.replace('ports: [{number: 9090', 'ports: [{number: 9090,,'),
    line: "line 6, column 25: invalid YAML: expected the node content, but found ','",
  },
];

const expected = (c: (typeof CASES)[number]) => `error: File ${path.join(dir, c.name)}: ${c.line}`;

mkdirSync(path.join(dir, 'valid'));
const valid = path.join(dir, 'valid', 'case01.yaml');
writeFileSync(valid, readFileSync(path.join(fixturesDir, '01-metaprotocol-dubbo-sidecar/input.yaml')));
for (const c of CASES) writeFileSync(path.join(dir, c.name), c.content);

const options = (files: string[]) => ({
  files,
  rootNamespace: 'istio-system',
  namespaceScope: false,
  ...LIMITS,
});

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, cliArgs(args), { cwd: repoRoot, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

describe('hostile input files (render and validate)', () => {
  for (const c of CASES) {
    it(`${c.name}: one exact error line, exit 1, the valid file beside it still rendered`, () => {
      const file = path.join(dir, c.name);
      const rendered = render({ ...options([file, valid]), output: 'yaml', routes: false });
      assert.deepEqual(rendered.issues.map(issueLine), [expected(c)]);
      assert.equal(hasErrors(rendered.issues) ? 1 : 0, 1);
      assert.match(rendered.stdout, /kind: EnvoyFilter/);
      assert.deepEqual(validateFiles(options([file, valid])).map(issueLine), [expected(c)]);
    });
  }

  for (const command of ['render', 'validate']) {
    it(`aeraki ${command} over all of them: every line, exit 1, no stack trace`, async () => {
      const r = await cli([command, '-f', dir, ...LIMIT_FLAGS]);
      const lines = r.stderr.trimEnd().split('\n');
      assert.deepEqual([...lines].sort(), CASES.map(expected).sort(), r.stderr);
      assert.doesNotMatch(r.stderr, /^\s+at /m);
      assert.equal(r.code, 1);
      if (command === 'render') assert.match(r.stdout, /kind: EnvoyFilter/);
    });
  }
});
