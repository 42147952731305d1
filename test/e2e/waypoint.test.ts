// `aeraki serve --config-source kube --waypoint-envoyfilters` against the fake kube-apiserver: a namespace turned
// ambient and bound to a waypoint Gateway gets the waypoint EnvoyFilter (targetRefs, in the waypoint's namespace;
// /debug/envoyfilters agrees), removing the binding deletes it; a cluster without the Gateway API CRDs stays ready
// with the sidecar filters; and without the flag nothing ambient is asked for.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServe, type RunningServe } from '../../src/app/serve.ts';
import { SOURCE_ANNOTATION } from '../../src/model/constants.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import { WRITE_VERBS } from '../fakes/kube-apiserver/types.ts';
import {
  startFakeKubeApiServer,
  type FakeKubeApiServer,
  type KubeObject,
} from '../fakes/kube-apiserver/index.ts';
import { serveOptions } from './options.ts';
import { httpGet, waitFor } from './support.ts';

const EF = 'envoyfilters.networking.istio.io';
const GROUP = 'gateway.networking.k8s.io';
const SOURCE = 'Service/shop/orders';
const BACKOFF = { initialMs: 50, maxMs: 200 };
const obj = (o: Record<string, unknown>) => o as unknown as KubeObject;

const orders = obj({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { namespace: 'shop', name: 'orders', annotations: { interface: 'org.example.Orders' } },
  spec: {
    clusterIP: '10.96.20.1',
    selector: { app: 'orders' },
    ports: [{ name: 'tcp-dubbo', port: 20880, protocol: 'TCP' }],
  },
});

