// The status controller reading its targets from the watch-fed cache, against the fake kube-apiserver over real
// HTTP with client-node: the controller's debounce on one manual clock, the informers' backoff on another.
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { aerakiResources } from '../../src/controller/kube/resources.ts';
import { applyWrites } from '../../src/kit/apply.ts';
import { StatusController } from '../../src/status/controller.ts';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { KubeSource } from '../../src/controller/kube/sources.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { configFields } from '../../src/controller/kube/config-fields.ts';
import { InformerHub, type KubeInformers, type WatchSpec } from '../../src/kit/kube/informer-hub.ts';
import {
  createKubeStatusPort,
  statusFields,
  toStatusTarget,
  type StatusResource,
} from '../../src/status/kube.ts';
import { StatusTargetCache } from '../../src/status/target-cache.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';
import { waitFor } from '../reconcile/kube-support.ts';
import { metaRouter, serviceEntry, storeOf } from '../support/builders.ts';
import { createPluginKinds } from '../../src/plugins/registry.ts';

/** The controller's own CRDs: the core's and the plugins'. */
const AERAKI_RESOURCES = aerakiResources(createPluginKinds());

const MR = 'metarouters.metaprotocol.aeraki.io';
const QUIET = 500;
const HOST = 'svc.shop.example';

let api: FakeKubeApiServer;
let clock: ManualClock;
let informerClock: ManualClock;
let changes: number;
let running: { cache: StatusTargetCache; controller: StatusController }[];

before(async () => {
  api = await startFakeKubeApiServer();
});
after(async () => {
  await api.close();
});
beforeEach(() => {
  clock = new ManualClock(Date.parse('2026-02-03T04:05:06Z'));
  informerClock = new ManualClock(0);
  changes = 0;
  running = [];
  for (const o of api.list(MR)) api.delete(MR, o.metadata.namespace ?? '', o.metadata.name ?? '');
  seedRouter('r');
  api.clearRequests();
});
afterEach(async () => {
  for (const r of running) {
    await r.controller.stop();
    await r.cache.stop();
  }
});

function seedRouter(name: string, on: FakeKubeApiServer = api): void {
  on.seed({
    apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
    kind: 'MetaRouter',
    metadata: { name, namespace: 'shop' },
    spec: { hosts: [HOST], routes: [{ route: [{ destination: { host: HOST } }] }] },
  });
}

