// RBAC from behaviour: the controller's paths run against the fake kube-apiserver (kube config mode as leader with
// VIP allocation, status and Events, namespace bootstrap, a registry with kube output, the webhook, EndpointSlices,
// Secrets by name, drift repairs and deletes; MCP config mode as a standby replica), every request is recorded and
// turned into the attributes the authorizer checks (rbac-calls.ts), and the ClusterRole and Role of
// `kubectl kustomize manifests/`, and those of `helm template charts/aeraki`, must grant exactly those: every call
// allowed, every granted atom used.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServe, type RunningServe } from '../../src/app/serve.ts';
import { parseRegistrySpec } from '../../src/registry/spec.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { se } from '../fakes/istiod/harness.ts';
import { FakeIstiod } from '../fakes/istiod/server.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import {
  startFakeKubeApiServer,
  type FakeKubeApiServer,
  type KubeObject,
} from '../fakes/kube-apiserver/index.ts';
import { FakeRegistryWatcher, provider } from '../fakes/registry/fake-watcher.ts';
import { serveOptions } from '../e2e/options.ts';
import { waitFor } from '../e2e/support.ts';
import { gatewayRaw, gatewayRouterRaw, metaEntry, ROOT } from '../support/lkg-objects.ts';
import {
  allows,
  atomsOf,
  attributesOf,
  describeAtom,
  describeAttributes,
  installRoles,
  type Attributes,
} from './rbac-calls.ts';

const EF = 'envoyfilters.networking.istio.io';
const VS = 'virtualservices.networking.istio.io';
const IFACE = 'org.apache.dubbo.samples.RbacService';
const obj = (o: Record<string, unknown>) => o as unknown as KubeObject;

