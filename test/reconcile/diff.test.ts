import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONTENT_HASH_ANNOTATION, SOURCE_ANNOTATION } from '../../src/model/constants.ts';
import { desiredHash, specHash, withContentHash } from '../../src/kit/owned-content.ts';
import { toExisting } from '../../src/kit/kube/bodies.ts';
import { diff, type ExistingObject } from '../../src/reconcile/diff.ts';
import type { OutputObject } from '../../src/model/objects.ts';
import { filter } from './support.ts';

function existing(o: OutputObject, extra: Partial<ExistingObject> = {}): ExistingObject {
  const h = withContentHash(o);
  return {
    kind: h.kind,
    namespace: h.metadata.namespace,
    name: h.metadata.name,
    resourceVersion: '7',
    labels: h.metadata.labels,
    annotations: h.metadata.annotations ?? {},
    specHash: specHash(JSON.parse(JSON.stringify(h.spec))),
    ...extra,
  };
}

const none = { failedSources: new Set<string>() };

describe('diff', () => {
  it('creates what is missing, with the content hash annotation', () => {
    const a = filter('istio-system', 'a', 'ServiceEntry/ns/a');
    const plan = diff([a], [], none);
    assert.equal(plan.creates.length, 1);
    assert.equal(plan.creates[0]?.metadata.annotations?.[CONTENT_HASH_ANNOTATION], desiredHash(a));
    assert.deepEqual([plan.updates.length, plan.deletes.length, plan.unchanged], [0, 0, 0]);
  });

  it('leaves an equal object alone even when foreign labels and annotations were added', () => {
    const a = filter('istio-system', 'a', 'ServiceEntry/ns/a');
    const e = existing(a);
    const plan = diff(
      [a],
      [{ ...e, labels: { ...e.labels, team: 'x' }, annotations: { ...e.annotations, note: 'y' } }],
      none,
    );
    assert.deepEqual(
      [plan.creates.length, plan.updates.length, plan.deletes.length, plan.unchanged],
      [0, 0, 0, 1],
    );
  });

  it('updates a changed spec, and a spec edited by hand under an intact hash annotation (drift)', () => {
    const a = filter('istio-system', 'a', 'ServiceEntry/ns/a');
    const changed = diff([filter('istio-system', 'a', 'ServiceEntry/ns/a', 2)], [existing(a)], none);
    assert.equal(changed.updates.length, 1);
    assert.equal(changed.updates[0]?.existing.resourceVersion, '7');
    const drifted = diff([a], [existing(a, { specHash: specHash({ configPatches: [] }) })], none);
    assert.equal(drifted.updates.length, 1);
  });

  it('adopts a filter written by Aeraki (no hash, no source annotation) in place', () => {
    const a = filter('istio-system', 'a', 'ServiceEntry/ns/a');
    const aeraki = existing(a, { annotations: {} });
    const plan = diff([a], [aeraki], none);
    assert.deepEqual([plan.creates.length, plan.updates.length, plan.deletes.length], [0, 1, 0]);
  });

  it('deletes only on positive absence of the source', () => {
    const gone = existing(filter('istio-system', 'gone', 'ServiceEntry/ns/gone'));
    const failing = existing(filter('istio-system', 'f', 'ServiceEntry/ns/f'));
    const legacy = existing(filter('istio-system', 'legacy', 'x'), { annotations: {} });
    const failed = diff([], [gone, failing, legacy], { failedSources: new Set(['ServiceEntry/ns/f']) });
    assert.deepEqual(
      failed.deletes.map((e) => e.name),
      ['gone'],
    );
    assert.deepEqual(
      failed.kept.map((e) => e.name),
      ['f', 'legacy'],
    );
    const clean = diff([], [gone, legacy], none);
    assert.deepEqual(
      clean.deletes.map((e) => e.name),
      ['gone', 'legacy'],
    );
  });

  it('is deterministic: plans are ordered by kind, namespace, name whatever the input order', () => {
    const xs = [filter('b', 'z', 's'), filter('a', 'y', 's'), filter('a', 'x', 's')];
    const p1 = diff(xs, [], none);
    const p2 = diff([...xs].reverse(), [], none);
    assert.deepEqual(p1, p2);
    assert.deepEqual(
      p1.creates.map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
      ['a/x', 'a/y', 'b/z'],
    );
  });

  it('hashes an existing spec once, when the object is read, and compares by that hash', () => {
    const a = filter('istio-system', 'a', 'ServiceEntry/ns/a');
    const written = withContentHash(a);
    const e = toExisting('EnvoyFilter', {
      ...written,
      metadata: { ...written.metadata, resourceVersion: '7' },
    });
    assert.equal(e?.specHash, specHash(a.spec));
    assert.equal(diff([a], e ? [e] : [], none).unchanged, 1);
    const plan = diff([a], e ? [e] : [], none);
    assert.equal(plan.unchanged, 1);
  });

  it('source annotation of desired objects is part of the owned content', () => {
    const a = filter('istio-system', 'a', 'ServiceEntry/ns/a');
    const e = existing(a);
    const moved = {
      ...a,
      metadata: { ...a.metadata, annotations: { [SOURCE_ANNOTATION]: 'ServiceEntry/ns/b' } },
    };
    assert.equal(diff([moved], [e], none).updates.length, 1);
  });

  it('hashes a desired object once when a memo is given (the same object in the next run is not hashed again)', () => {
    const a = filter('istio-system', 'a', 'ServiceEntry/ns/a');
    const memo = new WeakMap<OutputObject, string>();
    const first = diff([a], [], { ...none, desiredMemo: memo });
    assert.equal(memo.get(a), desiredHash(a));
    memo.set(a, 'stale-on-purpose');
    const second = diff([a], [], { ...none, desiredMemo: memo });
    assert.equal(first.creates[0]?.metadata.annotations?.[CONTENT_HASH_ANNOTATION], desiredHash(a));
    assert.equal(second.creates[0]?.metadata.annotations?.[CONTENT_HASH_ANNOTATION], 'stale-on-purpose');
  });

  it('remembers equal pairs by object: the same two objects are equal again; an edited copy is compared', () => {
    const a = filter('istio-system', 'a', 'ServiceEntry/ns/a');
    const e = existing(a);
    const equalMemo = new WeakMap<ExistingObject, OutputObject>();
    assert.equal(diff([a], [e], { ...none, equalMemo }).unchanged, 1);
    assert.equal(equalMemo.get(e), a);
    const edited = { ...e, resourceVersion: '8', specHash: specHash({ configPatches: [] }) };
    const plan = diff([a], [edited], { ...none, equalMemo });
    assert.equal(plan.updates.length, 1, 'a new existing object is compared, not taken from the memo');
    const other = filter('istio-system', 'a', 'ServiceEntry/ns/a', 2);
    assert.equal(diff([other], [e], { ...none, equalMemo }).updates.length, 1, 'so is a new desired object');
  });
});
