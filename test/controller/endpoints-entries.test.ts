// The endpoints our waypoint's EDS sends for ServiceEntries: the inline `spec.endpoints` (IP addresses only, the
// port by the service port's name, else targetPort, else the number; labels; weight; kept whole from MCP too), or
// the WorkloadEntries of the ServiceEntry's namespace its workloadSelector selects, read from the fake
// kube-apiserver with real informers (labels of spec and metadata merged, health as istiod reads it); a
// WorkloadEntry relabelled or deleted notifies the ServiceEntries selecting it; a cluster without the WorkloadEntry
// CRD is synced and picks the CRD up later.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { KubeEndpointsView } from '../../src/controller/endpoints-view.ts';
import { decodeToJson } from '../../src/controller/mcp/json-decode.ts';
import { reduceWorkloadEntry, workloadEntryOf } from '../../src/controller/kube/workload-endpoints.ts';
import { loadMcpProtos } from '../../src/kit/mcp-protos.ts';
import type { EndpointsOwner } from '../../src/model/ambient/endpoints.ts';
import type { ServiceEntry } from '../../src/model/objects.ts';
import { parseConfigObject } from '../../src/model/parse/parse.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';
import type { ResourceType } from '../fakes/kube-apiserver/types.ts';
import { waitFor } from '../reconcile/kube-support.ts';
import { refClock } from '../reconcile/support.ts';

const WORKLOAD_ENTRIES: ResourceType = {
  group: 'networking.istio.io',
  versions: ['v1alpha3', 'v1beta1', 'v1'],
  kind: 'WorkloadEntry',
  plural: 'workloadentries',
  namespaced: true,
};
const WE_REF = { group: 'networking.istio.io', resource: 'workloadentries' };

function parsed(raw: unknown): ServiceEntry {
  const r = parseConfigObject(raw);
  assert.ok(r?.ok, JSON.stringify(r?.issues));
  return r.value as ServiceEntry;
}

const serviceEntry = (name: string, spec: Record<string, unknown>, namespace = 'vms') =>
  parsed({
    apiVersion: 'networking.istio.io/v1',
    kind: 'ServiceEntry',
    metadata: { namespace, name },
    spec: { hosts: [`${name}.example.internal`], location: 'MESH_INTERNAL', resolution: 'STATIC', ...spec },
  });

const ports = [
  { name: 'tcp-thrift', number: 9090, targetPort: 9190 },
  { name: 'tcp-redis', number: 6379 },
];
const billing = serviceEntry('billing', { ports, workloadSelector: { labels: { app: 'billing' } } });
const thrift = billing.spec.ports[0]!;
const redis = billing.spec.ports[1]!;

function workloadEntry(
  name: string,
  spec: Record<string, unknown>,
  meta: { labels?: Record<string, string>; annotations?: Record<string, string>; namespace?: string } = {},
  healthy?: 'True' | 'False',
) {
  return {
    apiVersion: 'networking.istio.io/v1',
    kind: 'WorkloadEntry',
    metadata: {
      namespace: meta.namespace ?? 'vms',
      name,
      labels: meta.labels ?? {},
      annotations: meta.annotations ?? {},
    },
    spec: { serviceAccount: 'billing', network: 'vpc', ...spec },
    ...(healthy ? { status: { conditions: [{ type: 'Healthy', status: healthy, reason: 'probe' }] } } : {}),
  };
}

const CHECKED = { 'proxy.istio.io/health-checks-enabled': 'true' };

function view(api: FakeKubeApiServer, entries: readonly ServiceEntry[] = [billing]): KubeEndpointsView {
  return new KubeEndpointsView({
    kc: fakeKubeConfig(api),
    config: { serviceEntries: () => entries },
    backoff: { initialMs: 50, maxMs: 300 },
    minWatchIntervalMs: 20,
    discovery: { rediscoverMs: 50 },
    clock: refClock,
    logger: silentLogger,
  });
}

