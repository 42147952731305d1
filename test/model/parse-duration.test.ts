import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toProtoDuration } from '../../src/model/duration.ts';

describe('toProtoDuration', () => {
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
    it(`${input} -> ${want}`, () => assert.deepEqual(toProtoDuration(input), { ok: true, value: want }));
  }
  for (const bad of ['', '60', 's', '-1s', '1x', '1.2.3s', 'abc']) {
    it(`rejects ${JSON.stringify(bad)}`, () => assert.equal(toProtoDuration(bad).ok, false));
  }
});
