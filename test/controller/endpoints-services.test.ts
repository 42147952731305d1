// The endpoints our waypoint's EDS sends for Kubernetes Services, read from the fake kube-apiserver with real
// client-node informers: the ready endpoints of the Service's EndpointSlices (ready unset counts, not ready and
// terminating do not), on the slice port named as the service port (a named targetPort resolved), with the labels
// of the Pod each names; changes (a Pod's labels, readiness, deletion) notify the Service, batched; one informer of
// EndpointSlices shared with the Kubernetes source's ports; only addresses, ports and labels are held.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { KubeEndpointsView } from '../../src/controller/endpoints-view.ts';
import { reduceSliceEndpoints, sliceEndpointsOf } from '../../src/controller/kube/workload-endpoints.ts';
import { KubeSource } from '../../src/controller/kube/sources.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { InformerHub } from '../../src/kit/kube/informer-hub.ts';
import type { EndpointsOwner } from '../../src/model/ambient/endpoints.ts';
import type { ServiceEntry } from '../../src/model/objects.ts';
import { parseConfigObject } from '../../src/model/parse/parse.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';
import { waitFor } from '../reconcile/kube-support.ts';
import { refClock } from '../reconcile/support.ts';

const SLICES = { group: 'discovery.k8s.io', resource: 'endpointslices' };

interface Ep {
  readonly ip: string;
  readonly pod?: string;
  readonly conditions?: Record<string, boolean>;
}

function slice(name: string, service: string, endpoints: readonly Ep[], addressType = 'IPv4') {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { namespace: 'pay', name, labels: { 'kubernetes.io/service-name': service } },
    addressType,
    endpoints: endpoints.map((e) => ({
      addresses: [e.ip],
      nodeName: 'node-1',
      zone: 'z1',
      ...(e.conditions ? { conditions: e.conditions } : {}),
      ...(e.pod ? { targetRef: { kind: 'Pod', namespace: 'pay', name: e.pod, uid: 'u' } } : {}),
    })),
    ports: [
      { name: 'tcp-dubbo', port: 20881, protocol: 'TCP' },
      { name: 'metrics', port: 9090, protocol: 'UDP' },
    ],
  };
}

const pod = (name: string, labels: Record<string, string>, annotations: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { namespace: 'pay', name, labels, annotations },
  spec: { containers: [{ name: 'app', image: 'ledger:1', env: [{ name: 'SECRET', value: 'x' }] }] },
  status: { podIP: '10.0.0.1' },
});

function parsed(raw: unknown): ServiceEntry {
  const r = parseConfigObject(raw);
  assert.ok(r?.ok, JSON.stringify(r?.issues));
  return r.value as ServiceEntry;
}

const ledger = parsed({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { namespace: 'pay', name: 'ledger' },
  spec: {
    clusterIP: '10.96.0.2',
    selector: { app: 'ledger' },
    ports: [{ name: 'tcp-dubbo', port: 20880, targetPort: 'dubbo' }],
  },
});
/** istiod's conversion of the same Service, as MCP sends it. */
const synthetic = parsed({
  apiVersion: 'networking.istio.io/v1',
  kind: 'ServiceEntry',
  metadata: { namespace: 'pay', name: 'synthetic-ledger' },
  spec: {
    hosts: ['ledger.pay.svc.cluster.local'],
    addresses: ['10.96.0.2'],
    ports: [{ name: 'tcp-dubbo', number: 20880 }],
    resolution: 'STATIC',
  },
});
const dubbo = ledger.spec.ports[0]!;

function view(api: FakeKubeApiServer, informers?: InformerHub): KubeEndpointsView {
  return new KubeEndpointsView({
    kc: fakeKubeConfig(api),
    ...(informers ? { informers } : {}),
    config: { serviceEntries: () => [] },
    backoff: { initialMs: 50, maxMs: 300 },
    minWatchIntervalMs: 20,
    clock: refClock,
    logger: silentLogger,
  });
}

const addressesOf = (v: KubeEndpointsView, se: ServiceEntry = ledger) =>
  v.endpointsOf(se, dubbo).map((e) => e.address);

