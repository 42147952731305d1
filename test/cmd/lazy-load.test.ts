// `aeraki version`, `aeraki render`, `aeraki validate` and `aeraki analyze -f` (offline) load neither the Kubernetes client nor gRPC (each command imports what it
// runs when it runs). A resolve hook preloaded into the CLI's process records every module URL it resolves,
// plus the CommonJS cache at exit; a control run importing the serve module shows the record sees both.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { cliArgs } from '../support/process.ts';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const HEAVY = ['@kubernetes/client-node', '@grpc/grpc-js'];
const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-loads-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const dataUrl = (source: string) => `data:text/javascript,${encodeURIComponent(source)}`;

const HOOKS = `
import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(file, resolved.url + '\\n');
  return resolved;
}`;

/** An `--import` module that records into `file` what the process loads. */
function recorder(file: string): string {
  const f = JSON.stringify(file);
  return dataUrl(`
import { createRequire, register } from 'node:module';
import { appendFileSync } from 'node:fs';
register(${JSON.stringify(dataUrl(HOOKS))}, { data: { file: ${f} } });
process.on('exit', () => appendFileSync(${f}, Object.keys(createRequire(${f}).cache).join('\\n')));
`);
}

let runs = 0;

/** The npm packages a node process run with `args(recorder)` loads. */
function packagesLoaded(args: (preload: string) => string[]): Promise<Set<string>> {
  const file = path.join(dir, `loads-${++runs}.txt`);
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args(recorder(file)), { cwd: repoRoot, timeout: 60_000 }, (err) => {
      if (err) return reject(new Error(`the recorded run failed: ${err.message}`, { cause: err }));
      const urls = readFileSync(file, 'utf8').split('\n');
      const names = urls.map((u) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u)?.[1]);
      resolve(new Set(names.filter((n) => n !== undefined)));
    });
  });
}

describe('modules each command loads', { concurrency: 3 }, () => {
  it('the record sees both packages when the serve module is imported (control)', async () => {
    const serve = new URL('../../src/app/serve.ts', import.meta.url).href;
    const loaded = await packagesLoaded((preload) => [
      '--import',
      import.meta.resolve('tsx'),
      '--import',
      preload,
      '--input-type=module',
      '--eval',
      `await import(${JSON.stringify(serve)})`,
    ]);
    for (const name of HEAVY) assert.ok(loaded.has(name), `${name} not seen`);
  });

  for (const command of [
    ['version'],
    ['render', '-f', 'examples/'],
    ['validate', '-f', 'examples/'],
    ['analyze', '-f', 'examples/'],
  ]) {
    it(`aeraki ${command.join(' ')}`, async () => {
      const loaded = await packagesLoaded((preload) => cliArgs(command, [preload]));
      assert.ok(loaded.has('commander'), 'the record saw the CLI run');
      for (const name of HEAVY) assert.ok(!loaded.has(name), `${name} loaded`);
    });
  }
});
