// toExisting (kit/kube/bodies.ts) over an informer's cached object: the existing object holds the same labels and
// annotations maps as the cached one (one copy per written object, not two), and only string entries.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { existingFields, toExisting } from '../../../src/kit/kube/bodies.ts';
import { specHash } from '../../../src/kit/owned-content.ts';

const served = {
  apiVersion: 'networking.istio.io/v1alpha3',
  kind: 'EnvoyFilter',
  metadata: {
    name: 'aeraki-orders',
    namespace: 'istio-system',
    resourceVersion: '7',
    labels: { manager: 'Aeraki' },
    annotations: { 'aeraki.io/source': 'ServiceEntry/shop/orders' },
  },
  spec: { configPatches: [] },
};

describe('toExisting', () => {
  it('shares the labels and annotations of the object read', () => {
    const cached = existingFields(served);
    const e = toExisting('EnvoyFilter', cached);
    assert.ok(e);
    assert.equal(e.labels, served.metadata.labels);
    assert.equal(e.annotations, served.metadata.annotations);
    assert.equal(e.specHash, specHash(served.spec));
    assert.equal(toExisting('EnvoyFilter', served)?.specHash, e.specHash);
  });

  it('keeps only the string entries of a map holding others, and reads an absent map as empty', () => {
    const odd = { metadata: { name: 'x', labels: { a: 'b', n: 1 } } };
    const e = toExisting('EnvoyFilter', odd);
    assert.deepEqual(e?.labels, { a: 'b' });
    assert.deepEqual(e?.annotations, {});
    assert.equal(e?.namespace, '');
  });
});
