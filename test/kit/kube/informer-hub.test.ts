// The shared informers (src/kit/kube/informer-hub.ts) against the fake kube-apiserver: one list and one watch per
// resource whatever the number of readers, a replay for a late reader, the union of the readers' reductions, and
// an informer that runs while one reader does.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { CoreV1Api, type KubernetesObject } from '@kubernetes/client-node';
import { InformerHub, namespacesWatch, type WatchSpec } from '../../../src/kit/kube/informer-hub.ts';
import { silentLogger } from '../../../src/util/logger.ts';
import { fakeKubeConfig } from '../../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../../fakes/kube-apiserver/index.ts';
import { waitFor } from '../../reconcile/kube-support.ts';

let api: FakeKubeApiServer;

function namespace(name: string, labels: Record<string, string> = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels },
    spec: { finalizers: ['kubernetes'] },
  };
}

function recorder() {
  const seen = new Map<string, KubernetesObject>();
  return {
    seen,
    handlers: {
      upsert: (o: KubernetesObject) => seen.set(o.metadata?.name ?? '', o),
      delete: (o: KubernetesObject) => seen.delete(o.metadata?.name ?? ''),
    },
  };
}

const calls = (verb: string) =>
  api.requests.filter((r) => r.verb === verb && r.path === '/api/v1/namespaces').length;

before(async () => {
  api = await startFakeKubeApiServer();
  api.seed([namespace('shop', { team: 'a' }), namespace('pay', { team: 'b' })]);
});
after(async () => {
  await api.close();
});
beforeEach(() => api.clearRequests());

describe('kit/kube/informer-hub', () => {
  const hubOf = () => new InformerHub({ kc: fakeKubeConfig(api), logger: silentLogger });

  it('lists and watches a resource once for every reader, and replays the cache to a late one', async () => {
    const hub = hubOf();
    const spec = namespacesWatch(fakeKubeConfig(api));
    const a = recorder();
    const b = recorder();
    const first = hub.subscribe(spec, a.handlers);
    const second = hub.subscribe(spec, b.handlers);
    first.start();
    second.start();
    await Promise.all([first.whenSynced(), second.whenSynced()]);
    assert.ok(a.seen.has('shop') && b.seen.has('pay'));
    const late = recorder();
    const third = hub.subscribe(spec, late.handlers);
    third.start();
    assert.ok(third.synced);
    assert.deepEqual([...late.seen.keys()].sort(), [...a.seen.keys()].sort());
    api.seed(namespace('cart'));
    await waitFor(
      () => a.seen.has('cart') && b.seen.has('cart') && late.seen.has('cart'),
      'the new namespace',
    );
    assert.equal(calls('list'), 1);
    assert.equal(calls('watch'), 1);
    assert.deepEqual(hub.keys(), ['/api/v1/namespaces?labelSelector=&fieldSelector=']);
    await Promise.all([first.stop(), second.stop(), third.stop()]);
  });

  it('keeps running while one reader does; a stopped reader hears nothing', async () => {
    const hub = hubOf();
    const spec = namespacesWatch(fakeKubeConfig(api));
    const a = recorder();
    const b = recorder();
    const first = hub.subscribe(spec, a.handlers);
    const second = hub.subscribe(spec, b.handlers);
    first.start();
    second.start();
    await second.whenSynced();
    await first.stop();
    api.seed(namespace('late'));
    await waitFor(() => b.seen.has('late'), 'the namespace seen by the reader still running');
    assert.equal(a.seen.has('late'), false);
    await second.stop();
    api.delete('namespaces', '', 'late');
  });

  it('caches the union of the readers reductions', async () => {
    const hub = hubOf();
    const kc = fakeKubeConfig(api);
    const spec: WatchSpec = {
      ...namespacesWatch(kc),
      list: () => kc.makeApiClient(CoreV1Api).listNamespace(),
    };
    const labels = (o: KubernetesObject): KubernetesObject => ({
      metadata: { name: o.metadata?.name ?? '', labels: o.metadata?.labels ?? {} },
    });
    const finalizers = (o: KubernetesObject): KubernetesObject =>
      ({
        metadata: { name: o.metadata?.name ?? '' },
        spec: (o as { spec?: unknown }).spec,
      }) as KubernetesObject;
    const a = recorder();
    const b = recorder();
    const first = hub.subscribe(spec, a.handlers, { reduce: labels });
    const second = hub.subscribe(spec, b.handlers, { reduce: finalizers });
    first.start();
    second.start();
    await first.whenSynced();
    const shop = a.seen.get('shop') as KubernetesObject & { spec?: unknown; status?: unknown };
    assert.equal(shop.metadata?.labels?.['team'], 'a');
    assert.deepEqual(JSON.parse(JSON.stringify(shop.spec)), { finalizers: ['kubernetes'] });
    assert.equal(shop.status, undefined);
    assert.equal(shop.metadata?.uid, undefined);
    assert.equal(typeof shop.metadata?.resourceVersion, 'string');
    // A reader needing fields the running informer drops is a bug.
    assert.throws(() => hub.subscribe(spec, recorder().handlers, { reduce: (o) => o }), /does not keep/);
    await Promise.all([first.stop(), second.stop()]);
  });
});
