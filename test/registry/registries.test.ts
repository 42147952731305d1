// The registries (src/registry/registries.ts, kube-output.ts): bridges driven by in-memory watchers, their
// ServiceEntries written to the fake kube-apiserver over real HTTP, and put straight into the ConfigStore.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { REGISTRY_WATCHERS, Registries, type RegistriesOptions } from '../../src/registry/registries.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { generateAll } from '../../src/envoyfilter/generate-all.ts';
import { parseConfigObject } from '../../src/model/parse/parse.ts';
import type { RegistrySpec } from '../../src/model/registry-bridge.ts';
import { AerakiMetrics } from '../../src/ops/metrics.ts';
import { registerRegistryMetrics } from '../../src/ops/registry-metrics.ts';
import { applyWrites } from '../../src/kit/apply.ts';
import { createGenerators } from '../../src/plugins/registry.ts';
import { EtcdWatcher } from '../../src/registry/etcd/watcher.ts';
import { NacosWatcher } from '../../src/registry/nacos/watcher.ts';
import { parseRegistrySpec } from '../../src/registry/spec.ts';
import { candidateVip } from '../../src/registry/vips.ts';
import { ZooKeeperWatcher } from '../../src/registry/zookeeper/watcher.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { leaderLoopPart, Runtime } from '../../src/kit/runtime.ts';
import { FakeElector } from '../support/fake-elector.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';
import { FakeRegistryWatcher, provider } from '../fakes/registry/fake-watcher.ts';
import { waitFor } from '../reconcile/kube-support.ts';

const SE = 'serviceentries.networking.istio.io';
const IFACE = 'org.apache.dubbo.samples.DemoService';
const HOST = 'org.apache.dubbo.samples.demoservice';

let api: FakeKubeApiServer;
let clock: ManualClock;
let watchers: Map<string, FakeRegistryWatcher>;
let running: Registries[] = [];

before(async () => {
  api = await startFakeKubeApiServer();
});
after(async () => {
  await api.close();
});
beforeEach(async () => {
  await Promise.all(running.map((r) => r.stop()));
  running = [];
  for (const o of api.list(SE)) api.delete(SE, o.metadata.namespace ?? '', o.metadata.name ?? '');
  for (const o of api.list('namespaces')) api.delete('namespaces', '', o.metadata.name ?? '');
  api.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'istio-system' } });
  api.clearRequests();
  clock = new ManualClock(0);
  watchers = new Map();
});

function spec(text: string): RegistrySpec {
  const r = parseRegistrySpec(text);
  if (!r.ok) throw new Error('bad spec');
  return r.value;
}

function registries(o: Partial<RegistriesOptions> & { specs: readonly RegistrySpec[] }): Registries {
  const r = new Registries({
    output: 'kube',
    rootNamespace: 'istio-system',
    istioVersion: 'v1alpha3',
    store: new ConfigStore({ rootNamespace: 'istio-system' }),
    kc: fakeKubeConfig(api),
    watcherFactory: (s) => {
      const w = new FakeRegistryWatcher(s.name);
      watchers.set(s.name, w);
      return w;
    },
    apply: applyWrites,
    resyncMs: 0,
    backoff: { initialMs: 10, maxMs: 50 },
    clock,
    logger: silentLogger,
    ...o,
  });
  running.push(r);
  return r;
}

/** The namespaces are listed (the kube output waits for them). */
async function listed(r: Registries): Promise<void> {
  await waitFor(() => !r.pending().includes('registry namespaces'), 'the namespace informer');
}

/** Past the bridges' debounce, and every recompute done. */
async function settle(r: Registries): Promise<void> {
  clock.advance(500);
  await Promise.all(r.bridges.map((b) => b.idle()));
}

const seWrites = () => api.writes({ resource: 'serviceentries' });
const stored = () => api.list(SE) as any[];

