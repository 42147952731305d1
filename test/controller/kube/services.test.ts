// Kubernetes Services read by the Kubernetes source (`--config-source kube`) from the fake kube-apiserver over
// HTTP, converted into ServiceEntries in the real ConfigStore; not read at all when MCP serves the Istio kinds.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeSource } from '../../../src/controller/kube/sources.ts';
import { ConfigStore } from '../../../src/controller/store.ts';
import { formatIssue } from '../../../src/model/result.ts';
import { silentLogger } from '../../../src/util/logger.ts';
import { fakeKubeConfig } from '../../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../../fakes/kube-apiserver/index.ts';
import { refClock } from '../../reconcile/support.ts';
import { waitFor } from '../../reconcile/kube-support.ts';
import { createPluginKinds } from '../../../src/plugins/registry.ts';

const ROOT = 'istio-system';

const service = (ns: string, name: string, clusterIP: string, portName = 'tcp-metaprotocol-dubbo') => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { namespace: ns, name, labels: { 'istio.io/rev': 'canary' } },
  spec: { clusterIP, selector: { app: name }, ports: [{ name: portName, port: 20880, targetPort: 20880 }] },
});

function source(api: FakeKubeApiServer, store: ConfigStore, services: boolean): KubeSource {
  return new KubeSource({
    kc: fakeKubeConfig(api, { token: 'aeraki' }),
    kinds: createPluginKinds(),
    store,
    rootNamespace: ROOT,
    istio: services ? 'v1' : false,
    services,
    clusterDomain: 'corp.example',
    backoff: { initialMs: 50, maxMs: 300 },
    minWatchIntervalMs: 20,
    clock: refClock,
    logger: silentLogger,
  });
}

const entries = (store: ConfigStore) =>
  store
    .serviceEntries()
    .map((s) => `${s.kind} ${s.metadata.name} ${s.spec.hosts[0]} ${s.spec.addresses.join()}`);

describe('Kubernetes Services from the Kubernetes source (fake kube-apiserver)', () => {
  let api: FakeKubeApiServer;
  before(async () => {
    api = await startFakeKubeApiServer();
  });
  after(async () => {
    await api.close();
  });

  it('lists and watches Services of every namespace as ServiceEntries (any revision label)', async (t) => {
    api.seed([service('shop', 'provider', '10.96.0.20'), service('kafka', 'zk', 'None')]);
    const store = new ConfigStore({ rootNamespace: ROOT, clusterDomain: 'corp.example' });
    const src = source(api, store, true);
    t.after(() => src.stop());
    await src.whenSynced();
    assert.deepEqual(entries(store), [
      'Service zk zk.kafka.svc.corp.example ',
      'Service provider provider.shop.svc.corp.example 10.96.0.20',
    ]);
    assert.deepEqual(store.get('Service', 'shop', 'provider')?.spec.workloadSelector, {
      labels: { app: 'provider' },
    });

    // Watch: a new Service, an invalid one (rejected, naming the Service), a delete.
    api.seed(service('shop', 'second', '10.96.0.21'));
    api.seed({ ...service('shop', 'bad', '10.96.0.22'), spec: { ports: [{ name: 'x', port: 'high' }] } });
    api.delete('services', 'kafka', 'zk');
    await waitFor(
      () => store.serviceEntries().length === 2 && store.rejected().length === 1,
      'watch events in the store',
    );
    assert.deepEqual(
      store.serviceEntries().map((s) => s.metadata.name),
      ['provider', 'second'],
    );
    assert.deepEqual(
      store.rejected().flatMap((r) => r.issues.map(formatIssue)),
      ['Service shop/bad: spec.ports[0].port: expected a number, got string "high"'],
    );
    assert.ok(api.requests.some((q) => q.path.startsWith('/api/v1/services')));
  });

  it('does not read Services when MCP serves the Istio kinds', async (t) => {
    api.clearRequests();
    const store = new ConfigStore({ rootNamespace: ROOT });
    const src = source(api, store, false);
    t.after(() => src.stop());
    await src.whenSynced();
    assert.deepEqual(store.serviceEntries(), []);
    assert.ok(api.requests.length > 0);
    assert.ok(!api.requests.some((q) => q.path.includes('/services')));
  });
});
