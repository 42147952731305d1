// docs/analyze.md is what npm run docs:analyze makes of the codes, and every offline code's example, analysed as a
// file, produces exactly that code.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ANALYSIS_CODES } from '../../src/analyze/codes.ts';
import { referenceMarkdown } from '../../src/analyze/reference.ts';
import { analyzeFiles } from '../../src/app/analyze.ts';
import { OPTIONS, codesOf } from './support.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-analyze-ref-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('the code reference', () => {
  it('docs/analyze.md is up to date (npm run docs:analyze)', () => {
    const written = readFileSync(new URL('../../docs/analyze.md', import.meta.url), 'utf8');
    assert.equal(
      written,
      referenceMarkdown(ANALYSIS_CODES),
      'docs/analyze.md is stale: run npm run docs:analyze',
    );
  });

  it('has a section, with its anchor, per code', () => {
    const md = referenceMarkdown(ANALYSIS_CODES);
    for (const c of ANALYSIS_CODES) {
      assert.ok(md.includes(`\n## ${c.code}\n`), c.code);
      assert.ok(md.includes(`](#${c.code.toLowerCase()})`), c.code);
    }
  });

  for (const c of ANALYSIS_CODES.filter((x) => !x.live)) {
    it(`the example of ${c.code} ${c.name} produces exactly ${c.code}`, () => {
      const file = path.join(dir, `${c.code}.yaml`);
      writeFileSync(file, c.example);
      const messages = analyzeFiles({ ...OPTIONS, files: [file] });
      assert.deepEqual(codesOf(messages), [c.code], JSON.stringify(messages, null, 1));
      assert.ok(messages.every((m) => m.ref === undefined || m.file === file));
    });
  }
});
