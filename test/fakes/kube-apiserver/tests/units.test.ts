import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fromFieldsV1, toFieldsV1 } from '../fields.ts';
import { jsonPatch, mergePatch } from '../patches.ts';
import { compareVersions } from '../registry.ts';
import { parseFieldSelector, parseLabelSelector } from '../selectors.ts';
import { ApiError } from '../status.ts';
import type { KubeObject } from '../types.ts';

const obj = (labels: Record<string, string>, name = 'n', namespace = 'ns'): KubeObject => ({
  metadata: { name, namespace, labels },
});

describe('fake kube-apiserver: pure parts', () => {
  it('parses label selectors like apimachinery', () => {
    const s = parseLabelSelector('env in (prod, stage),tier notin (db),!legacy,app==web,owner');
    assert.equal(s(obj({ env: 'prod', tier: 'fe', app: 'web', owner: 'x' })), true);
    assert.equal(s(obj({ env: 'dev', app: 'web', owner: 'x' })), false);
    assert.equal(s(obj({ env: 'prod', app: 'web', owner: 'x', legacy: '1' })), false);
    assert.equal(s(obj({ env: 'prod', app: 'web' })), false);
    assert.equal(parseLabelSelector('')(obj({})), true);
    assert.throws(() => parseLabelSelector('a in b'), ApiError);
  });

  it('parses field selectors on metadata.name and metadata.namespace only', () => {
    const s = parseFieldSelector('metadata.name=n,metadata.namespace!=other');
    assert.equal(s(obj({})), true);
    assert.equal(s(obj({}, 'm')), false);
    assert.throws(
      () => parseFieldSelector('spec.x=1'),
      (e) => e instanceof ApiError && e.status.code === 400,
    );
  });

  it('applies merge patches and JSON patches (move, copy, test)', () => {
    assert.deepEqual(mergePatch({ a: { b: 1, c: 2 }, d: [1] }, { a: { b: null, e: 3 }, d: [2] }), {
      a: { c: 2, e: 3 },
      d: [2],
    });
    const doc = { a: { b: 1 }, l: [1, 2] };
    const out = jsonPatch(doc, [
      { op: 'copy', from: '/a/b', path: '/c' },
      { op: 'move', from: '/l/0', path: '/l/-' },
      { op: 'add', path: '/a~1b', value: true },
      { op: 'test', path: '/c', value: 1 },
    ]);
    assert.deepEqual(out, { a: { b: 1 }, l: [2, 1], c: 1, 'a/b': true });
    assert.deepEqual(doc, { a: { b: 1 }, l: [1, 2] }, 'the input is left alone');
    assert.throws(() => jsonPatch(doc, [{ op: 'remove', path: '/missing' }]), ApiError);
  });

  it('round-trips FieldsV1 and folds list members into their list', () => {
    const paths = [
      ['spec', 'a'],
      ['spec', 'b', 'c'],
      ['metadata', 'labels', 'x'],
    ];
    assert.deepEqual(fromFieldsV1(toFieldsV1(paths)), paths);
    const fromKubectl = {
      'f:spec': { 'f:ports': { 'k:{"port":80}': { '.': {}, 'f:port': {} } }, 'f:x': {} },
    };
    assert.deepEqual(fromFieldsV1(fromKubectl), [
      ['spec', 'ports'],
      ['spec', 'x'],
    ]);
  });

  it('orders versions like Kubernetes', () => {
    const sorted = ['v1alpha3', 'v1', 'v2beta1', 'v1beta1', 'v1alpha1'].sort(compareVersions).reverse();
    assert.deepEqual(sorted, ['v1', 'v2beta1', 'v1beta1', 'v1alpha3', 'v1alpha1']);
  });
});
