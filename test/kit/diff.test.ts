import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { diffObjects, sortByKey, type DiffRules, type Ownership } from '../../src/kit/diff.ts';

interface Want {
  readonly key: string;
  readonly value: number;
}
interface Have {
  readonly key: string;
  readonly value: number;
  readonly owner?: Ownership;
  readonly known?: boolean;
}

const rules: DiffRules<Want, Have> = {
  desiredKey: (d) => d.key,
  existingKey: (e) => e.key,
  changed: (d, e) => (e !== undefined && e.value === d.value ? undefined : d),
  ownership: (e) => e.owner ?? 'managed',
  mayDelete: (e) => e.known ?? true,
};

describe('diffObjects', () => {
  it('creates the absent, updates the different, leaves the current alone, deletes the undesired', () => {
    const plan = diffObjects(
      [
        { key: 'new', value: 1 },
        { key: 'changed', value: 2 },
        { key: 'same', value: 3 },
      ],
      [
        { key: 'same', value: 3 },
        { key: 'changed', value: 1 },
        { key: 'gone', value: 4 },
      ],
      rules,
    );
    assert.deepEqual(plan.creates, [{ key: 'new', value: 1 }]);
    assert.deepEqual(plan.updates, [
      { desired: { key: 'changed', value: 2 }, existing: { key: 'changed', value: 1 } },
    ]);
    assert.deepEqual(plan.deletes, [{ key: 'gone', value: 4 }]);
    assert.deepEqual([plan.kept, plan.conflicts, plan.unchanged], [[], [], 1]);
  });

  it('writes the object the content hook returns', () => {
    const plan = diffObjects([{ key: 'a', value: 1 }], [], {
      ...rules,
      changed: (d) => ({ ...d, value: d.value * 10 }),
    });
    assert.deepEqual(plan.creates, [{ key: 'a', value: 10 }]);
  });

  it('never deletes on partial knowledge: an undesired managed object whose absence is not known is kept', () => {
    const plan = diffObjects<Want, Have>(
      [],
      [
        { key: 'a', value: 1, known: false },
        { key: 'b', value: 1 },
      ],
      rules,
    );
    assert.deepEqual(
      plan.kept.map((e) => e.key),
      ['a'],
    );
    assert.deepEqual(
      plan.deletes.map((e) => e.key),
      ['b'],
    );
  });

  it('ownership: legacy is adopted where desired and left alone elsewhere; foreign is a conflict or left alone', () => {
    const plan = diffObjects<Want, Have>(
      [
        { key: 'legacy', value: 2 },
        { key: 'foreign', value: 2 },
      ],
      [
        { key: 'legacy', value: 1, owner: 'legacy' },
        { key: 'foreign', value: 1, owner: 'foreign' },
        { key: 'old-legacy', value: 1, owner: 'legacy' },
        { key: 'old-foreign', value: 1, owner: 'foreign' },
      ],
      rules,
    );
    assert.deepEqual(plan.updates, [
      {
        desired: { key: 'legacy', value: 2 },
        existing: { key: 'legacy', value: 1, owner: 'legacy' },
        adopt: true,
      },
    ]);
    assert.deepEqual(plan.conflicts, [
      { desired: { key: 'foreign', value: 2 }, existing: { key: 'foreign', value: 1, owner: 'foreign' } },
    ]);
    assert.deepEqual([plan.creates, plan.deletes, plan.kept, plan.unchanged], [[], [], [], 0]);
  });

  it('a foreign object is a conflict even when its content is what is desired', () => {
    const plan = diffObjects<Want, Have>(
      [{ key: 'a', value: 1 }],
      [{ key: 'a', value: 1, owner: 'foreign' }],
      rules,
    );
    assert.deepEqual([plan.conflicts.length, plan.unchanged], [1, 0]);
  });

  it('keeps input order; the first of duplicate desired keys wins', () => {
    const plan = diffObjects<Want, Have>(
      [
        { key: 'b', value: 1 },
        { key: 'a', value: 1 },
        { key: 'b', value: 2 },
      ],
      [],
      rules,
    );
    assert.deepEqual(plan.creates, [
      { key: 'b', value: 1 },
      { key: 'a', value: 1 },
    ]);
  });

  it('without an ownership or deletion hook every existing object is managed and deletable', () => {
    const plan = diffObjects<Want, Have>([], [{ key: 'a', value: 1, owner: 'foreign', known: false }], {
      desiredKey: rules.desiredKey,
      existingKey: rules.existingKey,
      changed: rules.changed,
    });
    assert.equal(plan.deletes.length, 1);
  });
});

describe('sortByKey', () => {
  it('compares the key tuples element by element (not as joined strings)', () => {
    const sorted = sortByKey(
      [
        ['a-b', 'x'],
        ['a', 'y'],
      ],
      (k) => k,
    );
    assert.deepEqual(sorted, [
      ['a', 'y'],
      ['a-b', 'x'],
    ]);
  });
});
