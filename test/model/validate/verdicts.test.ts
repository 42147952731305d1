import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LastVerdict, Verdicts } from '../../../src/model/validate/verdicts.ts';

/** A check that counts its calls: strings with an upper-case letter are refused. */
function countingCheck(): { check: (s: string) => string | undefined; calls: () => number } {
  let calls = 0;
  return {
    check: (s) => {
      calls++;
      return /[A-Z]/.test(s) ? `"${s}" has an upper-case letter` : undefined;
    },
    calls: () => calls,
  };
}

describe('Verdicts', () => {
  it("gives the check's verdict, valid or not, and checks each string once", () => {
    const counting = countingCheck();
    const verdicts = new Verdicts(counting.check, 10);
    for (let pass = 0; pass < 3; pass++) {
      assert.equal(verdicts.problem('app'), undefined);
      assert.equal(verdicts.problem('App'), '"App" has an upper-case letter');
    }
    assert.equal(counting.calls(), 2);
  });

  it('forgets everything when full, and keeps giving right verdicts', () => {
    const counting = countingCheck();
    const verdicts = new Verdicts(counting.check, 2);
    assert.equal(verdicts.problem('a'), undefined);
    assert.equal(verdicts.problem('B'), '"B" has an upper-case letter');
    assert.equal(verdicts.problem('c'), undefined); // full: a and B are dropped
    assert.equal(verdicts.problem('B'), '"B" has an upper-case letter');
    assert.equal(counting.calls(), 4);
  });
});

describe('LastVerdict', () => {
  it('checks again only when the string differs from the last one', () => {
    const counting = countingCheck();
    const last = new LastVerdict(counting.check);
    const host = 'svc.ns.svc.cluster.local';
    assert.equal(last.problem(host), undefined);
    assert.equal(last.problem(['svc', 'ns', 'svc', 'cluster', 'local'].join('.')), undefined); // another copy
    assert.equal(counting.calls(), 1);
    assert.equal(last.problem('Svc'), '"Svc" has an upper-case letter');
    assert.equal(last.problem('Svc'), '"Svc" has an upper-case letter');
    assert.equal(last.problem(host), undefined);
    assert.equal(counting.calls(), 3);
  });
});
