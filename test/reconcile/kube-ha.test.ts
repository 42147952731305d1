// Drift repair and leader election against the fake kube-apiserver over HTTP.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManagedObjectsWatch } from '../../src/reconcile/managed-watch.ts';
import type { EnvoyFilterSink } from '../../src/reconcile/sink.ts';
import { silentLogger } from '../../src/util/logger.ts';
import type { OutputObject } from '../../src/model/objects.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';
import { LEASE, ROOT, replica, requests, runs, until } from './kube-support.ts';
import { filter, refClock } from './support.ts';

const EF = 'envoyfilters.networking.istio.io';
const LEASES = 'leases.coordination.k8s.io';

function services(n: number, version = 1): OutputObject[] {
  return Array.from({ length: n }, (_, i) =>
    filter(ROOT, `aeraki-outbound-s${i}`, `ServiceEntry/shop/s${i}`, version),
  );
}

describe('drift repair and leader election (fake kube-apiserver)', () => {
  let api: FakeKubeApiServer;
  before(async () => {
    api = await startFakeKubeApiServer();
  });
  after(async () => {
    await api.close();
  });

  it('a filter deleted or edited by hand comes back within one debounce (watch on managed filters)', async () => {
    const desired = services(3);
    const r = replica(api, 'drift', {
      desired: () => ({ objects: desired, issues: [], failedSources: new Set() }),
    });
    const watch = new ManagedObjectsWatch({
      kc: r.kc,
      onChange: () => r.rec.trigger(),
      plurals: ['envoyfilters'],
      clock: refClock,
      logger: silentLogger,
    });
    await r.rec.runNow();
    watch.start();
    await watch.whenSynced();
    assert.ok(api.delete(EF, ROOT, 'aeraki-outbound-s1'));
    await until(
      () => api.get(EF, ROOT, 'aeraki-outbound-s1') !== undefined,
      'the deleted filter to come back',
      [requests(api)],
    );
    const live = api.get(EF, ROOT, 'aeraki-outbound-s2')!;
    api.seed({ ...live, spec: { configPatches: [] } }, 'kubectl-edit');
    await until(
      () => JSON.stringify(api.get(EF, ROOT, 'aeraki-outbound-s2')?.spec).includes('REPLACE'),
      'the edited filter to be restored',
      [requests(api)],
    );
    await watch.stop();
    await r.stop();
    for (const o of api.list(EF)) api.delete(EF, o.metadata.namespace, o.metadata.name ?? '');
  });

  it('two instances elect one leader; the other takes over; no write is ever made by a non-leader', async (t) => {
    api.clearRequests();
    let desired = services(4);
    const violations: string[] = [];
    const holder = () =>
      (api.get(LEASES, ROOT, LEASE)?.spec as { holderIdentity?: string } | undefined)?.holderIdentity;
    // At the instant each write is issued, the Lease in the server must name the writer...
    const checking = (s: EnvoyFilterSink, id: string): EnvoyFilterSink => {
      const check = (what: string) => {
        if (holder() !== id) violations.push(`${id} ${what} while holder=${holder() ?? '-'}`);
      };
      return {
        name: s.name,
        list: () => s.list(),
        create: (o) => (check(`create ${o.metadata.name}`), s.create(o)),
        update: (o, e) => (check(`update ${o.metadata.name}`), s.update(o, e)),
        delete: (e) => (check(`delete ${e.name}`), s.delete(e)),
      };
    };
    // ...and still name it when the write completes at the server.
    const off = api.onRequest((q) => {
      if (
        q.resource === 'envoyfilters' &&
        q.verb &&
        q.verb !== 'list' &&
        q.verb !== 'watch' &&
        q.status < 300 &&
        q.token !== holder()
      ) {
        violations.push(
          `server saw ${q.verb} ${q.name ?? ''} by ${q.token ?? '-'} while holder=${holder() ?? '-'}`,
        );
      }
    });
    const set = () => ({ objects: desired, issues: [], failedSources: new Set<string>() });
    const a = replica(api, 'a', { desired: set, election: true, wrapSink: checking });
    const b = replica(api, 'b', { desired: set, election: true, wrapSink: checking });
    t.after(async () => {
      off();
      await a.stop();
      await b.stop();
    });
    await until(() => api.list(EF).length === 4, 'the first leader to write the desired set', [
      requests(api),
    ]);
    const first = holder() === 'a' ? a : b;
    const second = first === a ? b : a;
    assert.equal(first.elector?.isLeader(), true);
    assert.equal(second.elector?.isLeader(), false);
    assert.ok(api.writes({ resource: 'envoyfilters' }).every((w) => w.token === first.id));

    // The leader loses the API for its lease (cannot renew): it must stop writing before the other takes over.
    const fault = api.faults.inject({ resource: 'leases', token: first.id, status: 500, times: Infinity });
    desired = services(4, 2);
    first.rec.trigger();
    second.rec.trigger();
    const t0 = Date.now();
    await until(() => holder() === second.id, 'the takeover', [requests(api)]);
    const takeoverMs = Date.now() - t0;
    await until(
      () => api.list(EF).every((o) => JSON.stringify(o.spec).includes('"n":2')),
      'the new leader to converge',
      [requests(api), runs(second.rec)],
    );
    // Lease 1.5 s + retry 0.2 s + one debounce; generous bound for a loaded 2-core machine.
    assert.ok(takeoverMs < 4000, `takeover took ${takeoverMs} ms`);
    fault.remove();

    // Graceful stop of the new leader releases the lease: the first one takes over again and converges.
    await second.stop();
    desired = services(4, 3);
    await until(() => holder() === first.id, 'the takeover after release', [requests(api)]);
    first.rec.trigger();
    await until(() => api.list(EF).every((o) => JSON.stringify(o.spec).includes('"n":3')), 'convergence', [
      requests(api),
      runs(first.rec),
    ]);
    assert.deepEqual(violations, []);
  });
});
