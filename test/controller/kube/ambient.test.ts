// Ambient inputs read by the Kubernetes source from the fake kube-apiserver over HTTP: Namespaces always (when
// asked), Gateway API Gateways and GatewayClasses where MCP does not serve them. A cluster without the Gateway API
// CRDs is synced with no waypoints (not installed: read as empty), and the CRDs installed later are picked up.
// Without the option nothing of it is requested (least privilege).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { reduceGateway } from '../../../src/controller/kube/ambient.ts';
import { KubeSource } from '../../../src/controller/kube/sources.ts';
import { ConfigStore } from '../../../src/controller/store.ts';
import { waypointOf } from '../../../src/model/ambient/binding.ts';
import type { ConfigEvent } from '../../../src/model/view.ts';
import { silentLogger } from '../../../src/util/logger.ts';
import { fakeKubeConfig } from '../../fakes/kube-apiserver/client.ts';
import {
  startFakeKubeApiServer,
  type FakeKubeApiServer,
  type KubeObject,
} from '../../fakes/kube-apiserver/index.ts';
import { waitFor } from '../../reconcile/kube-support.ts';
import { refClock } from '../../reconcile/support.ts';

const ROOT = 'istio-system';
const GROUP = 'gateway.networking.k8s.io';
const GATEWAYS = {
  group: GROUP,
  versions: ['v1beta1', 'v1'],
  kind: 'Gateway',
  plural: 'gateways',
  namespaced: true,
};
const CLASSES = {
  group: GROUP,
  versions: ['v1beta1', 'v1'],
  kind: 'GatewayClass',
  plural: 'gatewayclasses',
  namespaced: false,
};
const AMBIENT_RESOURCES = new Set(['namespaces', 'gateways', 'gatewayclasses']);
const obj = (o: Record<string, unknown>) => o as unknown as KubeObject;

const namespace = (labels: Record<string, string>) =>
  obj({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', labels } });

const waypointRaw = {
  apiVersion: `${GROUP}/v1`,
  kind: 'Gateway',
  metadata: {
    namespace: 'shop',
    name: 'waypoint',
    annotations: { 'kubectl.kubernetes.io/last-applied': '{}' },
  },
  spec: {
    gatewayClassName: 'istio-waypoint',
    listeners: [{ name: 'mesh', port: 15008, protocol: 'HBONE', tls: { mode: 'Terminate' } }],
  },
  status: { addresses: [{ type: 'IPAddress', value: '10.0.0.9' }], conditions: [{ type: 'Programmed' }] },
};
const waypoint = obj(waypointRaw);

function source(api: FakeKubeApiServer, store: ConfigStore, token: string, ambient: boolean): KubeSource {
  return new KubeSource({
    kc: fakeKubeConfig(api, { token }),
    kinds: [],
    store,
    rootNamespace: ROOT,
    aeraki: false,
    ...(ambient ? { ambient: { target: store, gateways: true } } : {}),
    backoff: { initialMs: 50, maxMs: 300 },
    minWatchIntervalMs: 20,
    discovery: { rediscoverMs: 50 },
    clock: refClock,
    logger: silentLogger,
  });
}

describe('KubeSource: ambient inputs', () => {
  let api: FakeKubeApiServer;
  before(async () => {
    api = await startFakeKubeApiServer();
  });
  after(async () => {
    await api.close();
  });

  it('without the Gateway API CRDs: synced, the Namespaces read, no waypoints; the CRDs installed later are read', async () => {
    api.seed(namespace({ 'istio.io/dataplane-mode': 'ambient', 'istio.io/use-waypoint': 'waypoint' }));
    const store = new ConfigStore({ rootNamespace: ROOT });
    const events: string[] = [];
    store.subscribe((e: ConfigEvent) => events.push(`${e.type} ${e.kind} ${e.namespace}/${e.name}`));
    const src = source(api, store, 'ambient', true);
    try {
      await src.whenSynced();
      assert.equal(src.synced, true, 'a cluster without waypoints is ready');
      assert.deepEqual(
        src
          .kinds()
          .filter((k) => k.kind !== 'Namespace')
          .map((k) => `${k.kind} ${k.phase}`),
        ['Gateway not-installed', 'GatewayClass not-installed'],
      );
      assert.deepEqual(store.ambientNamespace('shop')?.labels, {
        'istio.io/dataplane-mode': 'ambient',
        'istio.io/use-waypoint': 'waypoint',
      });
      const service = { kind: 'Service' as const, namespace: 'shop', name: 'orders', labels: {} };
      const unbound = waypointOf(service, store.ambientNamespace('shop'), store.waypoints());
      assert.equal(!unbound.bound && unbound.reason, 'gateway-missing');

      api.installCrd(GATEWAYS);
      api.installCrd(CLASSES);
      api.seed(waypoint);
      api.seed(
        obj({
          apiVersion: `${GROUP}/v1`,
          kind: 'GatewayClass',
          metadata: { name: 'istio-waypoint' },
          spec: {},
        }),
      );
      await waitFor(() => store.waypoints().gateway('shop', 'waypoint') !== undefined, 'the Gateway read');
      await waitFor(() => store.waypoints().gatewayClass('istio-waypoint') !== undefined, 'the class read');
      assert.equal(src.synced, true);
      const bound = waypointOf(service, store.ambientNamespace('shop'), store.waypoints());
      assert.equal(bound.bound, true, 'bound once the waypoint exists');

      // A label change of the Namespace reaches generation as a Namespace event.
      api.seed(namespace({ 'istio.io/dataplane-mode': 'ambient', 'istio.io/use-waypoint': 'none' }));
      await waitFor(() => events.includes('updated Namespace /shop'), 'the Namespace event');
      api.uninstallCrd({ group: GROUP, resource: 'gateways' });
      await waitFor(() => store.waypoints().gateway('shop', 'waypoint') === undefined, 'the Gateway gone');
      assert.ok(events.includes('deleted KubernetesGateway shop/waypoint'));
      await waitFor(() => src.synced, 'still synced (not installed again)');
    } finally {
      await src.stop();
    }
  });

  it('without the option: no request to namespaces, gateways or gatewayclasses', async () => {
    const store = new ConfigStore({ rootNamespace: ROOT });
    const src = source(api, store, 'no-ambient', false);
    try {
      src.start();
      await src.whenSynced();
    } finally {
      await src.stop();
    }
    const asked = api.requests.filter(
      (q) => q.token === 'no-ambient' && AMBIENT_RESOURCES.has(q.resource ?? ''),
    );
    assert.deepEqual(asked, []);
    assert.equal(store.ambientNamespace('shop'), undefined);
  });

  it('the informer caches a reduced Gateway: the fields read, nothing else', () => {
    assert.deepEqual(reduceGateway(waypointRaw), {
      metadata: { name: 'waypoint', namespace: 'shop', labels: {}, annotations: {} },
      spec: {
        gatewayClassName: 'istio-waypoint',
        listeners: [{ port: 15008, protocol: 'HBONE', allowedRoutes: undefined }],
      },
      status: { addresses: [{ type: 'IPAddress', value: '10.0.0.9' }] },
    });
  });
});
