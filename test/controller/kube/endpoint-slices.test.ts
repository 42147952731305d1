// EndpointSlices read by the Kubernetes source from the fake kube-apiserver over HTTP (D16): only slices labelled
// with their Service are listed and watched; the store learns each Service's ports by port name (what a named
// targetPort resolves to), follows changes and deletes, and the informer keeps no address; with a Service read
// from the API (`--config-source kube`), a slice change regenerates that Service's inbound filter.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { reduceSlice } from '../../../src/controller/kube/endpoint-slices.ts';
import { KubeSource } from '../../../src/controller/kube/sources.ts';
import { ConfigStore } from '../../../src/controller/store.ts';
import { IncrementalGenerator } from '../../../src/envoyfilter/incremental.ts';
import type { EnvoyFilterObject } from '../../../src/model/objects.ts';
import { createGenerators, createPluginKinds } from '../../../src/plugins/registry.ts';
import { silentLogger } from '../../../src/util/logger.ts';
import { fakeKubeConfig } from '../../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../../fakes/kube-apiserver/index.ts';
import { waitFor } from '../../reconcile/kube-support.ts';
import { refClock } from '../../reconcile/support.ts';

const ROOT = 'istio-system';
const SLICES = { group: 'discovery.k8s.io', resource: 'endpointslices' };

function slice(name: string, service: string | undefined, port: number, addresses = ['10.244.0.7']) {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      namespace: 'pay',
      name,
      labels: (service === undefined ? {} : { 'kubernetes.io/service-name': service }) as Record<
        string,
        string
      >,
    },
    addressType: 'IPv4',
    endpoints: addresses.map((a) => ({ addresses: [a], targetRef: { kind: 'Pod', name: `pod-${a}` } })),
    ports: [{ name: 'tcp-dubbo', port, protocol: 'TCP' }],
  };
}

const ledgerService = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { namespace: 'pay', name: 'ledger' },
  spec: {
    clusterIP: '10.96.0.2',
    selector: { app: 'ledger' },
    ports: [{ name: 'tcp-dubbo', port: 20880, targetPort: 'dubbo' }],
  },
};

function source(api: FakeKubeApiServer, store: ConfigStore, services: boolean): KubeSource {
  return new KubeSource({
    kc: fakeKubeConfig(api, { token: 'aeraki' }),
    kinds: createPluginKinds(),
    store,
    rootNamespace: ROOT,
    istio: services ? 'v1' : false,
    services,
    endpointPorts: store,
    backoff: { initialMs: 50, maxMs: 300 },
    minWatchIntervalMs: 20,
    clock: refClock,
    logger: silentLogger,
  });
}

const portsOf = (store: ConfigStore, service: string) => {
  const map = store.endpointPorts('pay', service);
  return map === undefined ? undefined : Object.fromEntries(map);
};

function inboundPorts(objects: readonly { kind: string }[]): unknown[] {
  const f = objects.find(
    (o): o is EnvoyFilterObject =>
      o.kind === 'EnvoyFilter' &&
      (o as EnvoyFilterObject).metadata.name === 'aeraki-inbound-ledger.pay.svc.cluster.local-20880',
  );
  assert.ok(f, 'inbound filter of pay/ledger');
  return f.spec.configPatches.map(
    (p) =>
      (p.match as { listener: { filterChain: { destinationPort: unknown } } }).listener.filterChain
        .destinationPort,
  );
}

describe('EndpointSlices from the Kubernetes source (fake kube-apiserver, D16)', () => {
  let api: FakeKubeApiServer;
  before(async () => {
    api = await startFakeKubeApiServer();
  });
  after(async () => {
    await api.close();
  });

  it('lists and watches labelled slices into the store: ports by name, changes and deletes', async (t) => {
    api.seed([slice('ledger-a', 'ledger', 20881), slice('loose', undefined, 9999)]);
    const store = new ConfigStore({ rootNamespace: ROOT });
    assert.equal(store.endpointPorts('pay', 'ledger'), undefined, 'not read: undefined');
    const src = source(api, store, false);
    t.after(() => src.stop());
    await src.whenSynced();
    assert.deepEqual(portsOf(store, 'ledger'), { 'tcp-dubbo': [20881] });
    const lists = api.requests.filter((r) => r.resource === 'endpointslices' && r.verb === 'list');
    assert.ok(
      lists.length > 0 && lists.every((r) => r.query['labelSelector'] === 'kubernetes.io/service-name'),
    );

    api.seed(slice('ledger-b', 'ledger', 20883, ['10.244.0.8']));
    await waitFor(() => portsOf(store, 'ledger')?.['tcp-dubbo']?.length === 2, 'the second slice');
    assert.deepEqual(portsOf(store, 'ledger'), { 'tcp-dubbo': [20881, 20883] });

    api.seed({ ...slice('ledger-b', 'ledger', 20883), endpoints: [] });
    await waitFor(() => portsOf(store, 'ledger')?.['tcp-dubbo']?.length === 1, 'a slice without endpoints');
    api.delete(SLICES, 'pay', 'ledger-a');
    await waitFor(() => Object.keys(portsOf(store, 'ledger') ?? { x: 1 }).length === 0, 'the delete');
  });

  it('holds no address: each slice is reduced before the informer caches it', () => {
    const reduced = reduceSlice(slice('ledger-a', 'ledger', 20881));
    assert.deepEqual(reduced, {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'ledger-a', namespace: 'pay', labels: { 'kubernetes.io/service-name': 'ledger' } },
      ports: [{ name: 'tcp-dubbo', port: 20881 }],
    });
    assert.ok(!JSON.stringify(reduced).includes('10.244'));
  });

  it('--config-source kube: a named targetPort follows the slices; a slice change regenerates the filter', async (t) => {
    api.seed([ledgerService, slice('ledger-c', 'ledger', 20885)]);
    const store = new ConfigStore({ rootNamespace: ROOT });
    const src = source(api, store, true);
    t.after(() => src.stop());
    await src.whenSynced();
    await waitFor(() => portsOf(store, 'ledger')?.['tcp-dubbo']?.includes(20885) === true, 'slice ledger-c');
    const inc = new IncrementalGenerator(store, createGenerators(), { namespaceScope: false });
    t.after(() => inc.stop());
    const first = inc.update();
    assert.deepEqual(first.issues, [], 'resolved: no warning');
    assert.deepEqual(inboundPorts(first.objects), [20885]);

    api.seed(slice('ledger-c', 'ledger', 20886));
    await waitFor(
      () => portsOf(store, 'ledger')?.['tcp-dubbo']?.includes(20886) === true,
      'the changed port',
    );
    const next = inc.update();
    assert.deepEqual(inc.lastRegenerated(), ['Service/pay/ledger']);
    assert.deepEqual(inboundPorts(next.objects), [20886]);
  });
});
