import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { fakeKubeConfig } from '../client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer, type KubeObject } from '../index.ts';

const G = { group: 'networking.istio.io', version: 'v1alpha3', plural: 'envoyfilters' };

type Obj = k8s.KubernetesObject & { spec?: unknown };

function ef(name: string, spec: unknown = { a: 1 }): Obj {
  return {
    apiVersion: 'networking.istio.io/v1alpha3',
    kind: 'EnvoyFilter',
    metadata: { name, namespace: 'ns1' },
    spec,
  };
}

/** Resolves when `cond()` holds, polling on the event loop; rejects after `ms`. */
async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

function reasonOf(err: unknown): string {
  assert.ok(err instanceof k8s.ApiException);
  return (JSON.parse(err.body as string) as { reason: string }).reason;
}

describe('fake kube-apiserver: @kubernetes/client-node 1.4', () => {
  let api: FakeKubeApiServer;
  let kc: k8s.KubeConfig;
  before(async () => {
    api = await startFakeKubeApiServer();
    kc = fakeKubeConfig(api, { token: 'client-node' });
  });
  after(() => api.close());

  it('KubernetesObjectApi: server-side apply through discovery', async () => {
    const client = k8s.KubernetesObjectApi.makeApiClient(kc);
    const out = await client.patch(
      ef('ssa1'),
      undefined,
      undefined,
      'aeraki',
      true,
      k8s.PatchStrategy.ServerSideApply,
    );
    assert.equal(out.metadata?.name, 'ssa1');
    assert.equal(out.metadata?.managedFields?.[0]?.manager, 'aeraki');
    const again = await client.patch(
      ef('ssa1', { a: 2 }),
      undefined,
      undefined,
      'aeraki',
      true,
      k8s.PatchStrategy.ServerSideApply,
    );
    assert.equal(again.metadata?.generation, 2);
    const w = api.writes({ verb: 'patch', name: 'ssa1' });
    assert.equal(w.length, 2);
    assert.match(w[0]!.contentType ?? '', /apply-patch\+yaml/);
    assert.equal(w[0]!.query.force, 'true');
    assert.ok(api.requests.some((r) => r.path === '/apis/networking.istio.io/v1alpha3' && r.status === 200));
  });

  it('CustomObjectsApi: list, create, 409 AlreadyExists, replace with a stale resourceVersion', async () => {
    const co = kc.makeApiClient(k8s.CustomObjectsApi);
    const created = await co.createNamespacedCustomObject({ ...G, namespace: 'ns1', body: ef('co1') });
    assert.equal(created.metadata.name, 'co1');
    await assert.rejects(
      co.createNamespacedCustomObject({ ...G, namespace: 'ns1', body: ef('co1') }),
      (e) => {
        assert.equal((e as k8s.ApiException<unknown>).code, 409);
        return reasonOf(e) === 'AlreadyExists';
      },
    );
    const list = await co.listNamespacedCustomObject({ ...G, namespace: 'ns1' });
    assert.ok(list.items.some((i: KubeObject) => i.metadata.name === 'co1'));
    assert.equal(list.metadata.resourceVersion, String(api.resourceVersion()));
    const fresh = await co.replaceNamespacedCustomObject({
      ...G,
      namespace: 'ns1',
      name: 'co1',
      body: { ...created, spec: { a: 2 } },
    });
    assert.equal(fresh.metadata.generation, 2);
    await assert.rejects(
      co.replaceNamespacedCustomObject({
        ...G,
        namespace: 'ns1',
        name: 'co1',
        body: { ...created, spec: { a: 3 } },
      }),
      (e) => reasonOf(e) === 'Conflict',
    );
    const ssa = await co.patchNamespacedCustomObject(
      { ...G, namespace: 'ns1', name: 'co2', body: ef('co2'), fieldManager: 'aeraki', force: true },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply),
    );
    assert.equal(ssa.metadata.name, 'co2');
    const deleted = await co.deleteNamespacedCustomObject({ ...G, namespace: 'ns1', name: 'co2' });
    assert.equal(deleted.metadata.name, 'co2');
  });

  it('Watch: streams events from a resourceVersion', async () => {
    const rv = String(api.resourceVersion());
    const seen: string[] = [];
    let done = false;
    const ctrl = await new k8s.Watch(kc).watch(
      '/apis/networking.istio.io/v1alpha3/namespaces/ns1/envoyfilters',
      { resourceVersion: rv },
      (phase: string, obj: KubeObject) => seen.push(`${phase} ${obj.metadata.name ?? ''}`),
      () => {
        done = true;
      },
    );
    api.seed({ ...ef('wa'), metadata: { name: 'wa', namespace: 'ns1' } });
    api.delete('envoyfilters.networking.istio.io', 'ns1', 'wa');
    await until(() => seen.length >= 2);
    assert.deepEqual(seen, ['ADDED wa', 'DELETED wa']);
    ctrl.abort();
    await until(() => done || api.openWatches === 0);
  });

  it('makeInformer: lists, watches, survives closed watches and relists on 410', async () => {
    const co = kc.makeApiClient(k8s.CustomObjectsApi);
    const path = '/apis/networking.istio.io/v1alpha3/namespaces/inf/envoyfilters';
    const inf = k8s.makeInformer<Obj>(kc, path, () =>
      co.listNamespacedCustomObject({ ...G, namespace: 'inf' }),
    );
    const log: string[] = [];
    const errors: unknown[] = [];
    inf.on('add', (o) => log.push(`add ${o.metadata?.name ?? ''}`));
    inf.on('update', (o) => log.push(`update ${o.metadata?.name ?? ''}`));
    inf.on('delete', (o) => log.push(`delete ${o.metadata?.name ?? ''}`));
    inf.on('error', (e) => errors.push(e));
    api.seed({ ...ef('i1'), metadata: { name: 'i1', namespace: 'inf' } });
    await inf.start();
    try {
      await until(() => log.includes('add i1') && api.openWatches > 0);
      api.seed({ ...ef('i2'), metadata: { name: 'i2', namespace: 'inf' } });
      await until(() => log.includes('add i2'));
      // a normal end of the watch: the informer re-watches from its resourceVersion, no relist
      const lists = (): number =>
        api.requests.filter((r) => r.verb === 'list' && r.namespace === 'inf').length;
      assert.equal(lists(), 1);
      api.closeWatches();
      api.seed({ ...ef('i2', { a: 9 }), metadata: { name: 'i2', namespace: 'inf' } });
      await until(() => log.includes('update i2'));
      assert.equal(lists(), 1);
      // miss events while not watching, then compact: the re-watch gets 410 and the informer relists
      api.faults.inject({ verb: 'watch', namespace: 'inf', delayMs: 300 });
      api.closeWatches();
      api.delete('envoyfilters.networking.istio.io', 'inf', 'i1');
      api.seed({ ...ef('i3'), metadata: { name: 'i3', namespace: 'inf' } });
      api.compact();
      await until(() => log.includes('delete i1') && log.includes('add i3'));
      assert.equal(lists(), 2);
      assert.deepEqual(
        inf
          .list()
          .map((o) => o.metadata?.name)
          .sort(),
        ['i2', 'i3'],
      );
      assert.deepEqual(errors, []);
    } finally {
      await inf.stop();
    }
  });

  it('HTTPS with the test CA, without skipTLSVerify', async () => {
    const secure = await startFakeKubeApiServer({ tls: true });
    try {
      const skc = fakeKubeConfig(secure);
      assert.equal(skc.getCurrentCluster()?.skipTLSVerify, false);
      const core = skc.makeApiClient(k8s.CoreV1Api);
      await core.createNamespacedConfigMap({
        namespace: 'ns1',
        body: { metadata: { name: 'cm' }, data: { k: 'v' } },
      });
      const list = await core.listNamespacedConfigMap({ namespace: 'ns1' });
      assert.deepEqual(
        list.items.map((c) => c.data),
        [{ k: 'v' }],
      );
    } finally {
      await secure.close();
    }
  });
});
