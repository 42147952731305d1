// Owner-reference garbage collection (gc.ts): deleting an owner over HTTP deletes its dependents right after,
// down the chain, with watch-visible deletions; objects owned by others stay; a finalizer holds a dependent.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeKubeApiServer, type FakeKubeApiServer, type KubeObject } from '../index.ts';
import { call } from './http.ts';

const owned = (kind: string, apiVersion: string, name: string, owner: KubeObject): KubeObject => ({
  apiVersion,
  kind,
  metadata: {
    namespace: 'shop',
    name,
    ownerReferences: [
      {
        apiVersion: owner.apiVersion,
        kind: owner.kind,
        name: owner.metadata.name,
        uid: owner.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
  },
});

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('fake kube-apiserver: owner-reference garbage collection', () => {
  let api: FakeKubeApiServer;
  before(async () => {
    api = await startFakeKubeApiServer();
  });
  after(() => api.close());

  it('deleting the owner deletes its dependents, their dependents, and nothing else', async () => {
    const [owner] = api.seed({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: 'shop', name: 'owner' },
    });
    const [deploy] = api.seed(owned('Deployment', 'apps/v1', 'w', owner!));
    api.seed([
      owned('ServiceAccount', 'v1', 'w', owner!),
      owned('Secret', 'v1', 'w-xds', owner!),
      owned('Pod', 'v1', 'w-pod', deploy!),
      { apiVersion: 'v1', kind: 'Secret', metadata: { namespace: 'shop', name: 'other' } },
    ]);
    const held = owned('Service', 'v1', 'held', owner!);
    held.metadata.finalizers = ['example.com/hold'];
    api.seed(held);
    const del = await call(api, 'DELETE', '/api/v1/namespaces/shop/configmaps/owner');
    assert.equal(del.status, 200);
    await settle();
    await settle();
    assert.equal(api.get('deployments.apps', 'shop', 'w'), undefined);
    assert.equal(api.get('serviceaccounts', 'shop', 'w'), undefined);
    assert.equal(api.get('secrets', 'shop', 'w-xds'), undefined);
    assert.equal(api.get('pods', 'shop', 'w-pod'), undefined, 'down the chain');
    assert.ok(api.get('secrets', 'shop', 'other'), 'not a dependent');
    assert.ok(api.get('services', 'shop', 'held')?.metadata.deletionTimestamp, 'a finalizer holds it');
  });
});