describe('KubeEndpointsView: Kubernetes Services (fake kube-apiserver)', () => {
  let api: FakeKubeApiServer;
  beforeEach(async () => {
    api = await startFakeKubeApiServer();
  });
  afterEach(async () => {
    await api.close();
  });

  it('sends the ready endpoints on the named target port, with their Pods labels', async (t) => {
    api.seed([
      pod('ledger-1', { app: 'ledger', version: 'v1' }),
      pod('ledger-2', { app: 'ledger', version: 'v2' }),
      pod('ledger-3', { app: 'ledger', version: 'v1' }),
      slice('ledger-a', 'ledger', [
        { ip: '10.0.0.2', pod: 'ledger-2', conditions: { ready: true, serving: true } },
        { ip: '10.0.0.1', pod: 'ledger-1' }, // no conditions: ready (nil is "true")
        { ip: '10.0.0.3', pod: 'ledger-3', conditions: { ready: false, serving: true, terminating: true } },
        { ip: '10.0.0.4', conditions: { ready: true } }, // no Pod: no labels
      ]),
      slice('ledger-v6', 'ledger', [{ ip: 'fd00::5', pod: 'ledger-2' }], 'IPv6'),
      slice('ledger-fqdn', 'ledger', [{ ip: 'ledger.example.com' }], 'FQDN'),
    ]);
    const v = view(api);
    t.after(() => v.stop());
    assert.equal(v.synced(), false, 'not listed yet');
    v.start();
    await v.whenSynced();
    assert.equal(v.synced(), true);
    assert.deepEqual(v.endpointsOf(ledger, dubbo), [
      { address: '10.0.0.1', port: 20881, labels: { app: 'ledger', version: 'v1' } },
      { address: '10.0.0.2', port: 20881, labels: { app: 'ledger', version: 'v2' } },
      { address: '10.0.0.4', port: 20881, labels: {} },
      { address: 'fd00::5', port: 20881, labels: { app: 'ledger', version: 'v2' } },
    ]);
    assert.deepEqual(v.endpointsOf(synthetic, synthetic.spec.ports[0]!), v.endpointsOf(ledger, dubbo));
    const other = { ...dubbo, name: 'metrics' };
    assert.deepEqual(v.endpointsOf(ledger, other), [], 'a UDP port is no port of ours');
    assert.deepEqual(v.sizes(), { slices: 3, pods: 3, workloadEntries: 0 });
  });

  it('notifies the Service of a Pod relabelled, a readiness change and a deletion, batched', async (t) => {
    api.seed([
      pod('ledger-1', { app: 'ledger', version: 'v1' }),
      slice('ledger-a', 'ledger', [{ ip: '10.0.0.1', pod: 'ledger-1' }]),
      slice('audit-a', 'audit', [{ ip: '10.0.1.1' }]),
    ]);
    const v = view(api);
    const calls: EndpointsOwner[][] = [];
    v.subscribe((owners) => calls.push([...owners]));
    t.after(() => v.stop());
    v.start();
    await v.whenSynced();
    await waitFor(() => calls.length > 0, 'the first batch');
    // Each Service is named as itself and as istiod's synthetic ServiceEntry of it (MCP).
    const owners = (name: string) => [
      { kind: 'Service', namespace: 'pay', name },
      { kind: 'ServiceEntry', namespace: 'pay', name: `synthetic-${name}` },
    ];
    assert.deepEqual(calls[0], [
      { kind: 'Service', namespace: 'pay', name: 'audit' },
      { kind: 'Service', namespace: 'pay', name: 'ledger' },
      { kind: 'ServiceEntry', namespace: 'pay', name: 'synthetic-audit' },
      { kind: 'ServiceEntry', namespace: 'pay', name: 'synthetic-ledger' },
    ]);
    const ledgerOnly = owners('ledger');
    const next = async (what: string) => {
      const n = calls.length;
      await waitFor(() => calls.length > n, what);
      return calls.at(-1);
    };

    // Only what is read counts: an annotation of the Pod notifies nobody (the audit change after it does).
    let seen = calls.length;
    api.seed(pod('ledger-1', { app: 'ledger', version: 'v1' }, { note: 'x' }));
    api.seed(slice('audit-a', 'audit', [{ ip: '10.0.1.2' }]));
    await waitFor(() => calls.length > seen, 'the audit change');
    assert.deepEqual(calls.slice(seen), [owners('audit')]);
    api.seed(pod('ledger-1', { app: 'ledger', version: 'v2' }));
    assert.deepEqual(await next('the relabelled Pod'), ledgerOnly);
    assert.deepEqual(v.endpointsOf(ledger, dubbo)[0]?.labels, { app: 'ledger', version: 'v2' });

    seen = calls.length;
    const notReady = slice('ledger-a', 'ledger', [
      { ip: '10.0.0.1', pod: 'ledger-1', conditions: { ready: false } },
      { ip: '10.0.0.9', pod: 'ledger-9' },
    ]);
    api.seed(notReady);
    assert.deepEqual(await next('readiness'), ledgerOnly);
    assert.deepEqual(addressesOf(v), ['10.0.0.9']);
    api.seed(pod('ledger-9', { app: 'ledger' }));
    assert.deepEqual(await next('the Pod named arrives'), ledgerOnly);
    assert.deepEqual(v.endpointsOf(ledger, dubbo)[0]?.labels, { app: 'ledger' });

    api.delete(SLICES, 'pay', 'ledger-a');
    assert.deepEqual(await next('the deletion'), ledgerOnly);
    assert.deepEqual(addressesOf(v), []);
    assert.ok(calls.slice(seen).every((c) => c.length === 2));
  });

  it('shares one EndpointSlice informer with the Kubernetes source reading ports', async (t) => {
    api.seed([slice('ledger-a', 'ledger', [{ ip: '10.0.0.1' }])]);
    const kc = fakeKubeConfig(api);
    const hub = new InformerHub({ kc, minWatchIntervalMs: 20, clock: refClock, logger: silentLogger });
    const store = new ConfigStore({ rootNamespace: 'istio-system' });
    const v = view(api, hub);
    const src = new KubeSource({
      kc,
      informers: hub,
      kinds: [],
      store,
      rootNamespace: 'istio-system',
      aeraki: false,
      endpointPorts: store,
      clock: refClock,
      logger: silentLogger,
    });
    t.after(async () => {
      await v.stop();
      await src.stop();
    });
    v.start();
    await src.start();
    await Promise.all([v.whenSynced(), src.whenSynced()]);
    assert.deepEqual(Object.fromEntries(store.endpointPorts('pay', 'ledger') ?? []), {
      'tcp-dubbo': [20881],
    });
    assert.deepEqual(addressesOf(v), ['10.0.0.1']);
    const sliceCalls = api.requests.filter((r) => r.resource === 'endpointslices');
    assert.deepEqual(
      sliceCalls.map((r) => r.verb),
      ['list', 'watch'],
    );
    assert.equal(hub.keys().filter((k) => k.includes('endpointslices')).length, 1);
  });

  it('holds addresses, ports and Pod names only: each slice is reduced before it is cached', () => {
    const raw = slice('ledger-a', 'ledger', [
      { ip: '10.0.0.1', pod: 'ledger-1' },
      { ip: '10.0.0.3', pod: 'ledger-3', conditions: { ready: false } },
    ]);
    assert.deepEqual(reduceSliceEndpoints({ ...raw, metadata: { ...raw.metadata, resourceVersion: '7' } }), {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name: 'ledger-a',
        namespace: 'pay',
        resourceVersion: '7',
        labels: { 'kubernetes.io/service-name': 'ledger' },
      },
      ports: [{ name: 'tcp-dubbo', port: 20881 }],
      readyEndpoints: [{ address: '10.0.0.1', pod: 'ledger-1' }],
    });
    // A slice cached whole (a reader of the informer reducing nothing) reads the same.
    assert.deepEqual(sliceEndpointsOf(raw), sliceEndpointsOf(reduceSliceEndpoints(raw)));
  });
});