describe('KubeEndpointsView: ServiceEntries and WorkloadEntries', () => {
  let api: FakeKubeApiServer;
  beforeEach(async () => {
    api = await startFakeKubeApiServer();
  });
  afterEach(async () => {
    await api.close();
  });

  it('sends inline endpoints: IPs only, port by name else targetPort else number, labels, weight', async (t) => {
    const se = serviceEntry('ledger', {
      ports,
      endpoints: [
        { address: '10.1.0.2', ports: { 'tcp-thrift': 7000 }, labels: { version: 'v2' }, weight: 3 },
        { address: '10.1.0.1', labels: { version: 'v1' } },
        { address: 'ledger.vm.example.com' }, // a DNS name: none of ours
        { address: 'unix:///var/run/ledger.sock' },
      ],
    });
    const v = view(api);
    t.after(() => v.stop());
    v.start();
    await v.whenSynced();
    assert.deepEqual(v.endpointsOf(se, se.spec.ports[0]!), [
      { address: '10.1.0.1', port: 9190, labels: { version: 'v1' } },
      { address: '10.1.0.2', port: 7000, labels: { version: 'v2' }, weight: 3 },
    ]);
    assert.deepEqual(
      v.endpointsOf(se, se.spec.ports[1]!).map((e) => [e.address, e.port]),
      [
        ['10.1.0.1', 6379],
        ['10.1.0.2', 6379],
      ],
    );
  });

  it('keeps a bad endpoint port, label or weight out, with a warning, and the ServiceEntry in effect', () => {
    const r = parseConfigObject({
      apiVersion: 'networking.istio.io/v1',
      kind: 'ServiceEntry',
      metadata: { namespace: 'vms', name: 'odd' },
      spec: {
        hosts: ['odd.example.internal'],
        ports,
        endpoints: [
          { address: '10.1.0.1', ports: { 'tcp-thrift': 'x', 'tcp-redis': 6380 }, labels: 7, weight: -1 },
        ],
      },
    });
    assert.ok(r?.ok);
    assert.deepEqual((r.value as ServiceEntry).spec.endpoints, [
      { address: '10.1.0.1', ports: { 'tcp-redis': 6380 } },
    ]);
    assert.deepEqual(
      r.issues.map((i) => [i.severity, i.admission, i.path]),
      [
        ['warning', 'error', 'spec.endpoints[0].ports.tcp-thrift'],
        ['warning', 'error', 'spec.endpoints[0].labels'],
        ['warning', 'error', 'spec.endpoints[0].weight'],
      ],
    );
  });

  it('keeps endpoint ports, labels and weight of a ServiceEntry decoded from MCP', () => {
    const protos = loadMcpProtos();
    const type = protos.bodies.get('type.googleapis.com/istio.networking.v1alpha3.ServiceEntry')!;
    const endpoint = {
      address: '10.1.0.2',
      ports: { 'tcp-thrift': 7000 },
      labels: { version: 'v2' },
      weight: 3,
    };
    const body = type.encode(
      type.fromObject({ hosts: ['ledger.example.internal'], ports, endpoints: [endpoint] }),
    );
    const se = parsed({
      apiVersion: 'networking.istio.io/v1',
      kind: 'ServiceEntry',
      metadata: { namespace: 'vms', name: 'ledger' },
      spec: decodeToJson(type, body.finish()),
    });
    assert.deepEqual(se.spec.endpoints, [endpoint]);
  });

  it('sends the healthy WorkloadEntries the selector selects and notifies their ServiceEntries', async (t) => {
    api.register(WORKLOAD_ENTRIES);
    api.seed([
      workloadEntry('vm-1', {
        address: '10.2.0.1',
        labels: { app: 'billing' },
        ports: { 'tcp-thrift': 9999 },
        weight: 2,
      }),
      // metadata labels win over spec labels (Istio ConvertWorkloadEntry)
      workloadEntry(
        'vm-2',
        { address: '10.2.0.2', labels: { app: 'billing', version: 'v1' } },
        { labels: { version: 'v2' } },
      ),
      workloadEntry('vm-3', { address: '10.2.0.3', labels: { app: 'audit' } }),
      workloadEntry('vm-4', { address: '10.2.0.4', labels: { app: 'billing' } }, { namespace: 'other' }),
      workloadEntry('vm-5', { address: '10.2.0.5', labels: { app: 'billing' } }, { annotations: CHECKED }),
      workloadEntry(
        'vm-6',
        { address: '10.2.0.6', labels: { app: 'billing' } },
        { annotations: CHECKED },
        'True',
      ),
      workloadEntry('vm-7', { address: 'vm-7.example.com', labels: { app: 'billing' } }),
    ]);
    const audit = serviceEntry('audit', { ports, workloadSelector: { labels: { app: 'audit' } } });
    const v = view(api, [audit, billing]);
    const calls: EndpointsOwner[][] = [];
    v.subscribe((owners) => calls.push([...owners]));
    t.after(() => v.stop());
    v.start();
    await v.whenSynced();
    assert.deepEqual(v.endpointsOf(billing, thrift), [
      { address: '10.2.0.1', port: 9999, labels: { app: 'billing' }, weight: 2 },
      { address: '10.2.0.2', port: 9190, labels: { app: 'billing', version: 'v2' } },
      { address: '10.2.0.6', port: 9190, labels: { app: 'billing' } },
    ]);
    assert.deepEqual(
      v.endpointsOf(billing, redis).map((e) => e.port),
      [6379, 6379, 6379],
    );
    await waitFor(() => calls.length > 0, 'the first batch');
    const billingOnly = [{ kind: 'ServiceEntry', namespace: 'vms', name: 'billing' }];
    const next = async (what: string) => {
      const n = calls.length;
      await waitFor(() => calls.length > n, what);
      return calls.slice(n);
    };

    // vm-3 moves from audit to billing: both notified, in one call.
    api.seed(workloadEntry('vm-3', { address: '10.2.0.3', labels: { app: 'billing' } }));
    assert.deepEqual(await next('the relabel'), [
      [{ kind: 'ServiceEntry', namespace: 'vms', name: 'audit' }, ...billingOnly],
    ]);
    assert.ok(v.endpointsOf(billing, thrift).some((e) => e.address === '10.2.0.3'));

    // Another namespace's entry notifies no one here; the health of vm-5 turning True notifies billing.
    api.seed(
      workloadEntry('vm-4', { address: '10.2.0.44', labels: { app: 'billing' } }, { namespace: 'other' }),
    );
    api.seed(
      workloadEntry(
        'vm-5',
        { address: '10.2.0.5', labels: { app: 'billing' } },
        { annotations: CHECKED },
        'True',
      ),
    );
    assert.deepEqual(await next('the health'), [billingOnly]);
    assert.ok(v.endpointsOf(billing, thrift).some((e) => e.address === '10.2.0.5'));

    api.delete(WE_REF, 'vms', 'vm-1');
    assert.deepEqual(await next('the deletion'), [billingOnly]);
    assert.equal(v.endpointsOf(billing, thrift)[0]?.address, '10.2.0.2');
  });

  it('is synced without the WorkloadEntry CRD, and reads WorkloadEntries once it is installed', async (t) => {
    const v = view(api);
    const calls: EndpointsOwner[][] = [];
    v.subscribe((owners) => calls.push([...owners]));
    t.after(() => v.stop());
    v.start();
    await v.whenSynced();
    assert.equal(v.synced(), true);
    assert.deepEqual(
      v.kinds().map((k) => [k.kind, k.phase]),
      [
        ['EndpointSlice', 'served'],
        ['Pod', 'served'],
        ['WorkloadEntry', 'not-installed'],
      ],
    );
    assert.deepEqual(v.endpointsOf(billing, thrift), []);

    api.installCrd(WORKLOAD_ENTRIES);
    api.seed(workloadEntry('vm-1', { address: '10.2.0.1', labels: { app: 'billing' } }));
    await waitFor(() => calls.length > 0, 'the WorkloadEntry once its CRD is installed');
    assert.deepEqual(calls, [[{ kind: 'ServiceEntry', namespace: 'vms', name: 'billing' }]]);
    assert.deepEqual(
      v.endpointsOf(billing, thrift).map((e) => e.address),
      ['10.2.0.1'],
    );
    assert.equal(v.synced(), true);
  });

  it('holds what it reads of a WorkloadEntry only', () => {
    const raw = workloadEntry(
      'vm-6',
      {
        address: '10.2.0.6',
        labels: { app: 'billing' },
        ports: { 'tcp-thrift': 9999 },
        weight: 2,
        locality: 'eu',
      },
      { labels: { version: 'v2' }, annotations: { ...CHECKED, 'kubectl.kubernetes.io/last-applied': '{}' } },
      'True',
    );
    const reduced = reduceWorkloadEntry(raw);
    assert.deepEqual(reduced, {
      metadata: { name: 'vm-6', namespace: 'vms', labels: { version: 'v2' }, annotations: CHECKED },
      spec: { address: '10.2.0.6', ports: { 'tcp-thrift': 9999 }, labels: { app: 'billing' }, weight: 2 },
      status: { conditions: [{ type: 'Healthy', status: 'True' }] },
    });
    assert.deepEqual(workloadEntryOf(reduced), workloadEntryOf(raw));
    assert.deepEqual(workloadEntryOf(reduced), {
      address: '10.2.0.6',
      ports: { 'tcp-thrift': 9999 },
      labels: { app: 'billing', version: 'v2' },
      weight: 2,
      healthy: true,
    });
  });
});
