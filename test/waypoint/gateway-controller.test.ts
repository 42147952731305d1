// The Gateway controller against the fake kube-apiserver: our GatewayClass accepted; a Gateway with the one PROXY
// listener accepted, its ServiceAccount, Service, Deployment and Secret created and owned by it, its status
// addresses set (the Service's hostname, then its cluster IP); deleting it deletes them (owner references); a
// Gateway with another listener rejected with the field named, and nothing created for it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../fakes/kube-apiserver/index.ts';
import {
  conditionOf,
  gateway,
  harness,
  PROXY_LISTENER,
  waypointClass,
  type Harness,
} from './gateway-support.ts';

const OWNED = ['serviceaccounts', 'services', 'deployments.apps', 'secrets'] as const;

function ownedBy(o: KubeObject | undefined, gw: KubeObject): boolean {
  const refs = (o?.metadata['ownerReferences'] ?? []) as Record<string, unknown>[];
  return refs.some(
    (r) =>
      r['uid'] === gw.metadata.uid &&
      r['kind'] === 'Gateway' &&
      r['apiVersion'] === 'gateway.networking.k8s.io/v1' &&
      r['name'] === gw.metadata.name &&
      r['controller'] === true &&
      r['blockOwnerDeletion'] === true,
  );
}

describe('waypoint Gateway controller: accepted Gateways and their objects', () => {
  let h: Harness;
  before(async () => {
    h = await harness();
    h.api.seed(waypointClass());
  });
  after(() => h.close());

  it('marks our GatewayClass Accepted and leaves other classes alone', async () => {
    h.api.seed({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'GatewayClass',
      metadata: { name: 'istio-waypoint' },
      spec: { controllerName: 'istio.io/mesh-controller' },
    });
    const cls = () => h.api.get('gatewayclasses.gateway.networking.k8s.io', undefined, 'aeraki-waypoint');
    await h.until(() => conditionOf(cls(), 'Accepted') !== undefined, 'class accepted');
    const c = conditionOf(cls(), 'Accepted')!;
    assert.equal(c['status'], 'True');
    assert.equal(c['observedGeneration'], 1);
    const other = h.api.get('gatewayclasses.gateway.networking.k8s.io', undefined, 'istio-waypoint');
    assert.equal(other?.['status'], undefined);
  });

  it('creates the owned objects of an accepted Gateway and sets its status', async () => {
    const [gw] = h.api.seed(gateway('w', [PROXY_LISTENER]));
    const get = (r: string, name = 'w') => h.api.get(r, 'shop', name);
    await h.until(() => OWNED.every((r) => get(r, r === 'secrets' ? 'w-xds' : 'w') !== undefined), 'objects');
    for (const r of OWNED)
      assert.ok(ownedBy(get(r, r === 'secrets' ? 'w-xds' : 'w'), gw!), `${r} owned by the Gateway`);
    const svc = get('services')!;
    assert.deepEqual((svc['spec'] as Record<string, unknown>)['ports'], [
      { name: 'proxy', port: 15088, targetPort: 15088, protocol: 'TCP' },
    ]);
    assert.equal(svc.metadata.labels?.['gateway.istio.io/managed'], 'istio.io-mesh-controller');
    const pod = (get('deployments.apps')!['spec'] as any).template;
    assert.equal(pod.metadata.labels['gateway.networking.k8s.io/gateway-name'], 'w');
    assert.equal(pod.metadata.labels['istio.io/dataplane-mode'], 'ambient');
    assert.equal(pod.spec.serviceAccountName, 'w');
    assert.equal(pod.spec.containers[0].image, 'docker.io/envoyproxy/envoy:v1.38.4');
    assert.deepEqual(pod.spec.volumes, [{ name: 'xds', secret: { secretName: 'w-xds' } }]);
    assert.equal(pod.spec.containers[0].volumeMounts[0].readOnly, true);
    const status = () => get('gateways.gateway.networking.k8s.io');
    await h.until(() => conditionOf(status(), 'Accepted')?.['status'] === 'True', 'accepted');
    assert.deepEqual((status()!['status'] as any).addresses, [
      { type: 'Hostname', value: 'w.shop.svc.cluster.local' },
    ]);
    assert.equal(conditionOf(status(), 'Accepted')!['observedGeneration'], 1);
    assert.equal(conditionOf(status(), 'Programmed')!['status'], 'Unknown');
    assert.equal(conditionOf(status(), 'Programmed')!['reason'], 'Pending');
    // The cluster IP, once the Service has one, replaces the hostname.
    h.api.seed({ ...svc, spec: { ...(svc['spec'] as object), clusterIP: '10.96.0.15' } }, 'kube-apiserver');
    await h.until(() => (status()!['status'] as any).addresses[0].type === 'IPAddress', 'cluster IP');
    assert.deepEqual((status()!['status'] as any).addresses, [{ type: 'IPAddress', value: '10.96.0.15' }]);
  });

  it('takes the image from the aeraki.io/proxy-image annotation', async () => {
    const image = 'ghcr.io/aeraki-mesh/meta-protocol-proxy:1.4.2';
    h.api.seed(gateway('meta', [PROXY_LISTENER], { 'aeraki.io/proxy-image': image }));
    const deploy = () => h.api.get('deployments.apps', 'shop', 'meta') as any;
    await h.until(() => deploy() !== undefined, 'deployment');
    assert.equal(deploy().spec.template.spec.containers[0].image, image);
  });

  it('a run with nothing changed writes nothing', async () => {
    await h.until(() => h.api.get('deployments.apps', 'shop', 'meta') !== undefined, 'settled');
    await h.controller.reconcile();
    h.api.clearRequests();
    await h.controller.reconcile();
    assert.deepEqual(h.api.writes(), []);
  });

  it('deleting the Gateway deletes what it owns', async () => {
    assert.ok(h.api.delete('gateways.gateway.networking.k8s.io', 'shop', 'w'));
    await h.until(
      () => OWNED.every((r) => h.api.get(r, 'shop', r === 'secrets' ? 'w-xds' : 'w') === undefined),
      'dependents deleted',
    );
  });

  it('rejects a Gateway whose listener is not ours, naming the field, and creates nothing for it', async () => {
    h.api.seed(gateway('bad', [PROXY_LISTENER, { name: 'mesh', port: 15008, protocol: 'HBONE' }]));
    h.api.seed(gateway('tcp', [{ ...PROXY_LISTENER, protocol: 'TCP' }]));
    const gw = (n: string) => h.api.get('gateways.gateway.networking.k8s.io', 'shop', n);
    await h.until(
      () =>
        conditionOf(gw('bad'), 'Accepted') !== undefined && conditionOf(gw('tcp'), 'Accepted') !== undefined,
      'rejected',
    );
    const bad = conditionOf(gw('bad'), 'Accepted')!;
    assert.equal(bad['status'], 'False');
    assert.equal(bad['reason'], 'ListenersNotValid');
    assert.match(String(bad['message']), /^spec\.listeners\[1\]: /);
    const tcp = conditionOf(gw('tcp'), 'Accepted')!;
    assert.match(String(tcp['message']), /^spec\.listeners\[0\]\.protocol: "TCP" is not supported/);
    assert.equal((gw('tcp')!['status'] as any).addresses, undefined, 'no address: not a waypoint');
    for (const n of ['bad', 'tcp']) assert.equal(h.api.get('deployments.apps', 'shop', n), undefined);
    const events = h.api.list('events.events.k8s.io', 'shop').filter((e) => e['reason'] === 'Invalid');
    assert.deepEqual(events.map((e) => (e['regarding'] as any).name).sort(), ['bad', 'tcp']);
  });
});
