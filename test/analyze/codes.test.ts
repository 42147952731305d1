// The code list: unique codes of the form AER + 4 digits, unique names, each listed by exactly one analyzer, and
// every field of the reference filled in.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ALL_ANALYZERS, ANALYSIS_CODES, atLeast } from '../../src/analyze/codes.ts';
import { OFFLINE_ANALYZERS } from '../../src/analyze/offline/index.ts';

describe('analysis codes', () => {
  it('are AER and four digits, unique, with unique PascalCase names', () => {
    const codes = ANALYSIS_CODES.map((c) => c.code);
    assert.ok(codes.length >= 12);
    for (const c of ANALYSIS_CODES) {
      assert.match(c.code, /^AER\d{4}$/);
      assert.match(c.name, /^[A-Z][A-Za-z0-9]+$/);
      assert.ok(['error', 'warning', 'info'].includes(c.severity), c.code);
      for (const text of [c.why, c.fix, c.example]) assert.ok(text.trim().length > 0, c.code);
    }
    assert.equal(new Set(codes).size, codes.length, 'a code listed twice');
    assert.equal(new Set(ANALYSIS_CODES.map((c) => c.name)).size, codes.length, 'a name used twice');
    assert.deepEqual(codes, [...codes].sort());
  });

  it('each code is listed by exactly one analyzer', () => {
    for (const c of ANALYSIS_CODES) {
      const owners = ALL_ANALYZERS.filter((a) => a.codes.some((x) => x.code === c.code));
      assert.equal(owners.length, 1, c.code);
    }
  });

  it('offline analyzers own the offline codes AER00xx', () => {
    for (const c of OFFLINE_ANALYZERS.flatMap((a) => a.codes)) {
      assert.equal(c.live, false, c.code);
      assert.match(c.code, /^AER00\d\d$/);
    }
  });

  it('--fail-on compares severities worst first', () => {
    assert.ok(atLeast('error', 'warning'));
    assert.ok(atLeast('warning', 'warning'));
    assert.ok(!atLeast('info', 'warning'));
    assert.ok(atLeast('info', 'info'));
    assert.ok(!atLeast('warning', 'error'));
  });
});
