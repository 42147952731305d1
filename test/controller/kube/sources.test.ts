// Informers for the controller's CRDs, the mesh ConfigMap and the Istio fallback source, against the fake
// kube-apiserver over HTTP, into the real ConfigStore.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeSource } from '../../../src/controller/kube/sources.ts';
import { ConfigStore } from '../../../src/controller/store.ts';
import { silentLogger } from '../../../src/util/logger.ts';
import { fakeKubeConfig } from '../../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../../fakes/kube-apiserver/index.ts';
import { refClock } from '../../reconcile/support.ts';
import { waitFor } from '../../reconcile/kube-support.ts';
import { POLICIES_BY_NAMESPACE } from '../../../src/plugins/dubbo/context.ts';
import { exactHostKey, REDIS_SERVICES_BY_HOST } from '../../../src/plugins/redis/context.ts';
import { createPluginKinds } from '../../../src/plugins/registry.ts';

const ROOT = 'istio-system';
const AP = 'applicationprotocols.metaprotocol.aeraki.io';
const MR = 'metarouters.metaprotocol.aeraki.io';
const DAP = 'dubboauthorizationpolicies.dubbo.aeraki.io';

const appProtocol = (name: string, protocol: string, codec: string) => ({
  apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
  kind: 'ApplicationProtocol',
  metadata: { name },
  spec: { protocol, codec },
});
const metaRouter = (ns: string, name: string, hosts: unknown) => ({
  apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
  kind: 'MetaRouter',
  metadata: { namespace: ns, name },
  spec: { hosts, routes: [{ name: 'r', route: [{ destination: { host: 'a.shop.svc.cluster.local' } }] }] },
});
const dubboPolicy = (ns: string, name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'dubbo.aeraki.io/v1alpha1',
  kind: 'DubboAuthorizationPolicy',
  metadata: { namespace: ns, name },
  spec,
});
const serviceEntry = (ns: string, name: string, host: string) => ({
  apiVersion: 'networking.istio.io/v1',
  kind: 'ServiceEntry',
  metadata: { namespace: ns, name },
  spec: { hosts: [host], ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP' }] },
});
const meshConfigMap = (mesh: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace: ROOT, name: 'istio' },
  data: { mesh },
});

function source(api: FakeKubeApiServer, store: ConfigStore, istio: 'auto' | false = false): KubeSource {
  return new KubeSource({
    kc: fakeKubeConfig(api, { token: 'aeraki' }),
    kinds: createPluginKinds(),
    store,
    rootNamespace: ROOT,
    istio,
    backoff: { initialMs: 50, maxMs: 300 },
    minWatchIntervalMs: 20,
    clock: refClock,
    logger: silentLogger,
  });
}

