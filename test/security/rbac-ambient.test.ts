// RBAC from behaviour for ambient inputs: the Kubernetes source reading them runs against the fake kube-apiserver,
// in `--config-source kube` (Namespaces, Gateways, GatewayClasses) and in `mcp` (Namespaces only: istiod serves the
// Gateway API kinds), with the base install's other reads. The base install grants every call in both modes (the
// reads are made whatever the flags, for our own waypoints); the manifests/ambient component grants nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeSource } from '../../src/controller/kube/sources.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { createPluginKinds } from '../../src/plugins/registry.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import {
  startFakeKubeApiServer,
  type FakeKubeApiServer,
  type KubeObject,
} from '../fakes/kube-apiserver/index.ts';
import { refClock } from '../reconcile/support.ts';
import {
  allows,
  atomsOf,
  attributesOf,
  describeAtom,
  describeAttributes,
  manifestRoles,
} from './rbac-calls.ts';

const GROUP = 'gateway.networking.k8s.io';
const obj = (o: Record<string, unknown>) => o as unknown as KubeObject;

describe('RBAC from behaviour: the ambient component grants exactly the ambient reads', () => {
  let api: FakeKubeApiServer;
  before(async () => {
    api = await startFakeKubeApiServer();
    api.installCrd({ group: GROUP, versions: ['v1'], kind: 'Gateway', plural: 'gateways', namespaced: true });
    api.installCrd({
      group: GROUP,
      versions: ['v1'],
      kind: 'GatewayClass',
      plural: 'gatewayclasses',
      namespaced: false,
    });
    api.seed([
      obj({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'shop', labels: { 'istio.io/use-waypoint': 'w' } },
      }),
      obj({
        apiVersion: `${GROUP}/v1`,
        kind: 'Gateway',
        metadata: { namespace: 'shop', name: 'w' },
        spec: {
          gatewayClassName: 'istio-waypoint',
          listeners: [{ name: 'mesh', port: 15008, protocol: 'HBONE' }],
        },
      }),
      obj({
        apiVersion: `${GROUP}/v1`,
        kind: 'GatewayClass',
        metadata: { name: 'istio-waypoint' },
        spec: {},
      }),
    ]);
  });
  after(async () => {
    await api.close();
  });

  async function calls(token: string, kubeMode: boolean) {
    const store = new ConfigStore({ rootNamespace: 'istio-system' });
    const src = new KubeSource({
      kc: fakeKubeConfig(api, { token }),
      kinds: createPluginKinds(),
      store,
      rootNamespace: 'istio-system',
      istio: kubeMode ? 'v1' : false,
      services: kubeMode,
      endpointPorts: store,
      ambient: { target: store, gateways: kubeMode },
      backoff: { initialMs: 50, maxMs: 300 },
      clock: refClock,
      logger: silentLogger,
    });
    try {
      await src.whenSynced();
      if (kubeMode) assert.ok(store.waypoints().gateway('shop', 'w'), 'the Gateway read');
      assert.ok(store.ambientNamespace('shop'), 'the Namespace read');
    } finally {
      await src.stop();
    }
    const out = new Map<string, NonNullable<ReturnType<typeof attributesOf>>>();
    for (const q of api.requests) {
      if (q.token !== token) continue;
      const a = attributesOf(q);
      if (a) out.set(describeAttributes(a), a);
    }
    return [...out.values()];
  }

  it('kube mode: the base install grants every call, and the component grants nothing more', async () => {
    const made = await calls('ambient-kube', true);
    const base = manifestRoles().flatMap(atomsOf);
    const ungranted = made.filter((c) => !base.some((a) => allows(a, c))).map(describeAttributes);
    assert.deepEqual(ungranted, []);
    assert.ok(made.some((c) => c.group === GROUP && c.verb === 'watch' && c.resource === 'gateways'));
    // The Gateway API reads are the base install's since our own waypoints are always served (issue 39): the
    // component only turns --waypoint-envoyfilters on.
    const own = manifestRoles(['ambient'])
      .filter((r) => r.metadata.name === 'aeraki-ambient')
      .flatMap(atomsOf);
    assert.deepEqual(own.map(describeAtom), []);
  });

  it('mcp mode: the base install grants every call (Namespaces only)', async () => {
    const made = await calls('ambient-mcp', false);
    const base = manifestRoles().flatMap(atomsOf);
    assert.deepEqual(made.filter((c) => !base.some((a) => allows(a, c))).map(describeAttributes), []);
    assert.ok(made.some((c) => c.resource === 'namespaces'));
    assert.ok(!made.some((c) => c.group === GROUP));
  });
});
