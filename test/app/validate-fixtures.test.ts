// `aeraki validate` over every acceptance case of ../shared/fixtures/render and render-periphery: errors appear
// exactly where the case expects them (its expected-exit and the lines of expected-stderr.txt), and for the cases
// rendered without --routes the issues are exactly those render reports.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { render } from '../../src/app/render.ts';
import { validateFiles } from '../../src/app/validate.ts';
import { hasErrors, issueLine } from '../../src/model/result.ts';
import { assertStderr, loadCases, optionsOf } from './fixture-cases.ts';

const cases = loadCases();

describe('validate over the render fixtures', () => {
  it('finds the cases', () => assert.ok(cases.length > 0, 'no fixture cases found'));
  for (const c of cases) {
    it(c.name, () => {
      const options = optionsOf(c);
      const issues = validateFiles({ files: [c.input], ...options });
      const stderr = issues.map((i) => `${issueLine(i)}\n`).join('');
      assert.equal(hasErrors(issues) ? 1 : 0, c.exit, `exit code; stderr:\n${stderr}`);
      assertStderr(c, stderr);
      if (c.exit === 0) assert.ok(!stderr.includes('error:'), stderr);
      if (!c.routes) {
        const rendered = render({ files: [c.input], output: 'json', ...options });
        assert.deepEqual(issues.map(issueLine), rendered.issues.map(issueLine), 'the issues of render');
      }
    });
  }
});
