// The SARIF output checked by a validator nobody here wrote: Microsoft's SARIF multitool (npm
// @microsoft/sarif-multitool, a devDependency), its schema and its correctness rules, over the findings of every
// offline code's example. Runs when the package is installed (or AERAKI_SARIF_MULTITOOL names a directory whose
// node_modules holds it); without it the test is skipped, and fails under CI=true.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { ANALYSIS_CODES } from '../../src/analyze/codes.ts';
import { formatSarif } from '../../src/analyze/format/sarif.ts';
import { analyzeFiles } from '../../src/app/analyze.ts';
import { start } from '../support/process.ts';
import { OPTIONS } from './support.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const home = process.env['AERAKI_SARIF_MULTITOOL'] ?? repo;
const installed = existsSync(path.join(home, 'node_modules/@microsoft/sarif-multitool/package.json'));

const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-sarif-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The multitool's findings about `file` (its own SARIF log), as `level ruleId: message arguments` lines. */
async function validate(file: string): Promise<string[]> {
  const out = path.join(dir, 'validation.sarif');
  const args = [
    '--no-install',
    'sarif-multitool',
    'validate',
    file,
    '--output',
    out,
    '--log',
    'ForceOverwrite',
  ];
  const r = start('npx', args, 180_000, process.env, home);
  const code = await r.exited;
  assert.equal(code, 0, r.stdout + r.stderr);
  const log = JSON.parse(readFileSync(out, 'utf8'));
  const results: any[] = log.runs[0].results ?? [];
  return results.map(
    (x) => `${x.level} ${x.ruleId}: ${JSON.stringify(x.message.arguments ?? x.message.text)}`,
  );
}

describe('SARIF output, checked by the SARIF multitool', () => {
  if (!installed) {
    if (process.env['CI'] === 'true') {
      it('needs @microsoft/sarif-multitool (a devDependency) under CI', () => {
        assert.fail('node_modules/@microsoft/sarif-multitool is missing: npm ci should have installed it');
      });
    } else {
      it.skip('needs @microsoft/sarif-multitool in node_modules (npm i -D @microsoft/sarif-multitool)');
    }
    return;
  }

  it('the findings of every offline example are a valid SARIF 2.1.0 log', async () => {
    const files = ANALYSIS_CODES.filter((c) => !c.live).map((c) => {
      const file = path.join(dir, `${c.code}.yaml`);
      writeFileSync(file, c.example);
      return file;
    });
    // Each example alone (they reuse names); then a file that does not exist.
    const messages = [...files, path.join(dir, 'missing.yaml')].flatMap((f) =>
      analyzeFiles({ ...OPTIONS, files: [f] }),
    );
    assert.ok(messages.length >= 14, `${messages.length} messages`);
    const sarif = path.join(dir, 'analysis.sarif');
    writeFileSync(
      sarif,
      formatSarif(messages, {
        version: '0.1.0',
        informationUri: new URL('../../', import.meta.url).href,
        baseDirectory: dir,
      }),
    );
    assert.deepEqual(await validate(sarif), []);
  });

  it('the validator does find a broken log (so the check above can fail)', async () => {
    const broken = path.join(dir, 'broken.sarif');
    writeFileSync(broken, JSON.stringify({ runs: [{ tool: { driver: {} } }] }));
    const findings = await validate(broken);
    assert.ok(
      findings.some((f) => f.startsWith('error ')),
      findings.join('\n'),
    );
  });
});
