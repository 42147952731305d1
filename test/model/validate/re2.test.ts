import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { re2Problem } from '../../../src/model/validate/re2.ts';

describe('re2Problem', () => {
  it('accepts RE2 and gives the engine message for what RE2 refuses, the same on every call', () => {
    assert.equal(re2Problem('^say(Hello|Hi)(V[0-9]+)?$'), undefined);
    const broken = re2Problem('([a-');
    assert.match(broken ?? '', /missing/i);
    assert.equal(re2Problem('([a-'), broken, 'a verdict already reached is the same');
    // RE2 has no lookaheads or backreferences, which JavaScript's RegExp accepts.
    assert.notEqual(re2Problem('a(?=b)'), undefined);
    assert.notEqual(re2Problem('(a)\\1'), undefined);
  });

  it('keeps giving right verdicts past its bound', () => {
    for (let i = 0; i < 10_050; i++) assert.equal(re2Problem(`^x${i}$`), undefined);
    assert.notEqual(re2Problem('([a-'), undefined);
    assert.equal(re2Problem('^x1$'), undefined);
  });
});
