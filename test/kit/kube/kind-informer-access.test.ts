// A KindInformer (src/kit/kube/kind-informer.ts) against the fake kube-apiserver when access is refused after the
// first list, as it is for a moment when a ClusterRole is re-applied: the watch answers 403 (or 404) a few times,
// then access returns. The kind is forbidden only while its last request was refused, it is served again as soon as
// the watch opens (without a re-list and without a periodic resync), and changes made after that arrive. The
// informer runs on a manual clock: the default backoff after a 403 (5 s doubling to 60 s) costs no real time.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CustomObjectsApi, type KubernetesListObject, type KubernetesObject } from '@kubernetes/client-node';
import { KindInformer } from '../../../src/kit/kube/kind-informer.ts';
import { ManualClock } from '../../../src/util/clock.ts';
import { fakeKubeConfig } from '../../fakes/kube-apiserver/client.ts';
import {
  startFakeKubeApiServer,
  type FakeKubeApiServer,
  type KubeObject,
} from '../../fakes/kube-apiserver/index.ts';
import { recordingLogger, type LogRecord } from '../../support/recording-logger.ts';
import { waitFor } from '../../reconcile/kube-support.ts';

const MR = { group: 'metaprotocol.aeraki.io', version: 'v1alpha1', plural: 'metarouters' };
const PATH = `/apis/${MR.group}/${MR.version}/${MR.plural}`;

const router = (name: string, host: string): KubeObject => ({
  apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
  kind: 'MetaRouter',
  metadata: { namespace: 'shop', name },
  spec: { hosts: [host] },
});

let api: FakeKubeApiServer;
before(async () => {
  api = await startFakeKubeApiServer();
});
after(async () => {
  await api.close();
});

interface Harness {
  readonly informer: KindInformer;
  readonly clock: ManualClock;
  readonly seen: Map<string, KubernetesObject>;
  readonly records: LogRecord[];
}

function harness(): Harness {
  const kc = fakeKubeConfig(api, { token: 'aeraki' });
  const custom = kc.makeApiClient(CustomObjectsApi);
  const clock = new ManualClock(0);
  const seen = new Map<string, KubernetesObject>();
  const records: LogRecord[] = [];
  const informer = new KindInformer({
    kc,
    kind: 'MetaRouter',
    resource: MR,
    discovery: { served: () => Promise.resolve(true) },
    path: PATH,
    list: async () => (await custom.listClusterCustomObject(MR)) as KubernetesListObject<KubernetesObject>,
    handlers: {
      upsert: (o) => seen.set(o.metadata?.name ?? '', o),
      delete: (o) => seen.delete(o.metadata?.name ?? ''),
    },
    minWatchIntervalMs: 0,
    clock,
    logger: recordingLogger(records),
  });
  return { informer, clock, seen, records };
}

const requestsOf = (verb: string) =>
  api.requests.filter((r) => r.verb === verb && r.resource === 'metarouters');

/** Fires the informer's restart timer (whatever its delay) until `pred` holds. */
async function retryUntil(clock: ManualClock, pred: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 50 && !pred(); i++) {
    clock.runAll();
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.ok(pred(), what);
}

describe('kit/kube/kind-informer: access refused after the first list', () => {
  it('a watch refused with 403: forbidden while refused, served once the watch opens, later changes arrive', async () => {
    api.seed(router('orders', 'orders.shop.svc.cluster.local'));
    const h = harness();
    h.informer.start();
    await h.informer.whenSynced();
    assert.equal(h.seen.get('orders')?.metadata?.name, 'orders');
    const lists = requestsOf('list').length;

    // The ClusterRole is re-applied: the next watches are refused, as the authorizer refuses them (HTTP 403).
    const denied = api.forbid({ verb: 'watch', resource: 'metarouters' });
    api.closeWatches();
    await waitFor(() => denied.hits >= 1, 'the re-watch refused');
    await waitFor(() => h.informer.status().phase === 'forbidden', 'the kind forbidden');
    assert.equal(h.informer.status().verb, 'watch');
    assert.equal(h.informer.synced, false);
    await retryUntil(h.clock, () => denied.hits >= 3, 'three refused re-watches');
    assert.equal(h.informer.status().phase, 'forbidden');

    // Access returns: the next re-watch opens from the resourceVersion held, with no list.
    denied.remove();
    await retryUntil(h.clock, () => h.informer.status().phase === 'served', 'served again once granted');
    assert.equal(h.informer.synced, true);
    assert.equal(h.informer.status().verb, undefined);
    assert.equal(requestsOf('list').length, lists, 'no re-list was needed');

    // A change made after access returned reaches the handlers.
    api.seed(router('orders', 'orders-v2.shop.svc.cluster.local'));
    await waitFor(
      () => JSON.stringify(h.seen.get('orders')).includes('orders-v2'),
      'the change after access returned',
    );
    const said = h.records.filter((l) => l.level !== 'debug').map((l) => `${l.level} ${l.message}`);
    assert.deepEqual(said, [
      'warn forbidden: watch metarouters.metaprotocol.aeraki.io (grant verbs list, watch on group metaprotocol.aeraki.io resource metarouters)',
      'info access to metarouters.metaprotocol.aeraki.io granted: reading MetaRouter',
    ]);
    await h.informer.stop();
  });

  it('a re-list refused with 403 after a 410, and a watch answered 404 while discovery serves the kind: both recover', async () => {
    const h = harness();
    h.informer.start();
    await h.informer.whenSynced();

    // 410 Expired: the informer lists again, and that list is refused.
    const denied = api.forbid({ verb: 'list', resource: 'metarouters' });
    api.seed({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'other', name: 'bump' } });
    api.compact();
    api.closeWatches();
    await waitFor(() => denied.hits >= 1, 'the re-list refused');
    await waitFor(() => h.informer.status().phase === 'forbidden', 'the kind forbidden');
    assert.equal(h.informer.status().verb, 'list');
    denied.remove();
    await retryUntil(
      h.clock,
      () => h.informer.status().phase === 'served',
      'served once the list is granted',
    );

    // A 404 on the watch (a CRD re-applied): discovery still serves it, so the kind is kept and the watch retried.
    const missing = api.faults.inject({ verb: 'watch', resource: 'metarouters', status: 404, times: 2 });
    api.closeWatches();
    await waitFor(() => missing.hits >= 1, 'the watch answered 404');
    await retryUntil(h.clock, () => missing.remaining === 0 && api.openWatches > 0, 'the watch open again');
    assert.equal(h.informer.status().phase, 'served');
    assert.equal(h.informer.synced, true);
    api.seed(router('pay', 'pay.shop.svc.cluster.local'));
    await waitFor(() => h.seen.has('pay'), 'a change after the 404s');
    await h.informer.stop();
  });
});
