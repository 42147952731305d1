import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { attributeMatchers, istioHeaderMatchers } from '../../src/model/matchers.ts';

describe('header matchers', () => {
  it('MetaRouter attributes: sorted, null and regex * mean present, {} adds nothing (D5)', () => {
    assert.deepEqual(
      attributeMatchers({
        attributes: {
          z: { exact: '' },
          a: null,
          m: { regex: '*' },
          p: { prefix: 'x' },
          r: { regex: 'a.*' },
          e: {},
        },
      }),
      [
        { name: 'a', presentMatch: true },
        { name: 'm', presentMatch: true },
        { name: 'p', prefixMatch: 'x' },
        { name: 'r', safeRegexMatch: { googleRe2: {}, regex: 'a.*' } },
        { name: 'z', exactMatch: '' },
      ],
    );
    assert.deepEqual(attributeMatchers(undefined), []);
  });
  it('VirtualService headers: sorted, empty match and empty prefix mean present', () => {
    assert.deepEqual(
      istioHeaderMatchers({ b: { prefix: '' }, a: {}, c: { exact: 'v' }, d: { regex: '.+' } }),
      [
        { name: 'a', presentMatch: true },
        { name: 'b', presentMatch: true },
        { name: 'c', exactMatch: 'v' },
        { name: 'd', safeRegexMatch: { googleRe2: {}, regex: '.+' } },
      ],
    );
  });
});
