import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toProtoDuration } from '../../../src/model/parse/duration.ts';
import { fail, issue, ok } from '../../../src/model/result.ts';

describe('toProtoDuration', () => {
  const ref = { kind: 'MetaRouter', namespace: 'shop', name: 'route' };
  const path = 'spec.fillInterval';
  const cases: [string, string][] = [
    ['60s', '60s'],
    ['100ms', '0.100s'],
    ['1.5s', '1.500s'],
    ['1m', '60s'],
    ['1h30m', '5400s'],
    ['0.100s', '0.100s'],
    ['0', '0s'],
    ['20ms', '0.020s'],
    ['1500us', '0.001500s'],
    ['7ns', '0.000000007s'],
    ['.5s', '0.500s'],
  ];
  for (const [input, want] of cases) {
    it(`${input} -> ${want}`, () => assert.deepEqual(toProtoDuration(input, ref, path), ok(want)));
  }
  for (const bad of ['', '60', 's', '-1s', '1x', '1.2.3s', 'abc']) {
    it(`rejects ${JSON.stringify(bad)}`, () => {
      const message = `invalid duration "${bad}" (expected e.g. "60s", "100ms", "1.5s")`;
      assert.deepEqual(toProtoDuration(bad, ref, path), fail([issue(ref, path, message)]));
    });
  }
  it('rejects durations beyond the proto3 limit', () => {
    const message = 'duration "87660001h" is out of range';
    assert.deepEqual(toProtoDuration('87660001h', ref, path), fail([issue(ref, path, message)]));
  });
});
