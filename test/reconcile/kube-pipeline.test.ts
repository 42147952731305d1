// The whole Kubernetes path: informers -> ConfigStore -> generateAll (real generators) -> reconciler -> fake
// kube-apiserver, with the synced gate and the keep-on-failure rules.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeSource } from '../../src/controller/kube/sources.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { generateAll } from '../../src/envoyfilter/generate-all.ts';
import { createKubeSink } from '../../src/reconcile/kube-sink.ts';
import { heldSourceKeys, Reconciler } from '../../src/reconcile/reconciler.ts';
import { SOURCE_ANNOTATION } from '../../src/model/constants.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { createGenerators, createPluginKinds } from '../../src/plugins/registry.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';
import { requests, runs, until } from './kube-support.ts';
import { filter, refClock } from './support.ts';

const ROOT = 'istio-system';
const EF = 'envoyfilters.networking.istio.io';
const SE = 'serviceentries.networking.istio.io';

const serviceEntry = (
  name: string,
  i: number,
  ports: unknown = [{ number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP' }],
) => ({
  apiVersion: 'networking.istio.io/v1',
  kind: 'ServiceEntry',
  metadata: { namespace: 'shop', name },
  spec: {
    hosts: [`${name}.shop.svc.cluster.local`],
    addresses: [`240.240.0.${i}`],
    ports,
    workloadSelector: { labels: { app: name } },
    resolution: 'STATIC',
  },
});

const sourceOf = (o: { metadata: { annotations?: Record<string, string> } }) =>
  o.metadata.annotations?.[SOURCE_ANNOTATION];

describe('informers -> store -> generateAll -> reconciler (fake kube-apiserver)', () => {
  let api: FakeKubeApiServer;
  before(async () => {
    api = await startFakeKubeApiServer();
  });
  after(async () => {
    await api.close();
  });

  it('writes nothing before every informer synced, keeps the output of an invalid service, deletes on absence', async (t) => {
    // Left by a previous run for a service that is invalid now: must be kept.
    const old = filter(ROOT, 'aeraki-outbound-bad', 'ServiceEntry/shop/bad');
    api.seed([
      serviceEntry('a', 1),
      serviceEntry('b', 2),
      serviceEntry('bad', 3, 'not-a-list'),
      { ...old, metadata: { ...old.metadata } },
    ]);
    const listFault = api.faults.inject({ verb: 'list', resource: 'metarouters', status: 500, times: 3 });

    const kc = fakeKubeConfig(api, { token: 'aeraki' });
    const store = new ConfigStore({ rootNamespace: ROOT });
    const source = new KubeSource({
      kc,
      kinds: createPluginKinds(),
      store,
      rootNamespace: ROOT,
      istio: 'auto',
      backoff: { initialMs: 100, maxMs: 200 },
      clock: refClock,
      logger: silentLogger,
    });
    const generators = createGenerators();
    const rec = new Reconciler({
      sink: createKubeSink(kc),
      desired: () => generateAll(store, generators, { namespaceScope: false }),
      heldSources: () => heldSourceKeys(store.rejected()),
      isSynced: () => source.synced,
      quietMs: 20,
      maxWaitMs: 200,
      resyncMs: 0,
      clock: refClock,
      logger: silentLogger,
    });
    const unsubscribe = store.subscribe(() => rec.trigger());
    t.after(async () => {
      unsubscribe();
      await rec.stop();
      await source.stop();
    });
    rec.start();
    await source.start();
    // Store events already arrived (ServiceEntries listed) while MetaRouters still fail to list.
    await until(() => store.serviceEntries().length === 2 && listFault.hits >= 1, 'partial sync', [
      requests(api),
      (wake) => store.subscribe(() => wake()),
    ]);
    await rec.runNow();
    assert.equal(source.synced, false);
    assert.equal(api.writes({ resource: 'envoyfilters' }).length, 0, 'no write before every source synced');

    await source.whenSynced();
    rec.trigger();
    await until(
      () =>
        api.list(EF).filter((o) => sourceOf(o) === 'ServiceEntry/shop/a').length > 0 &&
        api.list(EF).some((o) => sourceOf(o) === 'ServiceEntry/shop/b'),
      'filters of a and b',
      [requests(api), runs(rec)],
    );
    await rec.runNow();
    assert.ok(api.get(EF, ROOT, 'aeraki-outbound-bad'), 'the invalid service keeps its filter');
    assert.equal(api.writes({ verb: 'delete' }).length, 0);
    assert.deepEqual(
      store.rejected().map((r) => r.ref.name),
      ['bad'],
    );

    // Positive absence: ServiceEntry a is deleted, so are its filters (and nothing else).
    const countB = api.list(EF).filter((o) => sourceOf(o) === 'ServiceEntry/shop/b').length;
    api.delete(SE, 'shop', 'a');
    await until(
      () => !api.list(EF).some((o) => sourceOf(o) === 'ServiceEntry/shop/a'),
      'filters of a deleted',
      [requests(api), runs(rec)],
    );
    assert.equal(api.list(EF).filter((o) => sourceOf(o) === 'ServiceEntry/shop/b').length, countB);
    assert.ok(api.get(EF, ROOT, 'aeraki-outbound-bad'));
  });
});
