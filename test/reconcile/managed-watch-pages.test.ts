// The managed objects' informer lists in pages (limit/continue), as the reconciler's own listing does: each page
// is parsed by itself, so 30,000 EnvoyFilters do not hold the loop for one parse of the whole list; the watch then
// starts from the list's resourceVersion and sees what changes after it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { INFORMER_PAGE_SIZE } from '../../src/kit/kube/paged-list.ts';
import type { KubeObject } from '../fakes/kube-apiserver/types.ts';
import { ManagedCache } from '../../src/reconcile/managed-cache.ts';
import { ManagedObjectsWatch } from '../../src/reconcile/managed-watch.ts';
import { createKubeSink } from '../../src/reconcile/kube-sink.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';
import { waitFor } from './kube-support.ts';
import { filter, refClock } from './support.ts';

describe('the managed objects watch lists in pages', () => {
  it('reads every page, then watches from the list', async () => {
    const api = await startFakeKubeApiServer();
    const count = 2 * INFORMER_PAGE_SIZE + 7;
    const objects = Array.from(
      { length: count },
      (_, i) => filter('shop', `f-${i}`, `ServiceEntry/shop/s-${i}`) as unknown as KubeObject,
    );
    api.seed(objects);
    const kc = fakeKubeConfig(api);
    const cache = new ManagedCache();
    const watch = new ManagedObjectsWatch({
      kc,
      cache,
      onChange: () => {},
      plurals: ['envoyfilters'],
      clock: refClock,
      logger: silentLogger,
    });
    try {
      watch.start();
      await watch.whenSynced();
      const lists = api.requests.filter((r) => r.verb === 'list' && r.resource === 'envoyfilters');
      assert.equal(lists.length, 3, 'three pages');
      assert.ok(lists.every((r) => r.query['limit'] === String(INFORMER_PAGE_SIZE)));
      assert.deepEqual(
        lists.map((r) => r.query['continue'] !== undefined),
        [false, true, true],
      );
      // Every object of every page is in the cache, reduced as the informer's reducer reduces it.
      assert.equal(cache.list().length, count);
      assert.equal(typeof cache.get('EnvoyFilter', 'shop', `f-${count - 1}`)?.specHash, 'string');
      await createKubeSink(kc).create(filter('shop', 'later', 'ServiceEntry/shop/later'));
      await waitFor(
        () => cache.get('EnvoyFilter', 'shop', 'later') !== undefined,
        'the watch after the pages',
      );
      assert.equal(
        api.requests.filter((r) => r.verb === 'list' && r.resource === 'envoyfilters').length,
        3,
        'no second list',
      );
    } finally {
      await watch.stop();
      await api.close();
    }
  });
});