/** POSTs one AdmissionReview to the webhook (TLS, dev certificate not verified here). */
function review(address: string): Promise<number> {
  const [host, port] = [
    address.slice(0, address.lastIndexOf(':')),
    Number(address.slice(address.lastIndexOf(':') + 1)),
  ];
  const body = JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'u1',
      kind: { group: 'metaprotocol.aeraki.io', version: 'v1alpha1', kind: 'MetaRouter' },
      operation: 'CREATE',
      object: gatewayRouterRaw(true),
    },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host,
        port,
        path: '/validate',
        method: 'POST',
        rejectUnauthorized: false,
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('RBAC from behaviour: manifests/ grant exactly the calls the controller makes', () => {
  let api: FakeKubeApiServer;
  let istiod: FakeIstiod;
  const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-rbac-'));
  const running: RunningServe[] = [];

  before(async () => {
    api = await startFakeKubeApiServer();
    istiod = await FakeIstiod.start({ serve: 'v1' });
    istiod.set([se('orders')]);
  });
  after(async () => {
    for (const r of running.splice(0)) await r.stop();
    await istiod.close();
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('every call is granted and every grant is called', async () => {
    // Installed so their reads are made whole (list, then watch): WorkloadEntries for the waypoints' EDS, the
    // Gateway API kinds for ambient (no Gateway of ours: the waypoint component's grants are rbac-waypoint's).
    api.installCrd({
      group: 'networking.istio.io',
      versions: ['v1'],
      kind: 'WorkloadEntry',
      plural: 'workloadentries',
      namespaced: true,
    });
    for (const [kind, plural, namespaced] of [
      ['Gateway', 'gateways', true],
      ['GatewayClass', 'gatewayclasses', false],
    ] as const) {
      api.installCrd({ group: 'gateway.networking.k8s.io', versions: ['v1'], kind, plural, namespaced });
    }
    api.seed([
      obj({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'shop', labels: { 'istio-injection': 'enabled' } },
      }),
      obj({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ROOT } }),
      // A stale bootstrap ConfigMap of an earlier version: updated.
      obj({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'web', labels: { 'istio-injection': 'enabled' } },
      }),
      obj({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace: 'web', name: 'aeraki-bootstrap-config', labels: { manager: 'Aeraki' } },
        data: { 'custom_bootstrap.json': '{}' },
      }),
      obj(metaEntry),
      obj(gatewayRaw),
      obj(gatewayRouterRaw(true)),
      // Address-less: a VIP is written into it.
      obj({
        apiVersion: 'networking.istio.io/v1',
        kind: 'ServiceEntry',
        metadata: { namespace: 'shop', name: 'cart' },
        spec: {
          hosts: ['cart.shop.svc.cluster.local'],
          ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP' }],
          resolution: 'STATIC',
        },
      }),
      // Invalid: a status condition and an Event.
      obj({
        apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
        kind: 'MetaRouter',
        metadata: { namespace: 'shop', name: 'bad' },
        spec: { hosts: 'x' },
      }),
      // Invalid objects of the other Aeraki kinds: their statuses are written too.
      obj({
        apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
        kind: 'ApplicationProtocol',
        metadata: { name: 'bad' },
        spec: { protocol: 5 },
      }),
      obj({
        apiVersion: 'dubbo.aeraki.io/v1alpha1',
        kind: 'DubboAuthorizationPolicy',
        metadata: { namespace: 'shop', name: 'bad' },
        spec: { action: 'NOPE' },
      }),
      obj({
        apiVersion: 'redis.aeraki.io/v1alpha1',
        kind: 'RedisDestination',
        metadata: { namespace: 'shop', name: 'bad' },
        spec: { hosts: 'x' },
      }),
      obj({
        apiVersion: 'redis.aeraki.io/v1alpha1',
        kind: 'RedisService',
        metadata: { namespace: 'shop', name: 'cache' },
        spec: { host: ['cache.shop.svc.cluster.local'], settings: { auth: { secret: { name: 'redis' } } } },
      }),
      obj({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { namespace: 'shop', name: 'redis' },
        data: { password: 'cHc=' },
      }),
    ]);
    const spec = parseRegistrySpec('zk=zookeeper://127.0.0.1:2181/dubbo?debounce=10ms&namespace=shop');
    assert.ok(spec.ok);
    let watcher: FakeRegistryWatcher | undefined;
    const leader = await startServe(
      serveOptions({
        configSource: 'kube',
        podName: 'aeraki-a',
        devCertsDir: path.join(dir, 'a'),
        allocateVips: true,
        namespaceBootstrap: true,
        webhookAddress: { host: '127.0.0.1', port: 0 },
        registries: [spec.value],
        registryOutput: 'kube',
      }),
      {
        logger: silentLogger,
        kubeConfig: fakeKubeConfig(api, { token: 'aeraki-a' }),
        backoff: { initialMs: 50, maxMs: 200 },
        registryWatcher: (s) => (watcher = new FakeRegistryWatcher(s.name)),
      },
    );
    running.push(leader);
    watcher!.set(IFACE, [provider(IFACE, '10.0.0.1', 20880)], true);
    watcher!.sync();
    const wrote = (m: Parameters<FakeKubeApiServer['writes']>[0]) => api.writes(m).length > 0;
    await waitFor(() => wrote({ verb: 'create', resource: 'envoyfilters' }), 'EnvoyFilters created');
    await waitFor(
      () => wrote({ verb: 'create', resource: 'virtualservices' }),
      'the gateway VirtualService created',
    );
    await waitFor(
      () => wrote({ verb: 'update', resource: 'serviceentries', name: 'cart' }),
      'the VIP written',
    );
    await waitFor(
      () => wrote({ verb: 'create', resource: 'configmaps', namespace: 'shop' }),
      'the bootstrap ConfigMap',
    );
    await waitFor(() => wrote({ verb: 'create', resource: 'serviceentries' }), 'the registry ServiceEntry');
    for (const resource of [
      'metarouters',
      'applicationprotocols',
      'dubboauthorizationpolicies',
      'redisdestinations',
    ]) {
      await waitFor(
        () => wrote({ verb: 'patch', resource }),
        `the status of an invalid object of ${resource}`,
      );
    }
    await waitFor(() => wrote({ verb: 'create', resource: 'events' }), 'an Event');
    assert.equal(await review(leader.webhookAddress!), 200);

    // Drift repairs and changes: updates; removals: deletes.
    const edit = (ref: string, ns: string, name: string, change: (o: KubeObject) => KubeObject) =>
      api.seed(change(api.get(ref, ns, name)!), 'kubectl-edit');
    const ef = api.list(EF)[0]!;
    edit(EF, ef.metadata.namespace!, ef.metadata.name!, (o) => ({
      ...o,
      spec: { ...(o.spec as object), priority: 7 },
    }));
    const vs = api.list(VS)[0]!;
    edit(VS, vs.metadata.namespace!, vs.metadata.name!, (o) => ({
      ...o,
      spec: { ...(o.spec as object), hosts: ['x'] },
    }));
    await running[0]!.reconciler.runNow();
    await waitFor(() => wrote({ verb: 'update', resource: 'envoyfilters' }), 'an EnvoyFilter repaired');
    await waitFor(
      () => wrote({ verb: 'update', resource: 'virtualservices' }),
      'the VirtualService repaired',
    );
    await waitFor(
      () => wrote({ verb: 'update', resource: 'configmaps' }),
      'the bootstrap ConfigMap repaired',
    );
    watcher!.set(IFACE, [provider(IFACE, '10.0.0.2', 20880)]);
    await waitFor(
      () => api.writes({ verb: 'update', resource: 'serviceentries' }).some((w) => w.name !== 'cart'),
      'the registry ServiceEntry updated',
    );
    watcher!.set(IFACE, []);
    await waitFor(
      () => wrote({ verb: 'delete', resource: 'serviceentries' }),
      'the registry ServiceEntry deleted',
    );
    const router = gatewayRouterRaw(true)['metadata'] as { namespace: string; name: string };
    api.delete('metarouters.metaprotocol.aeraki.io', router.namespace, router.name);
    await waitFor(() => wrote({ verb: 'delete', resource: 'virtualservices' }), 'the VirtualService deleted');
    await waitFor(
      () => wrote({ verb: 'delete', resource: 'envoyfilters' }),
      'the gateway EnvoyFilter deleted',
    );
    api.seed(obj({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }));
    await waitFor(() => wrote({ verb: 'delete', resource: 'configmaps' }), 'the bootstrap ConfigMap deleted');

    // A standby replica reading Istio config over MCP.
    const standby = await startServe(
      serveOptions({ istiodAddress: istiod.address, podName: 'aeraki-b', devCertsDir: path.join(dir, 'b') }),
      {
        logger: silentLogger,
        kubeConfig: fakeKubeConfig(api, { token: 'aeraki-b' }),
        backoff: { initialMs: 50, maxMs: 200 },
      },
    );
    running.push(standby);
    await standby.synced;
    await waitFor(
      () => api.requests.some((q) => q.token === 'aeraki-b' && q.resource === 'leases'),
      'the standby read the Lease',
    );
    for (const r of running.splice(0)) await r.stop();

    // Compare.
    const calls = new Map<string, Attributes>();
    for (const q of api.requests) {
      if (q.token !== 'aeraki-a' && q.token !== 'aeraki-b') continue;
      const a = attributesOf(q);
      if (a) calls.set(describeAttributes(a), a);
      else assert.match(q.path, /^\/apis?(\/[^/]+){0,2}$/, `not discovery: ${q.method} ${q.path}`);
    }
    // Both installs: kustomize's manifests/ and the Helm chart's output.
    for (const [install, roles] of installRoles()) {
      const atoms = roles.flatMap(atomsOf);
      const ungranted = [...calls.values()]
        .filter((c) => !atoms.some((a) => allows(a, c)))
        .map(describeAttributes);
      const unused = atoms.filter((a) => ![...calls.values()].some((c) => allows(a, c))).map(describeAtom);
      assert.deepEqual(
        { install, ungranted: ungranted.sort(), unused: unused.sort() },
        { install, ungranted: [], unused: [] },
      );
    }
  });
});