describe('Kubernetes sources (fake kube-apiserver)', () => {
  let api: FakeKubeApiServer;
  before(async () => {
    api = await startFakeKubeApiServer();
  });
  after(async () => {
    await api.close();
  });

  it('lists and watches MetaRouters, ApplicationProtocols and the mesh ConfigMap into the store', async (t) => {
    api.seed([
      appProtocol('brpc', 'brpc', 'aeraki.meta_protocol.codec.brpc'),
      metaRouter('shop', 'good', ['a.shop.svc.cluster.local']),
      metaRouter('shop', 'bad', 'not-a-list'),
      meshConfigMap('accessLogFile: /dev/stdout\n'),
    ]);
    const store = new ConfigStore({ rootNamespace: ROOT });
    const src = source(api, store);
    t.after(() => src.stop());
    assert.equal(src.synced, false);
    await src.whenSynced();
    assert.equal(src.synced, true);
    assert.equal(store.codecFor('brpc'), 'aeraki.meta_protocol.codec.brpc');
    assert.deepEqual(
      store.list('MetaRouter').map((m) => m.metadata.name),
      ['good'],
      'the valid one, not dropped',
    );
    assert.deepEqual(
      store.rejected().map((r) => `${r.ref.kind} ${r.ref.name} ${r.issues[0]?.path ?? ''}`),
      ['MetaRouter bad spec.hosts'],
    );
    assert.equal(store.mesh().accessLogFile, '/dev/stdout');

    // Watch: updates, deletes (ApplicationProtocol deletion unregisters its codec), mesh changes.
    api.seed(metaRouter('shop', 'bad', ['b.shop.svc.cluster.local']));
    api.delete(AP, undefined, 'brpc');
    api.seed(meshConfigMap('accessLogFile: /tmp/x\n'));
    await waitFor(
      () =>
        store.list('MetaRouter').length === 2 &&
        store.codecFor('brpc') === undefined &&
        store.mesh().accessLogFile === '/tmp/x',
      'watch events in the store',
    );
    assert.deepEqual(store.rejected(), []);
    api.delete('configmaps', ROOT, 'istio');
    await waitFor(() => store.mesh().accessLogFile === '', 'mesh defaults after the ConfigMap is deleted');
  });

  it('lists and watches DubboAuthorizationPolicies; an invalid one is rejected with its field', async (t) => {
    api.seed([
      dubboPolicy('rpc', 'deny-guests', {
        action: 'DENY',
        rules: [{ from: [{ source: { namespaces: ['guest'] } }] }],
      }),
      dubboPolicy('rpc', 'scoped', { selector: { matchLabels: { app: 'billing' } }, rules: [{}] }),
    ]);
    const store = new ConfigStore({ rootNamespace: ROOT });
    const src = source(api, store);
    t.after(() => src.stop());
    await src.whenSynced();
    const names = () => store.indexed(POLICIES_BY_NAMESPACE, 'rpc').map((p) => p.metadata.name);
    assert.deepEqual(names(), ['deny-guests']);
    assert.deepEqual(
      store
        .rejected()
        .map((r) => `${r.ref.kind} ${r.ref.namespace}/${r.ref.name} ${r.issues[0]?.path ?? ''}`),
      ['DubboAuthorizationPolicy rpc/scoped spec.selector'],
    );
    api.seed(dubboPolicy('rpc', 'scoped', { rules: [{}] }));
    api.delete(DAP, 'rpc', 'deny-guests');
    await waitFor(() => names().join() === 'scoped', 'the fixed policy in, the deleted one out');
    assert.deepEqual(store.rejected(), []);
  });

  it('relists after 410 Expired (vanished objects become deletes) and restarts after other errors', async (t) => {
    for (const o of api.list(MR)) api.delete(MR, o.metadata.namespace, o.metadata.name ?? '');
    api.clearRequests();
    api.seed([
      metaRouter('shop', 'm1', ['a.shop.svc.cluster.local']),
      metaRouter('shop', 'm2', ['b.shop.svc.cluster.local']),
    ]);
    const store = new ConfigStore({ rootNamespace: ROOT });
    const src = source(api, store);
    t.after(() => src.stop());
    await src.whenSynced();
    assert.equal(store.list('MetaRouter').length, 2);

    // 410: while watches are down, m1 goes away and the event log is compacted.
    api.faults.inject({ verb: 'watch', resource: 'metarouters', status: 500, times: 2 });
    api.closeWatches();
    api.delete(MR, 'shop', 'm1');
    api.seed(metaRouter('shop', 'm3', ['c.shop.svc.cluster.local']));
    api.compact();
    await waitFor(
      () =>
        store
          .list('MetaRouter')
          .map((m) => m.metadata.name)
          .join() === 'm2,m3',
      'the relist to remove m1 and add m3',
    );
    assert.ok(src.restarts >= 1, 'the informer was restarted after the 500s');
    const lists = api.requests.filter((q) => q.verb === 'list' && q.resource === 'metarouters');
    assert.equal(lists.length, 2, 'one initial list and one relist after 410');
    // And it keeps watching.
    api.seed(metaRouter('shop', 'm4', ['d.shop.svc.cluster.local']));
    await waitFor(() => store.list('MetaRouter').length === 3, 'watch after restart');

    // An outage (connections reset and refused): changes made meanwhile arrive once the API is back.
    const restarts = src.restarts;
    api.setOutage(true);
    await waitFor(() => src.restarts > restarts, 'a failed restart during the outage');
    api.seed(metaRouter('shop', 'm5', ['e.shop.svc.cluster.local']));
    api.delete(MR, 'shop', 'm2');
    api.setOutage(false);
    await waitFor(
      () =>
        store
          .list('MetaRouter')
          .map((m) => m.metadata.name)
          .join() === 'm3,m4,m5',
      'the state after the outage',
    );
  });

  it('reads the Istio kinds from the Kubernetes API (fallback source), v1 when served', async (t) => {
    api.seed(serviceEntry('shop', 'dubbo', 'dubbo.shop.svc.cluster.local'));
    const store = new ConfigStore({ rootNamespace: ROOT });
    const src = source(api, store, 'auto');
    t.after(() => src.stop());
    await src.whenSynced();
    assert.equal(src.istioVersion, 'v1');
    assert.deepEqual(
      store.serviceEntries().map((s) => s.metadata.name),
      ['dubbo'],
    );
    api.seed(serviceEntry('shop', 'two', 'two.shop.svc.cluster.local'));
    await waitFor(() => store.serviceEntries().length === 2, 'a watched ServiceEntry');
    // Another Istio revision's config is invisible (as over MCP); relabelled to it, it leaves the store.
    const canary = serviceEntry('shop', 'canary', 'canary.shop.svc.cluster.local');
    api.seed({ ...canary, metadata: { ...canary.metadata, labels: { 'istio.io/rev': 'canary' } } });
    const two = serviceEntry('shop', 'two', 'two.shop.svc.cluster.local');
    api.seed({ ...two, metadata: { ...two.metadata, labels: { 'istio.io/rev': 'canary' } } });
    await waitFor(() => store.serviceEntries().length === 1, 'the other revision to be ignored');
    assert.deepEqual(
      store.serviceEntries().map((s) => s.metadata.name),
      ['dubbo'],
    );
  });

  it('falls back to v1alpha3 when networking.istio.io/v1 is not served', async (t) => {
    const fault = api.faults.inject({
      path: /^\/apis\/networking\.istio\.io\/v1$/,
      status: 404,
      times: Infinity,
    });
    t.after(() => fault.remove());
    const store = new ConfigStore({ rootNamespace: ROOT });
    const src = source(api, store, 'auto');
    t.after(() => src.stop());
    await src.whenSynced();
    assert.equal(src.istioVersion, 'v1alpha3');
    assert.deepEqual(
      store.serviceEntries().map((s) => s.metadata.name),
      ['dubbo'],
    );
    assert.ok(api.requests.some((q) => q.path === '/apis/networking.istio.io/v1alpha3/serviceentries'));
  });

  it('reads RedisServices and RedisDestinations, and the Secrets they name by name only (used keys only)', async (t) => {
    const secret = (name: string, type: string) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace: 'cache', name, annotations: { note: 'kept out' } },
      type,
      data: { password: Buffer.from('pw\n').toString('base64'), other: Buffer.from('x').toString('base64') },
    });
    api.seed([
      {
        apiVersion: 'redis.aeraki.io/v1alpha1',
        kind: 'RedisService',
        metadata: { namespace: 'cache', name: 'rs' },
        spec: { host: ['r.cache.svc.cluster.local'], settings: { auth: { secret: { name: 'auth' } } } },
      },
      {
        apiVersion: 'redis.aeraki.io/v1alpha1',
        kind: 'RedisDestination',
        metadata: { namespace: 'cache', name: 'bad' },
        spec: { hosts: 'r.cache.svc.cluster.local' },
      },
      secret('auth', 'Opaque'),
      secret('tls', 'kubernetes.io/tls'),
    ]);
    const store = new ConfigStore({ rootNamespace: ROOT });
    api.clearRequests();
    const src = source(api, store);
    t.after(() => src.stop());
    await src.whenSynced();
    assert.deepEqual(
      store
        .indexed(REDIS_SERVICES_BY_HOST, exactHostKey('cache', 'r.cache.svc.cluster.local'))
        .map((o) => o.metadata.name),
      ['rs'],
    );
    const [kept] = store.list('Secret');
    assert.deepEqual(kept?.spec.data, { password: 'pw\n' });
    assert.deepEqual(kept?.metadata.annotations, {});
    const secretCalls = api.requests.filter((q) => q.resource === 'secrets');
    assert.deepEqual(
      secretCalls.map((q) => [q.verb, q.namespace, q.name]),
      [['get', 'cache', 'auth']],
    );
    assert.ok(store.rejected().some((r) => r.ref.kind === 'RedisDestination' && r.ref.name === 'bad'));
  });

  it('a forbidden Secret rejects the object naming it; renaming the Secret drops the old one from the store', async (t) => {
    const rs = (secret: string) => ({
      apiVersion: 'redis.aeraki.io/v1alpha1',
      kind: 'RedisService',
      metadata: { namespace: 'vault', name: 'rs' },
      spec: { host: ['v.vault.svc.cluster.local'], settings: { auth: { secret: { name: secret } } } },
    });
    const secret = (name: string) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace: 'vault', name },
      data: { token: Buffer.from(name).toString('base64') },
    });
    api.seed([rs('one'), secret('one'), secret('two'), secret('locked')]);
    const fault = api.faults.inject({
      verb: 'get',
      resource: 'secrets',
      name: 'locked',
      status: 403,
      times: Infinity,
    });
    t.after(() => fault.remove());
    const store = new ConfigStore({ rootNamespace: ROOT });
    const src = new KubeSource({
      kc: fakeKubeConfig(api, { token: 'aeraki' }),
      kinds: createPluginKinds(),
      store,
      rootNamespace: ROOT,
      backoff: { initialMs: 50, maxMs: 300 },
      minWatchIntervalMs: 20,
      secretRefreshMs: 60_000,
      clock: refClock,
      logger: silentLogger,
    });
    t.after(() => src.stop());
    await src.whenSynced();
    const secrets = () => store.list('Secret').filter((o) => o.metadata.namespace === 'vault');
    assert.deepEqual(
      secrets().map((o) => [o.metadata.name, o.spec.data]),
      [['one', { token: 'one' }]],
    );
    api.seed(rs('two'));
    await waitFor(
      () =>
        secrets()
          .map((o) => o.metadata.name)
          .join() === 'two',
      'the Secret renamed',
    );
    api.seed(rs('locked'));
    const rejected = () =>
      store.rejected().find((r) => r.ref.kind === 'RedisService' && r.ref.namespace === 'vault');
    await waitFor(() => rejected() !== undefined, 'the RedisService rejected');
    assert.match(
      rejected()!.issues[0]!.message,
      /^Secret vault\/locked forbidden: the controller may not get it \(grant verb get/,
    );
    assert.equal(rejected()!.issues[0]!.path, 'spec.settings.auth.secret.name');
    // The last valid version (naming `two`) and its Secret stay in effect.
    assert.equal(store.get('RedisService', 'vault', 'rs')?.spec.settings?.auth?.secret?.name, 'two');
    assert.deepEqual(
      secrets().map((o) => o.metadata.name),
      ['two'],
    );
    assert.ok(src.synced);
  });
});
