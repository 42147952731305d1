import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../index.ts';
import { call, EF, envoyFilter } from './http.ts';

describe('fake kube-apiserver: discovery and CRUD over HTTP', () => {
  let api: FakeKubeApiServer;
  before(async () => {
    api = await startFakeKubeApiServer({ now: () => new Date('2026-01-02T03:04:05.678Z') });
  });
  after(() => api.close());

  it('serves discovery documents', async () => {
    assert.equal((await call(api, 'GET', '/version')).body.major, '1');
    assert.deepEqual((await call(api, 'GET', '/api')).body.versions, ['v1']);
    const groups = (await call(api, 'GET', '/apis')).body.groups as any[];
    const istio = groups.find((g) => g.name === 'networking.istio.io');
    assert.equal(istio.preferredVersion.version, 'v1');
    assert.deepEqual(
      istio.versions.map((v: any) => v.version),
      ['v1', 'v1beta1', 'v1alpha3'],
    );
    const rl = (await call(api, 'GET', '/apis/metaprotocol.aeraki.io/v1alpha1')).body;
    const ap = rl.resources.find((r: any) => r.name === 'applicationprotocols');
    assert.equal(ap.namespaced, false);
    assert.equal(ap.kind, 'ApplicationProtocol');
    const core = (await call(api, 'GET', '/api/v1')).body.resources as any[];
    assert.ok(core.some((r) => r.name === 'configmaps' && r.namespaced));
    assert.equal((await call(api, 'GET', '/apis/nope.io/v1')).status, 404);
  });

  it('creates with server-set metadata and answers 409 AlreadyExists', async () => {
    const created = await call(api, 'POST', EF, envoyFilter('c1'));
    assert.equal(created.status, 201);
    const m = created.body.metadata;
    assert.equal(m.namespace, 'ns1');
    assert.equal(m.generation, 1);
    assert.equal(m.creationTimestamp, '2026-01-02T03:04:05Z');
    assert.match(m.uid, /^[0-9a-f-]{36}$/);
    assert.ok(Number(m.resourceVersion) > 1000);
    const again = await call(api, 'POST', EF, envoyFilter('c1'));
    assert.equal(again.status, 409);
    assert.equal(again.body.kind, 'Status');
    assert.equal(again.body.reason, 'AlreadyExists');
    assert.equal(again.body.code, 409);
    const gen = await call(api, 'POST', EF, { ...envoyFilter(''), metadata: { generateName: 'gen-' } });
    assert.match(gen.body.metadata.name, /^gen-[0-9a-z]{5}$/);
    const bad = await call(api, 'POST', EF, envoyFilter('Not_Valid'));
    assert.equal(bad.status, 422);
    assert.equal(bad.body.reason, 'Invalid');
  });

  it('lists with resourceVersion, selectors and all namespaces', async () => {
    api.seed([
      envoyFilter('l1', {}, { app: 'x', tier: 'a' }),
      {
        ...envoyFilter('l2', {}, { app: 'y' }),
        metadata: { name: 'l2', namespace: 'ns2', labels: { app: 'y' } },
      },
    ]);
    const all = await call(api, 'GET', '/apis/networking.istio.io/v1/envoyfilters');
    assert.equal(all.body.kind, 'EnvoyFilterList');
    assert.equal(all.body.metadata.resourceVersion, String(api.resourceVersion()));
    assert.ok(all.body.items.every((i: any) => i.apiVersion === 'networking.istio.io/v1'));
    assert.ok(all.body.items.some((i: any) => i.metadata.namespace === 'ns2'));
    const names = async (q: string): Promise<string[]> =>
      (await call(api, 'GET', `/apis/networking.istio.io/v1/envoyfilters?${q}`)).body.items.map(
        (i: any) => i.metadata.name,
      );
    assert.deepEqual(await names('labelSelector=app%3Dx'), ['l1']);
    assert.deepEqual(await names('labelSelector=app%20in%20(x,y)'), ['l1', 'l2']);
    assert.deepEqual(await names('labelSelector=app%20notin%20(x),app'), ['l2']);
    assert.deepEqual(await names('labelSelector=tier'), ['l1']);
    assert.ok(!(await names('labelSelector=!tier')).includes('l1'));
    assert.ok(!(await names('labelSelector=app!%3Dx')).includes('l1'));
    assert.deepEqual(await names('fieldSelector=metadata.name%3Dl2'), ['l2']);
    assert.deepEqual(await names('fieldSelector=metadata.namespace%3Dns2'), ['l2']);
    const ns1 = await call(api, 'GET', `${EF}?labelSelector=app`);
    assert.deepEqual(
      ns1.body.items.map((i: any) => i.metadata.name),
      ['l1'],
    );
  });

  it('pages lists with limit and continue', async () => {
    api.seed(
      [1, 2, 3, 4, 5].map((i) => ({
        ...envoyFilter(`p${i}`),
        metadata: { name: `p${i}`, namespace: 'page' },
      })),
    );
    const base = '/apis/networking.istio.io/v1alpha3/namespaces/page/envoyfilters';
    const first = await call(api, 'GET', `${base}?limit=2`);
    assert.deepEqual(
      first.body.items.map((i: any) => i.metadata.name),
      ['p1', 'p2'],
    );
    assert.equal(first.body.metadata.remainingItemCount, 3);
    const names: string[] = [];
    let token: string | undefined = first.body.metadata.continue;
    while (token) {
      const page = await call(api, 'GET', `${base}?limit=2&continue=${token}`);
      assert.equal(page.body.metadata.resourceVersion, first.body.metadata.resourceVersion);
      names.push(...page.body.items.map((i: any) => i.metadata.name));
      token = page.body.metadata.continue;
    }
    assert.deepEqual(names, ['p3', 'p4', 'p5']);
    api.seed({ ...envoyFilter('p6'), metadata: { name: 'p6', namespace: 'page' } });
    api.compact();
    const old = await call(api, 'GET', `${base}?limit=2&continue=${first.body.metadata.continue}`);
    assert.equal(old.status, 410);
    assert.equal(old.body.reason, 'Expired');
  });

  it('pages under a label selector carry continue but no remainingItemCount, as the real server', async () => {
    api.seed(
      [1, 2, 3, 4, 5, 6].map((i) => ({
        ...envoyFilter(`s${i}`),
        metadata: { name: `s${i}`, namespace: 'sel', labels: { odd: String(i % 2 === 1) } },
      })),
    );
    const base = '/apis/networking.istio.io/v1alpha3/namespaces/sel/envoyfilters?labelSelector=odd%3Dtrue';
    const first = await call(api, 'GET', `${base}&limit=2`);
    assert.deepEqual(
      first.body.items.map((i: any) => i.metadata.name),
      ['s1', 's3'],
    );
    assert.equal(first.body.metadata.remainingItemCount, undefined);
    const rest = await call(api, 'GET', `${base}&limit=2&continue=${first.body.metadata.continue}`);
    assert.deepEqual(
      rest.body.items.map((i: any) => i.metadata.name),
      ['s5'],
    );
    assert.equal(rest.body.metadata.continue, undefined, 'the last page');
  });

  it('updates with a resourceVersion precondition and bumps generation on spec changes only', async () => {
    const live = (await call(api, 'GET', `${EF}/c1`)).body;
    const upd = await call(api, 'PUT', `${EF}/c1`, { ...live, spec: { a: 2 } });
    assert.equal(upd.status, 200);
    assert.equal(upd.body.metadata.generation, 2);
    const stale = await call(api, 'PUT', `${EF}/c1`, { ...live, spec: { a: 3 } });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.reason, 'Conflict');
    const labelOnly = { ...upd.body, metadata: { ...upd.body.metadata, labels: { l: 'v' } } };
    const upd2 = await call(api, 'PUT', `${EF}/c1`, labelOnly);
    assert.equal(upd2.body.metadata.generation, 2);
    assert.notEqual(upd2.body.metadata.resourceVersion, upd.body.metadata.resourceVersion);
    const same = await call(api, 'PUT', `${EF}/c1`, upd2.body);
    assert.equal(
      same.body.metadata.resourceVersion,
      upd2.body.metadata.resourceVersion,
      'a no-op write stores nothing',
    );
    assert.equal((await call(api, 'PUT', `${EF}/missing`, envoyFilter('missing'))).status, 404);
  });

  it('patches with merge, strategic (as merge) and JSON patch', async () => {
    const merge = await call(api, 'PATCH', `${EF}/c1`, { spec: { b: 1 } }, 'application/merge-patch+json');
    assert.deepEqual(merge.body.spec, { a: 2, b: 1 });
    const smp = await call(
      api,
      'PATCH',
      `${EF}/c1`,
      { spec: { a: null } },
      'application/strategic-merge-patch+json',
    );
    assert.deepEqual(smp.body.spec, { b: 1 });
    const jp = await call(
      api,
      'PATCH',
      `${EF}/c1`,
      [
        { op: 'add', path: '/spec/list', value: [1, 2] },
        { op: 'replace', path: '/spec/b', value: 5 },
        { op: 'remove', path: '/spec/list/0' },
      ],
      'application/json-patch+json',
    );
    assert.deepEqual(jp.body.spec, { b: 5, list: [2] });
    const failing = await call(
      api,
      'PATCH',
      `${EF}/c1`,
      [{ op: 'test', path: '/spec/b', value: 0 }],
      'application/json-patch+json',
    );
    assert.equal(failing.status, 422);
    assert.equal((await call(api, 'PATCH', `${EF}/nope`, {}, 'application/merge-patch+json')).status, 404);
    assert.equal((await call(api, 'PATCH', `${EF}/c1`, {}, 'text/plain')).status, 415);
  });

  it('deletes: the object for custom resources, a Status for core kinds, finalizers respected', async () => {
    const del = await call(api, 'DELETE', `${EF}/c1`);
    assert.equal(del.status, 200);
    assert.equal(del.body.kind, 'EnvoyFilter');
    assert.equal((await call(api, 'GET', `${EF}/c1`)).status, 404);
    assert.equal((await call(api, 'DELETE', `${EF}/c1`)).body.reason, 'NotFound');
    api.seed({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm', namespace: 'ns1' },
      data: { k: 'v' },
    });
    const cm = await call(api, 'DELETE', '/api/v1/namespaces/ns1/configmaps/cm');
    assert.equal(cm.body.kind, 'Status');
    assert.equal(cm.body.status, 'Success');
    api.seed({ ...envoyFilter('fin'), metadata: { name: 'fin', namespace: 'ns1', finalizers: ['x/y'] } });
    const pending = await call(api, 'DELETE', `${EF}/fin`);
    assert.ok(pending.body.metadata.deletionTimestamp);
    assert.ok(api.get('envoyfilters.networking.istio.io', 'ns1', 'fin'));
    await call(api, 'PATCH', `${EF}/fin`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
    assert.equal(api.get('envoyfilters.networking.istio.io', 'ns1', 'fin'), undefined);
  });

  it('serves cluster-scoped resources and the status subresource', async () => {
    const AP = '/apis/metaprotocol.aeraki.io/v1alpha1/applicationprotocols';
    const body = {
      apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
      kind: 'ApplicationProtocol',
      metadata: { name: 'dubbo' },
      spec: { codec: 'c' },
    };
    const created = await call(api, 'POST', AP, { ...body, status: { ignored: true } });
    assert.equal(created.status, 201);
    assert.equal(created.body.metadata.namespace, undefined);
    assert.equal(created.body.status, undefined);
    const st = await call(api, 'PUT', `${AP}/dubbo/status`, {
      ...created.body,
      spec: { codec: 'other' },
      status: { ok: true },
    });
    assert.deepEqual(st.body.status, { ok: true });
    assert.deepEqual(st.body.spec, { codec: 'c' });
    assert.equal(st.body.metadata.generation, 1);
    assert.equal(
      (await call(api, 'GET', `/apis/metaprotocol.aeraki.io/v1alpha1/namespaces/x/applicationprotocols`))
        .status,
      404,
    );
  });
});
