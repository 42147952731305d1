// Dependency keys held once across DependentUnits (src/kit/incremental/key-table.ts): several indexes reading the
// same key hold one string of it, counted, and a key no unit reads any more leaves the table.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DependentUnits, hostDepKey } from '../../../src/kit/incremental/dependencies.ts';
import { KeyTable } from '../../../src/kit/incremental/key-table.ts';
import { metaRouter, serviceEntry, storeOf } from '../../support/builders.ts';

const HOST = 'svc.shop.example';

describe('kit/incremental/key-table: dependency keys shared across indexes', () => {
  it('two indexes reading the same keys hold them once; a key goes with its last reader', () => {
    const store = storeOf([
      serviceEntry('shop', 'svc', { hosts: [HOST] }),
      metaRouter('shop', 'r', { hosts: [HOST] }),
    ]);
    const keys = new KeyTable();
    let live = true;
    const reader = () =>
      new DependentUnits(
        store,
        (v, unit) => (
          v.configForHost(HOST, 'shop'),
          v.get('ServiceEntry', 'shop', 'svc'),
          live ? unit : undefined
        ),
        keys,
      );
    const a = reader();
    const b = reader();
    a.update(['u1', 'u2'], () => undefined);
    b.update(['u1'], () => undefined);
    const host = hostDepKey(HOST);
    assert.equal(keys.size, 2, 'one entry per distinct key');
    assert.equal(keys.uses(host), 3, 'read by three units of two indexes');
    assert.deepEqual([...a.affected([host], [])].sort(), ['u1', 'u2']);
    live = false;
    a.update(['u1', 'u2'], () => undefined);
    assert.equal(keys.uses(host), 1);
    b.update(['u1'], () => undefined);
    assert.equal(keys.size, 0, 'no unit reads a key any more');
  });
});