const namespace = (labels: Record<string, string>) =>
  obj({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', labels } });
const AMBIENT = { 'istio.io/dataplane-mode': 'ambient', 'istio.io/use-waypoint': 'waypoint' };

// A waypoint as `istioctl waypoint apply` writes it, with the address istiod's deployment controller reports.
const waypoint = obj({
  apiVersion: `${GROUP}/v1`,
  kind: 'Gateway',
  metadata: { namespace: 'shop', name: 'waypoint' },
  spec: {
    gatewayClassName: 'istio-waypoint',
    listeners: [{ name: 'mesh', port: 15008, protocol: 'HBONE' }],
  },
  status: { addresses: [{ type: 'IPAddress', value: '10.96.1.10' }] },
});
const waypointClass = obj({
  apiVersion: `${GROUP}/v1`,
  kind: 'GatewayClass',
  metadata: { name: 'istio-waypoint' },
  spec: { controllerName: 'istio.io/mesh-controller' },
});

function installGatewayApi(api: FakeKubeApiServer): void {
  api.installCrd({ group: GROUP, versions: ['v1'], kind: 'Gateway', plural: 'gateways', namespaced: true });
  api.installCrd({
    group: GROUP,
    versions: ['v1'],
    kind: 'GatewayClass',
    plural: 'gatewayclasses',
    namespaced: false,
  });
}

const filtersOf = (api: FakeKubeApiServer) =>
  api.list(EF).filter((o) => o.metadata.annotations?.[SOURCE_ANNOTATION] === SOURCE);
const waypointFilters = (api: FakeKubeApiServer) =>
  filtersOf(api).filter((o) => (o.spec as Record<string, unknown>)['targetRefs'] !== undefined);
const sidecarFilters = (api: FakeKubeApiServer) =>
  filtersOf(api).filter((o) => (o.spec as Record<string, unknown>)['targetRefs'] === undefined);

async function serve(api: FakeKubeApiServer, waypointFilters: boolean): Promise<RunningServe> {
  const o = serveOptions({
    configSource: 'kube',
    rdsInsecure: true,
    leaderElect: false,
    namespaceBootstrap: false,
    debugEndpoints: true,
    waypointFilters,
  });
  return startServe(o, {
    logger: silentLogger,
    kubeConfig: fakeKubeConfig(api),
    backoff: BACKOFF,
    discovery: { rediscoverMs: 100 },
  });
}

describe('aeraki serve --waypoint-envoyfilters: a namespace bound to a waypoint', () => {
  let api: FakeKubeApiServer;
  let running: RunningServe;
  before(async () => {
    api = await startFakeKubeApiServer();
    installGatewayApi(api);
    api.seed([namespace({}), orders, waypoint, waypointClass]);
    running = await serve(api, true);
  });
  after(async () => {
    await running.stop();
    await api.close();
  });

  it('writes the waypoint EnvoyFilter when the namespace turns ambient, and deletes it when the binding goes', async () => {
    await running.synced;
    await waitFor(() => sidecarFilters(api).length > 0, 'the sidecar filters of shop/orders');
    assert.deepEqual(waypointFilters(api), [], 'not ambient yet: no waypoint filter');

    api.seed(namespace(AMBIENT));
    await waitFor(() => waypointFilters(api).length === 1, 'the waypoint filter');
    const [filter] = waypointFilters(api);
    assert.equal(filter!.metadata.namespace, 'shop', "in the waypoint's namespace");
    const spec = filter!.spec as Record<string, unknown>;
    assert.deepEqual(spec['targetRefs'], [{ group: GROUP, kind: 'Gateway', name: 'waypoint' }]);
    assert.equal(spec['workloadSelector'], undefined);
    assert.match(JSON.stringify(spec), /main_internal/);
    assert.match(JSON.stringify(spec), /dubbo_proxy/);
    // /debug/envoyfilters generates as the reconciler does: the waypoint filter is desired, not to be deleted.
    const debug = JSON.parse((await httpGet(`http://${running.debugAddress!}/debug/envoyfilters`)).body) as {
      desired: KubeObject[];
      diff: { delete: unknown[] };
    };
    assert.ok(debug.desired.some((o) => o.metadata.name === filter!.metadata.name));
    assert.deepEqual(debug.diff.delete, []);

    api.seed(namespace({ 'istio.io/dataplane-mode': 'ambient' }));
    await waitFor(() => waypointFilters(api).length === 0, 'the waypoint filter deleted');
    assert.ok(sidecarFilters(api).length > 0, 'the sidecar filters stay');
  });
});

describe('aeraki serve --waypoint-envoyfilters: a cluster without the Gateway API CRDs', () => {
  it('is ready and writes the sidecar filters as before', async () => {
    const api = await startFakeKubeApiServer();
    api.seed([namespace(AMBIENT), orders]);
    const running = await serve(api, true);
    try {
      await running.synced;
      await waitFor(() => sidecarFilters(api).length > 0, 'the sidecar filters of shop/orders');
      assert.equal((await httpGet(`http://${running.adminAddress}/readyz`)).status, 200);
      assert.deepEqual(waypointFilters(api), []);
    } finally {
      await running.stop();
      await api.close();
    }
  });
});

describe('aeraki serve without --waypoint-envoyfilters', () => {
  // Gateways and GatewayClasses are read whatever the flag (our own waypoints, issue 39); Istio's waypoint gets no
  // filter and no Gateway API object of another class is written to.
  it('writes no waypoint filter and no Gateway API object of another class, even for a bound namespace', async () => {
    const api = await startFakeKubeApiServer();
    installGatewayApi(api);
    api.seed([namespace(AMBIENT), orders, waypoint, waypointClass]);
    const running = await serve(api, false);
    try {
      await running.synced;
      await waitFor(() => sidecarFilters(api).length > 0, 'the sidecar filters of shop/orders');
      await running.reconciler.runNow();
      assert.deepEqual(waypointFilters(api), []);
      const writes = api.requests
        .filter((r) => r.group === GROUP && r.verb !== undefined && WRITE_VERBS.includes(r.verb))
        .map((r) => `${r.verb} ${r.resource}`);
      assert.deepEqual(writes, []);
    } finally {
      await running.stop();
      await api.close();
    }
  });
});
