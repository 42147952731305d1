// `aeraki validate` over every acceptance case of ../shared/fixtures/render and render-periphery: errors appear
// exactly where the case expects them (its expected-exit and the lines of expected-stderr.txt), except that a rule
// of admission hygiene, a warning in render, is an error here (the cases are render's); and for the cases rendered
// without --routes the issues are exactly those render reports, each with the severity admission gives it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { render } from '../../src/app/render.ts';
import { validateFiles } from '../../src/app/validate.ts';
import { admissionOnly, asAdmission, hasErrors, issueLine } from '../../src/model/result.ts';
import { assertStderr, loadCases, optionsOf } from './fixture-cases.ts';

const cases = loadCases();

/** The cases whose input breaks a rule of admission hygiene: render accepts them, admission refuses them. */
const ADMISSION_REFUSES: ReadonlySet<string> = new Set(['12-rds-attribute-match', '24-root-namespace']);

describe('validate over the render fixtures', () => {
  it('finds the cases', () => assert.ok(cases.length > 0, 'no fixture cases found'));
  for (const c of cases) {
    it(c.name, () => {
      const options = optionsOf(c);
      const issues = validateFiles({ files: [c.input], ...options });
      const stderr = issues.map((i) => `${issueLine(i)}\n`).join('');
      const refused = ADMISSION_REFUSES.has(c.name);
      assert.equal(hasErrors(issues) ? 1 : 0, refused ? 1 : c.exit, `exit code; stderr:\n${stderr}`);
      assertStderr(c, stderr);
      if (c.exit === 0 && !refused) assert.ok(!stderr.includes('error:'), stderr);
      const rendered = render({ files: [c.input], output: 'json', ...options });
      assert.equal(rendered.issues.some(admissionOnly), refused, 'render warns of admission-only rules');
      if (!c.routes) {
        assert.deepEqual(issues.map(issueLine), asAdmission(rendered.issues).map(issueLine), 'render issues');
      }
    });
  }
});