describe('registry ServiceEntries written to the API server', () => {
  it('creates them labelled by registry, then writes nothing while nothing changes', async () => {
    const r = registries({ specs: [spec('zk=zookeeper://zk:2181/dubbo')] });
    await r.start();
    const w = watchers.get('zk')!;
    w.set(IFACE, [provider(IFACE, '10.0.0.1', 20880, { version: '1.0' })], true);
    w.sync();
    await settle(r);
    await waitFor(() => r.bridges[0]!.entries().length === 1, 'the namespace informer');
    const report = await r.kubeOutput!.reconcile();
    assert.equal(report.created, 1);
    const se = stored()[0];
    assert.equal(se.metadata.name, 'zk-org-apache-dubbo-samples-demoservice');
    assert.equal(se.metadata.namespace, 'istio-system');
    assert.equal(se.metadata.labels.manager, 'Aeraki');
    assert.equal(se.metadata.labels.registry, 'zk');
    assert.deepEqual(se.spec.hosts, [HOST]);
    assert.deepEqual(se.spec.addresses, [candidateVip(HOST, 0)]);
    assert.equal(se.spec.endpoints[0].labels.version, '1.0');

    const writes = seWrites().length;
    const again = await r.kubeOutput!.reconcile();
    assert.equal(again.unchanged, 1);
    assert.equal(seWrites().length, writes);

    w.set(IFACE, [provider(IFACE, '10.0.0.1', 20880, { version: '1.0' }), provider(IFACE, '10.0.0.2')]);
    await settle(r);
    clock.advance(500); // the change triggered a run after the output's own debounce
    await r.kubeOutput!.idle();
    assert.equal(api.writes({ resource: 'serviceentries', verb: 'update' }).length, 1);
    assert.equal(stored()[0].spec.endpoints.length, 2);
  });

  it('deletes only once the registry synced in its current session', async () => {
    const r = registries({ specs: [spec('zk=zookeeper://zk:2181/dubbo')] });
    await r.start();
    const w = watchers.get('zk')!;
    w.set(IFACE, [provider(IFACE, '10.0.0.1')], true);
    w.sync();
    await settle(r);
    await waitFor(() => r.bridges[0]!.entries().length === 1, 'the namespace informer');
    await r.kubeOutput!.reconcile();

    w.disconnect();
    w.set(IFACE, [], true);
    await settle(r);
    const down = await r.kubeOutput!.reconcile();
    assert.equal(down.deleted, 0);
    assert.equal(stored().length, 1);

    w.reconnect();
    await settle(r);
    assert.equal((await r.kubeOutput!.reconcile()).deleted, 0);
    assert.equal(api.writes({ resource: 'serviceentries', verb: 'delete' }).length, 0);

    w.sync();
    await settle(r);
    await r.kubeOutput!.reconcile();
    assert.equal(api.writes({ resource: 'serviceentries', verb: 'delete' }).length, 1);
    assert.equal(stored().length, 0);
  });

  it('never deletes what exists before the first sync of a restarted controller', async () => {
    api.seed({
      apiVersion: 'networking.istio.io/v1alpha3',
      kind: 'ServiceEntry',
      metadata: { name: 'zk-old', namespace: 'istio-system', labels: { manager: 'Aeraki', registry: 'zk' } },
      spec: { hosts: ['old.example'], addresses: ['241.1.1.1'], ports: [] },
    });
    const r = registries({ specs: [spec('zk=zookeeper://zk:2181/dubbo')] });
    await r.start();
    await listed(r);
    const report = await r.kubeOutput!.reconcile();
    assert.equal(report.deleted, 0);
    assert.equal(report.kept, 1);
    watchers.get('zk')!.sync();
    await settle(r);
    await r.kubeOutput!.reconcile();
    assert.deepEqual(stored(), []);
  });

  it('leaves ServiceEntries of other registries and unlabelled ones alone', async () => {
    const foreign = (name: string, labels: Record<string, string>) =>
      api.seed({
        apiVersion: 'networking.istio.io/v1alpha3',
        kind: 'ServiceEntry',
        metadata: { name, namespace: 'istio-system', labels },
        spec: { hosts: [`${name}.example`], ports: [] },
      });
    foreign('other-registry', { manager: 'Aeraki', registry: 'nacos' });
    foreign('user-entry', {});
    const r = registries({ specs: [spec('zk=zookeeper://zk:2181/dubbo')] });
    await r.start();
    await listed(r);
    watchers.get('zk')!.sync();
    await settle(r);
    await r.kubeOutput!.reconcile();
    assert.deepEqual(
      stored()
        .map((o) => o.metadata.name)
        .sort(),
      ['other-registry', 'user-entry'],
    );
  });

  it('keeps the VIP already written on an existing ServiceEntry', async () => {
    api.seed({
      apiVersion: 'networking.istio.io/v1alpha3',
      kind: 'ServiceEntry',
      metadata: {
        name: 'zk-org-apache-dubbo-samples-demoservice',
        namespace: 'istio-system',
        labels: { manager: 'Aeraki', registry: 'zk' },
      },
      spec: { hosts: [HOST], addresses: ['241.9.9.9'], ports: [] },
    });
    const r = registries({ specs: [spec('zk=zookeeper://zk:2181/dubbo')] });
    await r.start();
    watchers.get('zk')!.set(IFACE, [provider(IFACE, '10.0.0.1')], true);
    watchers.get('zk')!.sync();
    await settle(r);
    await waitFor(() => r.bridges[0]!.entries().length === 1, 'the namespace informer');
    await r.kubeOutput!.reconcile();
    assert.deepEqual(stored()[0].spec.addresses, ['241.9.9.9']);
  });

  it('skips a missing target namespace until it is created', async () => {
    const r = registries({ specs: [spec('zk=zookeeper://zk:2181/dubbo?targetNamespace=shop')] });
    await r.start();
    await listed(r);
    const w = watchers.get('zk')!;
    w.set(IFACE, [provider(IFACE, '10.0.0.1')], true);
    w.sync();
    await settle(r);
    assert.equal((await r.kubeOutput!.reconcile()).created, 0);
    assert.equal(r.status()[0]!.skipped, 1);
    api.seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
    await waitFor(() => r.bridges[0]!.entries().length === 1, 'namespace shop');
    assert.equal((await r.kubeOutput!.reconcile()).created, 1);
    assert.equal(stored()[0].metadata.namespace, 'shop');
  });

  it('writes nothing until the namespaces are listed (every entry is held back until then)', async () => {
    const fault = api.faults.inject({ verb: 'list', resource: 'namespaces', status: 500, times: Infinity });
    const r = registries({ specs: [spec('zk=zookeeper://zk:2181/dubbo')] });
    await r.start();
    watchers.get('zk')!.sync();
    await settle(r);
    assert.equal(r.synced, false);
    assert.deepEqual(r.pending(), ['registry namespaces']);
    assert.equal((await r.kubeOutput!.reconcile()).skipped, 'not-synced');
    fault.remove();
    await listed(r);
    assert.equal(r.synced, true);
  });

  it('does not write unless leader: the kube output is a leader part, the bridges run on every replica', async () => {
    const r = registries({ specs: [spec('zk=zookeeper://zk:2181/dubbo')] });
    const runtime = new Runtime({ logger: silentLogger, elector: new FakeElector() });
    await runtime.start(leaderLoopPart('registry-output', r.kubeOutput!));
    await r.start();
    await listed(r);
    watchers.get('zk')!.set(IFACE, [provider(IFACE, '10.0.0.1')], true);
    watchers.get('zk')!.sync();
    await settle(r);
    assert.equal(r.synced, true, 'the bridge runs on a standby');
    const report = await r.kubeOutput!.reconcile(); // honoured, but a stopped output writes nothing
    assert.equal(report.interrupted, true);
    assert.equal(seWrites().length, 0);
    await runtime.stop();
  });
});

