import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConfigStore, KeyChange, RejectedObject } from '../../src/controller/store.ts';
import type { ConfigKind, ConfigObject } from '../../src/model/objects.ts';
import type { ConfigEvent } from '../../src/model/view.ts';
import { destinationRule, recordingStore, serviceEntry } from '../support/builders.ts';
import { kindIndex } from '../../src/model/kinds.ts';

/** ServiceEntries by host, as written: a lookup index as plugins declare them. */
const BY_HOST = kindIndex({
  name: 'test/ServiceEntry/host',
  kind: 'ServiceEntry',
  keysOf: (o) => o.spec.hosts,
});

const names = (events: readonly ConfigEvent[]) => events.map((e) => `${e.type} ${e.name}`);

const DR_REF = { kind: 'DestinationRule', namespace: 'ns', name: 'dr' };
const badDr: RejectedObject = {
  ref: DR_REF,
  issues: [{ ref: DR_REF, path: 'spec.subsets[0].name', message: 'required' }],
  hosts: ['svc'],
};
const goodDr = destinationRule('ns', 'dr', { host: 'svc' });

/**
 * Two stores set up alike: one given `changes`, the other a replaceKind of `objects` and `rejected` (the kind's
 * whole state after the changes). Returns the first's events after checking that both stores agree.
 */
function againstReplaceKind(
  kind: ConfigKind,
  setup: (s: ConfigStore) => void,
  changes: readonly KeyChange[],
  objects: readonly ConfigObject[],
  rejected: readonly RejectedObject[],
): { store: ConfigStore; events: ConfigEvent[] } {
  const keyed = recordingStore();
  const full = recordingStore();
  setup(keyed.store);
  setup(full.store);
  keyed.events.length = 0;
  full.events.length = 0;
  keyed.store.applyKindChanges(kind, changes);
  full.store.replaceKind(kind, objects, rejected);
  assert.deepEqual(names(keyed.events).sort(), names(full.events).sort(), 'the events of replaceKind');
  assert.deepEqual(keyed.store.list(kind), full.store.list(kind));
  assert.deepEqual(keyed.store.rejected(), full.store.rejected());
  assert.deepEqual(keyed.store.heldHosts(), full.store.heldHosts());
  return keyed;
}

describe('ConfigStore.applyKindChanges', () => {
  it('adds, updates and deletes only the keys named; nothing for an identical object', () => {
    const a = serviceEntry('ns', 'a', { hosts: ['a.example'] });
    const b = serviceEntry('ns', 'b', { hosts: ['b.example'] });
    const b2 = serviceEntry('ns', 'b', { hosts: ['b2.example'] });
    const c = serviceEntry('ns', 'c', {});
    const setup = (s: ConfigStore) => {
      s.upsert(a);
      s.upsert(b);
      s.upsert(c);
    };
    const { store, events } = againstReplaceKind(
      'ServiceEntry',
      setup,
      [
        { type: 'absent', namespace: 'ns', name: 'a' },
        { type: 'valid', object: b2 },
        { type: 'valid', object: serviceEntry('ns', 'c', {}) },
        { type: 'valid', object: serviceEntry('ns', 'd', {}) },
      ],
      [b2, c, serviceEntry('ns', 'd', {})],
      [],
    );
    assert.deepEqual(names(events), ['deleted a', 'updated b', 'added d']);
    assert.equal(store.get('ServiceEntry', 'ns', 'c'), c, 'an equal copy replaces nothing');
    assert.deepEqual(
      store.indexed(BY_HOST, 'b2.example').map((o) => o.metadata.name),
      ['b'],
      'indexes follow',
    );
    assert.deepEqual(store.indexed(BY_HOST, 'b.example'), []);
  });

  it('a rejection keeps the last valid version, silently; without one the object holds its hosts', () => {
    const kept = againstReplaceKind(
      'DestinationRule',
      (s) => s.upsert(goodDr),
      [{ type: 'rejected', rejection: badDr }],
      [],
      [badDr],
    );
    assert.deepEqual(kept.events, []);
    assert.equal(kept.store.get('DestinationRule', 'ns', 'dr'), goodDr);
    assert.deepEqual(kept.store.heldHosts(), []);
    assert.deepEqual(
      kept.store.rejected().map((r) => r.ref.name),
      ['dr'],
    );

    const held = againstReplaceKind(
      'DestinationRule',
      () => {},
      [{ type: 'rejected', rejection: badDr }],
      [],
      [badDr],
    );
    assert.deepEqual(names(held.events), ['held dr']);
    assert.deepEqual(
      held.store.heldHosts().map((h) => h.host),
      ['svc.ns.svc.cluster.local'],
    );
    assert.equal(held.store.isHostHeld('svc', 'ns'), true);
  });

  it('a valid version clears the rejection and releases its hosts; absence releases them too', () => {
    const setup = (s: ConfigStore) =>
      s.applyKindChanges('DestinationRule', [{ type: 'rejected', rejection: badDr }]);
    const valid = againstReplaceKind(
      'DestinationRule',
      setup,
      [{ type: 'valid', object: goodDr }],
      [goodDr],
      [],
    );
    assert.deepEqual(names(valid.events), ['added dr']);
    assert.deepEqual(valid.store.rejected(), []);
    assert.equal(valid.store.isHostHeld('svc', 'ns'), false);

    const gone = againstReplaceKind(
      'DestinationRule',
      setup,
      [{ type: 'absent', namespace: 'ns', name: 'dr' }],
      [],
      [],
    );
    assert.deepEqual(names(gone.events), ['held dr'], 'the hosts are released');
    assert.deepEqual(gone.store.rejected(), []);
    assert.deepEqual(gone.store.heldHosts(), []);
  });

  it('leaves owned keys alone, counts their releases, and refuses a change of another kind', () => {
    const { store, events } = recordingStore();
    const mine = serviceEntry('ns', 'reg', { hosts: ['reg.example'] });
    store.applyOwned('registry', [mine], []);
    events.length = 0;
    store.applyKindChanges('ServiceEntry', [
      { type: 'valid', object: serviceEntry('ns', 'reg', { hosts: ['echo.example'] }) },
      {
        type: 'rejected',
        rejection: { ref: { kind: 'ServiceEntry', namespace: 'ns', name: 'reg' }, issues: [] },
      },
    ]);
    store.applyKindChanges('ServiceEntry', [{ type: 'absent', namespace: 'ns', name: 'reg' }]);
    assert.deepEqual(events, []);
    assert.equal(store.get('ServiceEntry', 'ns', 'reg'), mine);
    assert.deepEqual(store.rejected(), []);
    assert.equal(store.releases('ServiceEntry'), 0);
    store.applyOwned('registry', [], [{ kind: 'ServiceEntry', namespace: 'ns', name: 'reg' }]);
    store.applyOwned('other', [], [{ kind: 'ServiceEntry', namespace: 'ns', name: 'reg' }]);
    assert.equal(store.releases('ServiceEntry'), 1, 'only the owner releases');
    assert.equal(store.releases('DestinationRule'), 0);
    assert.throws(
      () => store.applyKindChanges('DestinationRule', [{ type: 'valid', object: mine }]),
      /applyKindChanges\(DestinationRule\) given a ServiceEntry/,
    );
  });
});