const store = storeOf([
  serviceEntry('shop', 'svc', { hosts: [HOST], ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo' }] }),
  metaRouter('shop', 'r', { hosts: [HOST] }),
]);

/** A started cache and a status controller whose port reads from it; resolves once the cache is ready. */
async function wired(
  o: {
    resources?: readonly StatusResource[];
    resyncMs?: number;
    on?: FakeKubeApiServer;
    informers?: KubeInformers;
  } = {},
): Promise<{ cache: StatusTargetCache; controller: StatusController }> {
  const kc = fakeKubeConfig(o.on ?? api);
  const resources = o.resources ?? AERAKI_RESOURCES;
  const cache: StatusTargetCache = new StatusTargetCache({
    kc,
    ...(o.informers ? { informers: o.informers } : {}),
    resources,
    onChange: () => {
      changes++;
      controller.trigger();
    },
    minWatchIntervalMs: 0,
    clock: informerClock,
    logger: silentLogger,
  });
  const controller = new StatusController({
    port: createKubeStatusPort(kc, { resources, apiVersionOf: () => 'v1', instance: 'aeraki-0', cache }),
    apply: applyWrites,
    inputs: () => ({ view: store, rejected: [], issues: [] }),
    logger: silentLogger,
    quietMs: QUIET,
    maxWaitMs: 2000,
    resyncMs: o.resyncMs ?? 0,
    clock,
  });
  running.push({ cache, controller });
  cache.start();
  await waitFor(() => cache.ready, 'the status target cache to be ready');
  return { cache, controller };
}

/** Fires the debounce timer and awaits the run it starts. */
async function settle(c: StatusController): Promise<void> {
  clock.advance(QUIET);
  await c.idle();
}

const lists = (on: FakeKubeApiServer = api) => on.requests.filter((r) => r.verb === 'list');
const statusWrites = () => api.writes({ resource: 'metarouters' });
const accepted = (on: FakeKubeApiServer = api, name = 'r') =>
  ((on.get(MR, 'shop', name) as any)?.status?.conditions ?? []).find((c: any) => c.type === 'Accepted');

describe('status/target-cache: the status controller reads a watch, not a list per run', () => {
  it('once synced, runs make no list call and an unchanged run writes nothing', async () => {
    const { cache, controller } = await wired();
    assert.equal(lists().length, AERAKI_RESOURCES.length, 'one list per status resource, by the informers');
    api.clearRequests();
    controller.trigger();
    await settle(controller);
    assert.equal(statusWrites().length, 1);
    assert.equal(accepted()?.status, 'True');
    // The patch answer is in the cache at once (before or without its watch event).
    const cached = cache.targets().find((t) => t.ref.name === 'r');
    assert.equal(cached?.status?.conditions.find((c) => c.type === 'Accepted')?.status, 'True');
    for (let i = 0; i < 3; i++) {
      controller.trigger();
      await settle(controller);
    }
    const r = await controller.reconcile();
    assert.equal(r.written, 0);
    assert.equal(r.unchanged, 1);
    assert.equal(statusWrites().length, 1, 'no rewrite of an unchanged status');
    assert.deepEqual(lists(), [], 'no list call once synced');
  });

  it("someone else's status edit is seen through the watch and corrected by the next run", async () => {
    const { controller } = await wired();
    controller.trigger();
    await settle(controller);
    const before = changes;
    const live = api.get(MR, 'shop', 'r') as any;
    api.seed({ ...live, status: { conditions: [] } }, 'kubectl-edit');
    await waitFor(() => changes > before, 'the watch event of the edit');
    assert.equal(accepted(), undefined);
    await settle(controller);
    assert.equal(accepted()?.status, 'True', 'the status is restored');
    assert.equal(statusWrites().length, 2);
    assert.equal(lists().length, AERAKI_RESOURCES.length, 'only the informers listed');
  });

  it("after the first run, a run reads only the objects changed since (the cache's changes), not every one", async () => {
    const { cache, controller } = await wired();
    api.clearRequests();
    let whole = 0;
    const targets = cache.targets.bind(cache);
    cache.targets = () => {
      whole++;
      return targets();
    };
    controller.trigger();
    await settle(controller);
    assert.equal(whole, 1, 'the first run reads every object');
    const before = changes;
    seedRouter('r2');
    await waitFor(() => changes > before, 'the watch event of the new object');
    await settle(controller);
    assert.equal(accepted(api, 'r2')?.status, 'True', 'the new object gets its status');
    const gone = changes;
    api.delete(MR, 'shop', 'r2');
    await waitFor(() => changes > gone, 'the watch event of the deletion');
    await settle(controller);
    const r = await controller.reconcile();
    assert.equal(r.unchanged, 1, 'the deleted object left the plan');
    assert.equal(whole, 1, 'no run read every object again');
    assert.deepEqual(lists(), [], 'nor listed');
  });

  it('a watch that expires (410) relists: edits and deletions made meanwhile reach the cache', async () => {
    seedRouter('gone');
    const { cache } = await wired();
    const routerLists = () => lists().filter((r) => r.resource === 'metarouters').length;
    assert.equal(routerLists(), 1);
    // Events missed while not watching, then the log compacted: the re-watch gets 410 and relists.
    api.faults.inject({ verb: 'watch', resource: 'metarouters', delayMs: 300 });
    api.closeWatches();
    const live = api.get(MR, 'shop', 'r') as any;
    api.seed({ ...live, status: { observedGeneration: 7, conditions: [] } }, 'kubectl-edit');
    api.delete(MR, 'shop', 'gone');
    api.compact();
    await waitFor(
      () => cache.targets().every((t) => t.ref.name !== 'gone'),
      'the relist after 410 to drop the deleted object',
    );
    await waitFor(
      () => cache.targets().some((t) => t.status?.observedGeneration === 7),
      'the edit seen after the relist',
    );
    assert.equal(routerLists(), 2, 'relisted once');
    assert.deepEqual(
      cache.targets().map((t) => `${t.ref.kind}/${t.ref.name}`),
      ['MetaRouter/r'],
    );
  });

  it('a CRD that is not installed lists nothing; installed later, its objects arrive', async () => {
    const own = await startFakeKubeApiServer();
    try {
      const extra: StatusResource = {
        kind: 'DubboAuthorizationPolicy',
        group: 'extra.aeraki.io',
        version: 'v1alpha1',
        plural: 'dubboauthorizationpolicies',
        clusterScoped: false,
      };
      seedRouter('r', own);
      const { cache, controller } = await wired({ resources: [...AERAKI_RESOURCES, extra], on: own });
      assert.deepEqual(
        cache.targets().map((t) => t.ref.name),
        ['r'],
      );
      own.clearRequests();
      controller.trigger();
      await settle(controller);
      assert.equal(accepted(own)?.status, 'True');
      assert.deepEqual(lists(own), [], 'the missing CRD does not make runs list');

      own.register({
        group: extra.group,
        versions: [extra.version],
        kind: extra.kind,
        plural: extra.plural,
        namespaced: true,
        statusSubresource: true,
        deleteReturns: 'object',
      });
      own.seed({
        apiVersion: `${extra.group}/${extra.version}`,
        kind: extra.kind,
        metadata: { name: 'p', namespace: 'shop' },
        spec: {},
      });
      informerClock.advance(60_000); // the informer's retry after its 404
      await waitFor(() => cache.targets().some((t) => t.ref.name === 'p'), 'the installed CRD listed');
      assert.equal(cache.targets().find((t) => t.ref.name === 'p')?.ref.kind, extra.kind);
    } finally {
      for (const r of running.splice(0)) {
        await r.controller.stop();
        await r.cache.stop();
      }
      await own.close();
    }
  });

  it('the periodic resync lists for real', async () => {
    const { controller } = await wired({ resyncMs: 60_000 });
    controller.start();
    await settle(controller);
    api.clearRequests();
    controller.trigger();
    await settle(controller);
    assert.deepEqual(lists(), []);
    clock.advance(60_000);
    await settle(controller);
    assert.deepEqual(
      lists().map((r) => r.resource),
      AERAKI_RESOURCES.map((r) => r.plural),
    );
    assert.equal(statusWrites().length, 0, 'the resync found nothing to write');
  });
});

describe('status/target-cache: the shared informer holds what its readers read', () => {
  /** A MetaRouter as a kubectl apply writes it: managedFields, the last-applied annotation, a spec, a status. */
  function seedApplied(name: string): void {
    api.seed({
      apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
      kind: 'MetaRouter',
      metadata: {
        name,
        namespace: 'shop',
        generation: 3,
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"kind":"MetaRouter"}' },
        managedFields: [
          {
            manager: 'kubectl',
            operation: 'Apply',
            apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
            time: '2026-01-01T00:00:00Z',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:spec': {} },
          },
        ],
      },
      spec: { hosts: [HOST], routes: [{ route: [{ destination: { host: HOST } }] }] },
      status: { observedGeneration: 2, conditions: [{ type: 'Accepted', status: 'False', reason: 'Old' }] },
    });
  }
  const metaRouters: WatchSpec = {
    kind: 'MetaRouter',
    resource: { group: 'metaprotocol.aeraki.io', version: 'v1alpha1', plural: 'metarouters' },
    path: '/apis/metaprotocol.aeraki.io/v1alpha1/metarouters',
    list: async () =>
      (await fakeKubeConfig(api).makeApiClient(CustomObjectsApi).listClusterCustomObject({
        group: 'metaprotocol.aeraki.io',
        version: 'v1alpha1',
        plural: 'metarouters',
      })) as never,
  };
  const ignore = { upsert: () => undefined, delete: () => undefined };

  it('with the status reader alone, the cache holds no spec, annotations or managedFields', async () => {
    seedApplied('applied');
    const hub = new InformerHub({ kc: fakeKubeConfig(api), minWatchIntervalMs: 0, logger: silentLogger });
    // A second reader with the same reducer sees the cache as it is.
    const reader = hub.subscribe(metaRouters, ignore, { reduce: statusFields });
    const { cache } = await wired({ informers: hub });
    reader.start();
    await reader.whenSynced();
    const held = reader.objects().find((o) => o.metadata?.name === 'applied') as any;
    assert.deepEqual(Object.keys(held).sort(), ['metadata', 'status']);
    assert.deepEqual(Object.keys(held.metadata).sort(), [
      'generation',
      'name',
      'namespace',
      'resourceVersion',
      'uid',
    ]);
    // The targets are those of the whole objects.
    const whole = api.get(MR, 'shop', 'applied');
    assert.deepEqual(cache.get('MetaRouter', 'shop', 'applied'), toStatusTarget('MetaRouter', whole));
    await reader.stop();
  });

  it('with the config source too, the cache holds the spec and status but no managedFields; targets alike', async () => {
    seedApplied('applied');
    const hub = new InformerHub({ kc: fakeKubeConfig(api), minWatchIntervalMs: 0, logger: silentLogger });
    const config = hub.subscribe(metaRouters, ignore, { reduce: configFields });
    const { cache } = await wired({ informers: hub });
    config.start();
    await config.whenSynced();
    const held = config.objects().find((o) => o.metadata?.name === 'applied') as any;
    assert.deepEqual(held.spec, api.get(MR, 'shop', 'applied')?.['spec']);
    assert.equal(held.status.observedGeneration, 2);
    assert.equal(held.metadata.managedFields, undefined);
    assert.deepEqual(held.metadata.annotations, {});
    assert.deepEqual(
      cache.get('MetaRouter', 'shop', 'applied'),
      toStatusTarget('MetaRouter', api.get(MR, 'shop', 'applied')),
    );
    await config.stop();
  });

  it('started before the config source, the status cache leaves the config source its fields', async () => {
    seedApplied('applied');
    const hub = new InformerHub({ kc: fakeKubeConfig(api), minWatchIntervalMs: 0, logger: silentLogger });
    const config = new ConfigStore({ rootNamespace: 'istio-system', kinds: createPluginKinds() });
    const source = new KubeSource({
      kc: fakeKubeConfig(api),
      informers: hub,
      kinds: createPluginKinds(),
      store: config,
      rootNamespace: 'istio-system',
      minWatchIntervalMs: 0,
      logger: silentLogger,
    });
    await wired({ informers: hub }); // started: its informers run
    await source.start();
    await source.whenSynced();
    assert.deepEqual(config.get('MetaRouter', 'shop', 'applied')?.spec.hosts, [HOST]);
    await source.stop();
  });
});
