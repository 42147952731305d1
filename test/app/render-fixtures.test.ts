// Every acceptance case under ../shared/fixtures/render and render-periphery, run exactly as its README says: through the CLI
// (`aeraki render -f <case>/input.yaml <args> -o json`, from the sources) and, faster, in process through render().
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { render } from '../../src/app/render.ts';
import { hasErrors, issueLine } from '../../src/model/result.ts';
import { cliArgs } from '../support/process.ts';
import {
  assertOutputMatches,
  assertSorted,
  assertStderr,
  loadCases,
  optionsOf,
  repoRoot,
} from './fixture-cases.ts';

const cases = loadCases();

function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      cliArgs(args),
      { cwd: repoRoot, timeout: 60_000, maxBuffer: 64 * 2 ** 20 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe('render fixtures (in process)', () => {
  it('finds the cases', () => assert.ok(cases.length > 0, 'no fixture cases found'));
  for (const c of cases) {
    it(c.name, () => {
      const result = render({ files: [c.input], output: 'json', ...optionsOf(c) });
      const stderr = result.issues.map((i) => `${issueLine(i)}\n`).join('');
      assertStderr(c, stderr);
      assert.equal(hasErrors(result.issues) ? 1 : 0, c.exit, `exit code; stderr:\n${stderr}`);
      assertOutputMatches(c, result.stdout);
      assertSorted(c, result.stdout);
      const again = render({ files: [c.input], output: 'json', ...optionsOf(c) });
      assert.equal(again.stdout, result.stdout, 'identical input gives byte-identical output');
    });
  }
});

describe('render fixtures (CLI)', { concurrency: 4 }, () => {
  for (const c of cases) {
    it(c.name, async () => {
      const { code, stdout, stderr } = await runCli(['render', '-f', c.input, ...c.args, '-o', 'json']);
      assert.equal(code, c.exit, `exit code; stderr:\n${stderr}`);
      assertStderr(c, stderr);
      assertOutputMatches(c, stdout);
    });
  }
});