describe('registry ServiceEntries in the store', () => {
  it('generates EnvoyFilters for a registry service through the real generators', async () => {
    const store = new ConfigStore({ rootNamespace: 'istio-system' });
    const r = registries({
      specs: [spec('zk=zookeeper://zk:2181/dubbo')],
      output: 'mcp',
      kc: undefined,
      store,
    });
    const served: number[] = [];
    const withMcp = registries({
      specs: [spec('nz=zookeeper://zk:2181/dubbo')],
      output: 'mcp',
      kc: undefined,
      store,
      onEntries: (e) => served.push(e.length),
    });
    await r.start();
    await withMcp.start();
    const params = { aeraki_meta_workload_selector: 'dubbo-sample-provider' };
    watchers.get('zk')!.set(IFACE, [provider(IFACE, '10.0.0.1', 20880, { version: 'v1', params })], true);
    watchers.get('zk')!.sync();
    await settle(r);
    const se = store.get('ServiceEntry', 'istio-system', 'zk-org-apache-dubbo-samples-demoservice');
    assert.ok(se);
    assert.deepEqual(se.spec.hosts, [HOST]);
    const out = generateAll(store, createGenerators(), { namespaceScope: false });
    const names = out.objects.map((o) => o.metadata.name);
    const vip = candidateVip(HOST, 0);
    assert.ok(names.includes(`aeraki-outbound-${HOST}-${vip}-20880`), names.join(', '));
    assert.ok(names.includes(`aeraki-inbound-${HOST}-20880`), names.join(', '));

    // The MCP output gets nothing before its registry synced (a partial answer would make istiod drop entries),
    // then the complete set after the sync and after every change.
    watchers.get('nz')!.set(IFACE, [provider(IFACE, '10.0.0.1')]);
    await settle(withMcp);
    assert.deepEqual(served, []);
    watchers.get('nz')!.sync();
    await settle(withMcp);
    assert.deepEqual(served, [1]);
    watchers.get('nz')!.set(IFACE, []);
    await settle(withMcp);
    assert.deepEqual(served, [1, 0]);
  });

  it('answers the MCP output once an empty registry synced', async () => {
    const store = new ConfigStore({ rootNamespace: 'istio-system' });
    const served: number[] = [];
    const r = registries({
      specs: [spec('empty=zookeeper://zk:2181/dubbo')],
      output: 'mcp',
      kc: undefined,
      store,
      onEntries: (e) => served.push(e.length),
    });
    await r.start();
    await settle(r);
    assert.deepEqual(served, [], 'nothing before the sync');
    watchers.get('empty')!.sync();
    await settle(r);
    assert.deepEqual(served, [0], 'a sync that changed nothing is still announced');
  });

  it('keeps the bridge version when the same ServiceEntry comes back through another source', async () => {
    const store = new ConfigStore({ rootNamespace: 'istio-system' });
    const r = registries({
      specs: [spec('zk=zookeeper://zk:2181/dubbo')],
      output: 'mcp',
      kc: undefined,
      store,
    });
    await r.start();
    watchers.get('zk')!.set(IFACE, [provider(IFACE, '10.0.0.1')], true);
    watchers.get('zk')!.sync();
    await settle(r);
    const name = 'zk-org-apache-dubbo-samples-demoservice';
    const mine = store.get('ServiceEntry', 'istio-system', name);
    // The echo from istiod or the API server: same key, different content (older VIP), then gone.
    const echo = parseConfigObject({
      apiVersion: 'networking.istio.io/v1',
      kind: 'ServiceEntry',
      metadata: { name, namespace: 'istio-system', resourceVersion: '7' },
      spec: {
        hosts: [HOST],
        addresses: ['241.0.0.1'],
        ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo' }],
      },
    });
    assert.ok(echo?.ok);
    assert.equal(store.upsert(echo.value), false);
    store.replaceKind('ServiceEntry', [echo.value]);
    store.replaceKind('ServiceEntry', []);
    assert.equal(store.delete('ServiceEntry', 'istio-system', name), false);
    assert.equal(store.get('ServiceEntry', 'istio-system', name), mine);
    assert.equal(store.serviceEntries().length, 1);
    // Once the bridge removes it, the key is free for other sources again.
    watchers.get('zk')!.set(IFACE, []);
    await settle(r);
    assert.equal(store.get('ServiceEntry', 'istio-system', name), undefined);
    assert.equal(store.upsert(echo.value), true);
  });

  it('reports status, the debug document and metrics', async () => {
    const metrics = new AerakiMetrics({ defaultMetrics: false });
    const r = registries({
      specs: [spec('zk=zookeeper://zk:2181/dubbo')],
      output: 'mcp',
      kc: undefined,
    });
    registerRegistryMetrics(metrics.registry, () => r.status()); // as app/registries.ts wires them
    await r.start();
    assert.equal(r.synced, false);
    assert.deepEqual(r.pending(), ['registry zk']);
    const w = watchers.get('zk')!;
    w.set(IFACE, [provider(IFACE, '10.0.0.1'), provider(IFACE, '10.0.0.2'), provider(IFACE, 'bad')], true);
    w.sync();
    w.disconnect('boom');
    w.sync();
    await settle(r);
    assert.equal(r.synced, true);
    const doc = r.debugDocument() as { registries: Record<string, unknown>[] };
    assert.deepEqual(doc.registries[0], {
      name: 'zk',
      type: 'zookeeper',
      connected: true,
      synced: true,
      services: 1,
      endpoints: 2,
      skipped: 0,
      syncErrors: 1,
      lastError: 'boom',
      entries: ['istio-system/zk-org-apache-dubbo-samples-demoservice'],
      issues: [
        `${IFACE}: Registry zk: provider /dubbo/${IFACE}/providers/dubbo://bad:20880/${IFACE}: address "bad" is not an IP address; endpoint dropped`,
      ],
    });
    const text = await metrics.render();
    assert.match(text, /aeraki_registry_services\{registry="zk"\} 1/);
    assert.match(text, /aeraki_registry_endpoints\{registry="zk"\} 2/);
    assert.match(text, /aeraki_registry_connected\{registry="zk"\} 1/);
    assert.match(text, /aeraki_registry_sync_errors_total\{registry="zk"\} 1/);
  });

  it('builds the watcher of each registry type when none is injected', () => {
    const deps = { logger: silentLogger };
    const zk = REGISTRY_WATCHERS.zookeeper(spec('zk=zookeeper://zk:2181/dubbo'), deps);
    const etcd = REGISTRY_WATCHERS.etcd(spec('etcd=etcd://etcd:2379/dubbo'), deps);
    const nacos = REGISTRY_WATCHERS.nacos(spec('nacos=nacos://nacos:8848'), deps);
    assert.ok(zk instanceof ZooKeeperWatcher);
    assert.ok(etcd instanceof EtcdWatcher);
    assert.ok(nacos instanceof NacosWatcher);
    assert.deepEqual(
      [zk, etcd, nacos].map((w) => [w.name, w.status().connected]),
      [
        ['zk', false],
        ['etcd', false],
        ['nacos', false],
      ],
      'built, not started',
    );
  });
});
