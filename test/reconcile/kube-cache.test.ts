// The managed cache fed by the real drift watch over HTTP (the fake kube-apiserver): reconciles make no list
// call, the controller's own writes cause no further run, and an edit by hand is restored from the watch alone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { OutputObject } from '../../src/model/objects.ts';
import { createKubeSink } from '../../src/reconcile/kube-sink.ts';
import { ManagedCache } from '../../src/reconcile/managed-cache.ts';
import { ManagedObjectsWatch } from '../../src/reconcile/managed-watch.ts';
import { Reconciler, type RunReport } from '../../src/reconcile/reconciler.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';
import { requests, runs, until } from './kube-support.ts';
import { filter, refClock } from './support.ts';

const EF = 'envoyfilters.networking.istio.io';
const lists = (api: FakeKubeApiServer) =>
  api.requests.filter((r) => r.verb === 'list' && r.resource === 'envoyfilters').length;

describe('reconciler with the watched cache, against the fake kube-apiserver', () => {
  let api: FakeKubeApiServer;
  let watch: ManagedObjectsWatch;
  let rec: Reconciler;
  const reports: RunReport[] = [];
  const desired: OutputObject[] = Array.from({ length: 6 }, (_, i) =>
    filter('istio-system', `aeraki-outbound-s${i}`, `ServiceEntry/shop/s${i}`),
  );

  before(async () => {
    api = await startFakeKubeApiServer();
    const kc = fakeKubeConfig(api);
    const cache = new ManagedCache();
    rec = new Reconciler({
      sink: createKubeSink(kc),
      desired: () => ({ objects: desired, issues: [], failedSources: new Set() }),
      cache,
      isSynced: () => true,
      quietMs: 20,
      maxWaitMs: 200,
      resyncMs: 0,
      clock: refClock,
      logger: silentLogger,
    });
    rec.onRun((r) => reports.push(r));
    watch = new ManagedObjectsWatch({
      kc,
      cache,
      onChange: () => rec.trigger(),
      plurals: ['envoyfilters'],
      clock: refClock,
      logger: silentLogger,
    });
    watch.start();
    await watch.whenSynced();
    await until(() => cache.synced, 'the cache synced', [requests(api)]);
  });
  after(async () => {
    await rec.stop();
    await watch.stop();
    await api.close();
  });

  it('lists once; then neither its own writes nor an unchanged reconcile cause a list or a write', async () => {
    await rec.runNow();
    assert.equal(api.list(EF).length, 6);
    const listsAfterSync = lists(api);
    assert.equal(listsAfterSync, 2, 'the watch list and the first reconcile');
    const runsAfterSync = reports.length;
    // The watch delivers the six creations; they are already in the cache (from the write answers).
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(reports.length, runsAfterSync, "no run for the controller's own writes");
    await rec.runNow();
    assert.equal(reports.at(-1)?.listed, false);
    assert.equal(reports.at(-1)?.unchanged, 6);
    assert.equal(lists(api), listsAfterSync, 'no list call');
  });

  it('an edit by hand comes through the watch and is restored without a list', async () => {
    const before = lists(api);
    const runsBefore = reports.length;
    const live = api.get(EF, 'istio-system', 'aeraki-outbound-s3')!;
    api.seed({ ...live, spec: { configPatches: [] } });
    await until(
      () =>
        JSON.stringify(api.get(EF, 'istio-system', 'aeraki-outbound-s3')?.['spec']) ===
        JSON.stringify(desired[3]!.spec),
      'the edit restored',
      [requests(api), runs(rec)],
    );
    await until(() => reports.length > runsBefore, 'the restoring run reported', [runs(rec)]);
    assert.deepEqual(
      reports.slice(runsBefore).map((r) => [r.updated, r.listed]),
      [[1, false]],
      'one run, from the cache',
    );
    assert.equal(lists(api), before, 'restored from the watched state');
    api.delete(EF, 'istio-system', 'aeraki-outbound-s4');
    await until(
      () => api.get(EF, 'istio-system', 'aeraki-outbound-s4') !== undefined,
      'the deletion restored',
      [requests(api), runs(rec)],
    );
    assert.equal(lists(api), before);
  });
});
