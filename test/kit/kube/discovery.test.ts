// API discovery against the fake kube-apiserver: a resource's scope and status subresource come from the CRD the
// cluster has installed (Aeraki's Helm chart serves ApplicationProtocol namespaced, ours cluster-scoped).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiDiscovery, servedResources } from '../../../src/kit/kube/discovery.ts';
import { fakeKubeConfig } from '../../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../../fakes/kube-apiserver/index.ts';

const AP = { group: 'metaprotocol.aeraki.io', version: 'v1alpha1', plural: 'applicationprotocols' };
const MR = { ...AP, plural: 'metarouters' };
const RS = { group: 'redis.aeraki.io', version: 'v1alpha1', plural: 'redisservices' };

describe('ApiDiscovery.describe', () => {
  let api: FakeKubeApiServer;

  before(async () => {
    api = await startFakeKubeApiServer({ omitResources: ['applicationprotocols.metaprotocol.aeraki.io'] });
  });
  after(() => api.close());

  it('reads our CRDs as installed: ApplicationProtocol cluster-scoped, every kind with /status', async () => {
    const d = new ApiDiscovery(fakeKubeConfig(api));
    assert.equal(await d.describe(AP), undefined);
    api.installCrd('applicationprotocols.metaprotocol.aeraki.io');
    assert.deepEqual(await d.describe(AP), { namespaced: false, status: true });
    assert.deepEqual(await d.describe(MR), { namespaced: true, status: true });
    assert.equal(await d.served(AP), true);
  });

  it('reads a replaced CRD as it is now: namespaced, without the status subresource', async () => {
    const d = new ApiDiscovery(fakeKubeConfig(api));
    api.uninstallCrd('applicationprotocols.metaprotocol.aeraki.io');
    api.installCrd({
      group: AP.group,
      versions: [AP.version],
      kind: 'ApplicationProtocol',
      plural: AP.plural,
      namespaced: true,
      statusSubresource: false,
      deleteReturns: 'object',
    });
    assert.deepEqual(await d.describe(AP), { namespaced: true, status: false });
    assert.equal(await d.describe({ ...RS, version: 'v1' }), undefined, 'a version not served');
  });
});

describe('servedResources', () => {
  it('marks a resource by its status subresource entry, which is not a resource itself', () => {
    const m = servedResources([
      { name: 'metarouters', namespaced: true },
      { name: 'metarouters/status', namespaced: true },
      { name: 'applicationprotocols', namespaced: false },
    ]);
    assert.deepEqual(
      [...m],
      [
        ['metarouters', { namespaced: true, status: true }],
        ['applicationprotocols', { namespaced: false, status: false }],
      ],
    );
  });
});
