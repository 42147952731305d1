// CRDs installed and deleted at run time, and RBAC's 403: over raw HTTP, then with kubectl and client-node.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApiException, CustomObjectsApi } from '@kubernetes/client-node';
import { binary, run } from '../../../support/process.ts';
import { fakeKubeConfig } from '../client.ts';
import { startFakeKubeApiServer, writeKubeconfig, type FakeKubeApiServer } from '../index.ts';
import { call, WatchReader } from './http.ts';

const KUBECTL = binary('/usr/bin/kubectl', 'kubectl');
const REDIS = 'redisservices.redis.aeraki.io';
const RS_PATH = '/apis/redis.aeraki.io/v1alpha1/namespaces/ns1/redisservices';

const redisService = (name: string) => ({
  apiVersion: 'redis.aeraki.io/v1alpha1',
  kind: 'RedisService',
  metadata: { name, namespace: 'ns1' },
  spec: { host: ['r.ns1.svc.cluster.local'] },
});

describe('fake kube-apiserver: CRDs and RBAC over HTTP', () => {
  let api: FakeKubeApiServer;
  before(async () => {
    api = await startFakeKubeApiServer({
      omitResources: [REDIS, 'redisdestinations.redis.aeraki.io'],
    });
  });
  after(() => api.close());

  it('a group without CRDs is not discovered, and its paths answer 404', async () => {
    assert.equal((await call(api, 'GET', '/apis/redis.aeraki.io/v1alpha1')).status, 404);
    assert.equal((await call(api, 'GET', '/apis/redis.aeraki.io')).status, 404);
    const groups = (await call(api, 'GET', '/apis')).body.groups as { name: string }[];
    assert.ok(!groups.some((g) => g.name === 'redis.aeraki.io'));
    assert.ok(groups.some((g) => g.name === 'apiextensions.k8s.io'));
    const list = await call(api, 'GET', RS_PATH);
    assert.equal(list.status, 404);
    assert.equal(list.body.reason, 'NotFound');
  });

  it('creating a CRD serves its resource; deleting it deletes its objects and ends its watches', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: REDIS },
      spec: {
        group: 'redis.aeraki.io',
        scope: 'Namespaced',
        names: { kind: 'RedisService', plural: 'redisservices', singular: 'redisservice' },
        versions: [{ name: 'v1alpha1', served: true, storage: true, schema: {} }],
      },
    };
    const created = await call(api, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    assert.equal(created.status, 201);
    const doc = await call(api, 'GET', '/apis/redis.aeraki.io/v1alpha1');
    assert.deepEqual(
      (doc.body.resources as { name: string }[]).map((r) => r.name),
      ['redisservices'],
    );
    assert.equal((await call(api, 'POST', RS_PATH, redisService('a'))).status, 201);
    const w = await WatchReader.open(api, `${RS_PATH}?watch=true`);
    await w.waitFor(1);
    const gone = await call(
      api,
      'DELETE',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${REDIS}`,
    );
    assert.equal(gone.status, 200);
    await w.waitEnd();
    assert.deepEqual(
      w.events.map((e) => `${e.type} ${e.object.metadata.name}`),
      ['ADDED a', 'DELETED a'],
    );
    assert.equal((await call(api, 'GET', RS_PATH)).status, 404);
    assert.equal((await call(api, 'GET', '/apis/redis.aeraki.io/v1alpha1')).status, 404);
  });

  it('forbid answers the authorizer Status, also for a resource that is not served', async () => {
    const f = api.forbid({
      verb: ['list', 'watch'],
      group: 'metaprotocol.aeraki.io',
      resource: 'metarouters',
    });
    const a = await call(api, 'GET', '/apis/metaprotocol.aeraki.io/v1alpha1/metarouters');
    assert.equal(a.status, 403);
    assert.deepEqual(a.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'metarouters.metaprotocol.aeraki.io is forbidden: User "system:anonymous" cannot list resource ' +
        '"metarouters" in API group "metaprotocol.aeraki.io" at the cluster scope',
      reason: 'Forbidden',
      details: { group: 'metaprotocol.aeraki.io', kind: 'metarouters' },
      code: 403,
    });
    const get = await call(api, 'GET', '/apis/metaprotocol.aeraki.io/v1alpha1/namespaces/ns1/metarouters/x');
    assert.equal(get.status, 404, 'get is not forbidden');
    const rs = api.forbid({ verb: 'list', resource: 'redisservices' });
    const b = await call(api, 'GET', RS_PATH);
    assert.equal(b.status, 403, 'RBAC answers before routing');
    assert.match(b.body.message, /cannot list resource "redisservices" .* in the namespace "ns1"$/);
    f.remove();
    rs.remove();
    assert.equal((await call(api, 'GET', '/apis/metaprotocol.aeraki.io/v1alpha1/metarouters')).status, 200);
  });
});

describe('fake kube-apiserver: CRDs and RBAC with kubectl and client-node', () => {
  let api: FakeKubeApiServer;
  let dir: string;
  let kubeconfig: string;
  const kubectl = (...args: string[]) =>
    run(KUBECTL, ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args], 30_000);

  before(async () => {
    api = await startFakeKubeApiServer({
      tls: true,
      omitResources: [REDIS, 'redisdestinations.redis.aeraki.io'],
    });
    dir = mkdtempSync(join(tmpdir(), 'fake-kube-crds-'));
    kubeconfig = writeKubeconfig(api, dir, { token: 'aeraki' });
  });
  after(async () => {
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('kubectl apply of a CRD makes kubectl api-resources and kubectl get see it; delete removes it', async () => {
    const missing = await kubectl('get', 'redisservices', '-A');
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /the server doesn't have a resource type "redisservices"/);
    const file = join(dir, 'crd.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: apiextensions.k8s.io/v1',
        'kind: CustomResourceDefinition',
        `metadata: {name: ${REDIS}}`,
        'spec:',
        '  group: redis.aeraki.io',
        '  scope: Namespaced',
        '  names: {kind: RedisService, plural: redisservices, singular: redisservice, shortNames: [rs]}',
        '  versions:',
        '  - {name: v1alpha1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}',
        '',
      ].join('\n'),
    );
    const applied = await kubectl('apply', '--validate=false', '-f', file);
    assert.equal(applied.code, 0, applied.stderr);
    const resources = await kubectl('api-resources', '--api-group=redis.aeraki.io', '-o', 'name');
    assert.equal(resources.code, 0, resources.stderr);
    assert.equal(resources.stdout.trim(), REDIS);
    api.seed(redisService('seeded'));
    const got = await kubectl('get', 'rs', '-n', 'ns1', '-o', 'name');
    assert.equal(got.code, 0, got.stderr);
    assert.equal(got.stdout.trim(), 'redisservice.redis.aeraki.io/seeded');
    const deleted = await kubectl('delete', 'crd', REDIS);
    assert.equal(deleted.code, 0, deleted.stderr);
    const after = await kubectl('api-resources', '--api-group=redis.aeraki.io', '-o', 'name');
    assert.equal(after.stdout.trim(), '');
  });

  it('kubectl and client-node see the RBAC 403 as from a real server', async () => {
    const f = api.forbid({ verb: ['list', 'watch'], resource: 'metarouters' });
    try {
      const r = await kubectl('get', 'metarouters.metaprotocol.aeraki.io', '-A');
      assert.notEqual(r.code, 0);
      assert.match(
        r.stderr,
        /Error from server \(Forbidden\): metarouters\.metaprotocol\.aeraki\.io is forbidden: User "aeraki" cannot list resource "metarouters" in API group "metaprotocol\.aeraki\.io" at the cluster scope/,
      );
      const client = fakeKubeConfig(api, { token: 'aeraki' }).makeApiClient(CustomObjectsApi);
      const err: unknown = await client
        .listClusterCustomObject({
          group: 'metaprotocol.aeraki.io',
          version: 'v1alpha1',
          plural: 'metarouters',
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      assert.ok(err instanceof ApiException);
      assert.equal(err.code, 403);
      assert.match(String(err.body), /"reason":"Forbidden"/);
    } finally {
      f.remove();
    }
  });
});
