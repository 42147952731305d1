// The reconciler against the fake kube-apiserver over HTTP: the behaviours the issue lists.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createKubeSink } from '../../src/reconcile/kube-sink.ts';
import { Reconciler, type RunReport } from '../../src/reconcile/reconciler.ts';
import { SOURCE_ANNOTATION } from '../../src/model/constants.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { silentLogger } from '../../src/util/logger.ts';
import type { OutputObject } from '../../src/model/objects.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';
import { drive, replica, type Replica } from './kube-support.ts';
import { filter } from './support.ts';

const EF = 'envoyfilters.networking.istio.io';
const efWrites = (api: FakeKubeApiServer) => api.writes({ resource: 'envoyfilters' });

function services(n: number, version = 1, skip = -1): OutputObject[] {
  const out: OutputObject[] = [];
  for (let i = 0; i < n; i++) {
    if (i === skip) continue;
    const v = typeof version === 'number' ? version : 1;
    out.push(filter('istio-system', `aeraki-outbound-s${i}`, `ServiceEntry/shop/s${i}`, v));
    out.push(filter('istio-system', `aeraki-inbound-s${i}`, `ServiceEntry/shop/s${i}`, v));
  }
  return out;
}

describe('reconciler against the fake kube-apiserver', () => {
  let api: FakeKubeApiServer;
  let r: Replica | undefined;
  let desired: OutputObject[] = [];
  let failed = new Set<string>();
  const set = () => ({ objects: desired, issues: [], failedSources: failed });

  before(async () => {
    api = await startFakeKubeApiServer();
  });
  after(async () => {
    await api.close();
  });
  beforeEach(async () => {
    await r?.stop();
    r = undefined;
    for (const o of api.list(EF)) api.delete(EF, o.metadata.namespace, o.metadata.name ?? '');
    api.faults.clear();
    api.clearRequests();
    failed = new Set();
  });

  it('first sync creates exactly the desired set; an unchanged resync makes zero writes', async () => {
    desired = services(25);
    r = replica(api, 'a', { desired: set });
    await r.rec.runNow();
    assert.equal(efWrites(api).length, 50);
    assert.ok(efWrites(api).every((w) => w.verb === 'create'));
    assert.equal(api.list(EF).length, 50);
    api.clearRequests();
    await r.rec.runNow();
    assert.equal(efWrites(api).length, 0);
  });

  it('one changed service rewrites only its filters', async () => {
    desired = services(10);
    r = replica(api, 'a', { desired: set });
    await r.rec.runNow();
    api.clearRequests();
    desired = desired.map((o) =>
      o.metadata.annotations?.[SOURCE_ANNOTATION] === 'ServiceEntry/shop/s4'
        ? filter('istio-system', o.metadata.name, 'ServiceEntry/shop/s4', 2)
        : o,
    );
    await r.rec.runNow();
    const w = efWrites(api);
    assert.deepEqual(w.map((x) => `${x.verb} ${x.name}`).sort(), [
      'update aeraki-inbound-s4',
      'update aeraki-outbound-s4',
    ]);
  });

  it('retries 409 and 500 until convergence', async () => {
    desired = services(5);
    const clock = new ManualClock(0);
    r = replica(api, 'a', { desired: set, clock });
    await r.rec.runNow();
    desired = services(5, 2);
    api.faults.inject({ verb: 'update', resource: 'envoyfilters', status: 409, times: 3 });
    api.faults.inject({ verb: 'update', resource: 'envoyfilters', status: 500, times: 3 });
    api.faults.inject({ verb: 'list', resource: 'envoyfilters', status: 500, times: 1 });
    api.clearRequests();
    r.rec.trigger();
    await drive(clock, r.rec, () => efWrites(api).length === 10, 'all 10 updates');
    assert.ok(api.requests.some((q) => q.injected && q.status === 409));
    const stored = api.list(EF);
    assert.ok(stored.every((o) => JSON.stringify(o.spec).includes('"n":2')));
  });

  it('retries writes refused with 403 with backoff, not waiting for a change or a resync, until access returns', async () => {
    desired = services(2);
    const clock = new ManualClock(0);
    r = replica(api, 'a', { desired: set, clock });
    await r.rec.runNow();
    assert.equal(api.list(EF).length, 4);
    // RBAC is re-applied: updates and creates of EnvoyFilters are refused for a while.
    const denied = api.forbid({ verb: ['create', 'update'], resource: 'envoyfilters' });
    desired = [...services(2, 2), filter('istio-system', 'aeraki-outbound-s9', 'ServiceEntry/shop/s9')];
    r.rec.trigger();
    const rec = r.rec;
    await drive(clock, rec, () => denied.hits >= 15, 'three runs of refused writes retried');
    assert.deepEqual(
      rec.refused().map((x) => `${x.verb} ${x.code} ${x.name}`),
      [
        'create 403 aeraki-outbound-s9',
        'update 403 aeraki-inbound-s0',
        'update 403 aeraki-inbound-s1',
        'update 403 aeraki-outbound-s0',
        'update 403 aeraki-outbound-s1',
      ],
    );
    assert.deepEqual(rec.refusalDetails(), [
      'create envoyfilters.networking.istio.io refused (HTTP 403): grant verb create on group networking.istio.io ' +
        'resource envoyfilters (EnvoyFilter istio-system/aeraki-outbound-s9); retrying with backoff, routes still served',
      'update envoyfilters.networking.istio.io refused (HTTP 403): grant verb update on group networking.istio.io ' +
        'resource envoyfilters (4 EnvoyFilters); retrying with backoff, routes still served',
    ]);
    // The retry is armed on the reconciler's backoff (capped at 400 ms here), not on a resync (off here).
    assert.ok(
      clock.pendingDelays().some((d) => d > 0 && d <= 400),
      `${clock.pendingDelays().join(',')}`,
    );
    denied.remove();
    await drive(
      clock,
      rec,
      () => api.list(EF).length === 5 && rec.refused().length === 0,
      'written once granted',
    );
    assert.ok(
      api
        .list(EF)
        .every((o) => o.metadata.name === 'aeraki-outbound-s9' || JSON.stringify(o.spec).includes('"n":2')),
    );
    assert.deepEqual(rec.refusalDetails(), []);
  });

  it('survives an API outage of several seconds', async () => {
    desired = services(3);
    const clock = new ManualClock(0);
    r = replica(api, 'a', { desired: set, clock });
    api.setOutage(true);
    r.rec.trigger();
    const rec = r.rec;
    await drive(clock, rec, () => clock.now() >= 3000, 'retries through 3 s of outage');
    assert.ok(rec.totals.failures >= 8, `${rec.totals.failures} failed attempts during the outage`);
    assert.equal(clock.pending(), 1, 'one retry armed');
    api.setOutage(false);
    await drive(clock, rec, () => api.list(EF).length === 6, 'convergence after the outage');
  });

  it('an unsynced source causes no deletes (nor any write)', async () => {
    api.seed(services(2).map((o) => ({ ...o, metadata: { ...o.metadata } })));
    desired = [];
    let synced = false;
    r = replica(api, 'a', { desired: set, isSynced: () => synced });
    await r.rec.runNow();
    assert.equal(efWrites(api).length, 0);
    assert.equal(api.list(EF).length, 4);
    synced = true;
    await r.rec.runNow();
    assert.equal(api.list(EF).length, 0, 'deleted once synced and positively absent');
  });

  it('a failing service keeps its filters; a held (invalid) source too', async () => {
    desired = services(3);
    r = replica(api, 'a', { desired: set, heldSources: () => ['ServiceEntry/shop/s2'] });
    await r.rec.runNow();
    desired = services(3, 1, 1).filter((o) => !o.metadata.name.endsWith('s2'));
    failed = new Set(['ServiceEntry/shop/s1']);
    await r.rec.runNow();
    assert.equal(api.list(EF).length, 6);
    assert.equal(api.writes({ verb: 'delete' }).length, 0);
  });

  it('adopts Aeraki-labelled filters of a previous install in place', async () => {
    const old = services(2).map((o) => ({
      ...o,
      metadata: { name: o.metadata.name, namespace: o.metadata.namespace, labels: { manager: 'Aeraki' } },
    }));
    const stale = { ...old[0]!, metadata: { ...old[0]!.metadata, name: 'aeraki-outbound-gone' } };
    api.seed([...old, stale]);
    desired = services(2);
    r = replica(api, 'a', { desired: set });
    await r.rec.runNow();
    const w = efWrites(api).map((x) => x.verb);
    assert.equal(w.filter((v) => v === 'create').length, 0, 'no duplicates');
    assert.equal(w.filter((v) => v === 'update').length, 4);
    assert.equal(w.filter((v) => v === 'delete').length, 1);
    assert.equal(api.list(EF).length, 4);
  });

  it('reconciles gateway VirtualServices the same way', async () => {
    const vs: OutputObject = {
      apiVersion: 'networking.istio.io/v1alpha3',
      kind: 'VirtualService',
      metadata: {
        name: 'aeraki-vs-gw.ingress-20880',
        namespace: 'gw',
        labels: { manager: 'Aeraki' },
        annotations: { [SOURCE_ANNOTATION]: 'Gateway/gw/ingress' },
      },
      spec: {
        hosts: ['a.shop.svc.cluster.local'],
        gateways: ['gw/ingress'],
        tcp: [{ match: [{ port: 20880 }] }],
      },
    };
    desired = [vs];
    r = replica(api, 'a', { desired: set });
    await r.rec.runNow();
    const VS = 'virtualservices.networking.istio.io';
    assert.ok(api.get(VS, 'gw', 'aeraki-vs-gw.ingress-20880'));
    api.clearRequests();
    await r.rec.runNow();
    assert.equal(api.writes().length, 0);
    desired = [];
    await r.rec.runNow();
    assert.equal(api.get(VS, 'gw', 'aeraki-vs-gw.ingress-20880'), undefined);
  });

  it('the periodic resync restores a filter deleted by hand', async () => {
    desired = services(2);
    const clock = new ManualClock(0);
    const rec = new Reconciler({
      sink: createKubeSink(fakeKubeConfig(api)),
      desired: set,
      isSynced: () => true,
      quietMs: 10,
      maxWaitMs: 50,
      resyncMs: 150,
      clock,
      logger: silentLogger,
    });
    rec.start();
    try {
      await rec.runNow();
      api.delete(EF, 'istio-system', 'aeraki-inbound-s1');
      clock.advance(149);
      await rec.idle();
      assert.equal(api.get(EF, 'istio-system', 'aeraki-inbound-s1'), undefined, 'not before the resync');
      clock.advance(11); // the resync at 150 ms, then the quiet period
      await rec.idle();
      assert.ok(api.get(EF, 'istio-system', 'aeraki-inbound-s1'), 'restored by the periodic resync');
    } finally {
      await rec.stop();
    }
  });

  it('never overwrites a same-named filter that Aeraki does not manage (terminal, not retried)', async () => {
    const mine = filter('istio-system', 'aeraki-outbound-s0', 'ServiceEntry/shop/s0');
    api.seed({
      ...mine,
      metadata: { name: mine.metadata.name, namespace: 'istio-system', labels: { team: 'x' } },
    });
    desired = [mine];
    r = replica(api, 'a', { desired: set });
    const reports: RunReport[] = [];
    r.rec.onRun((x) => reports.push(x));
    await r.rec.runNow();
    assert.equal(reports[0]?.failures.length, 1);
    assert.equal(reports[0]?.failures[0]?.error.reason, 'AlreadyExists');
    assert.equal(reports[0]?.failures[0]?.error.transient, false);
    assert.deepEqual(api.get(EF, 'istio-system', 'aeraki-outbound-s0')?.metadata.labels, { team: 'x' });
  });
});
