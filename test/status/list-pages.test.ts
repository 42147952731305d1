// The status controller's reads of its targets list in pages (limit/continue), as the reconciler does: the target
// cache's informers and the port's own resync list. Thousands of MetaRouters are then parsed a page at a time, and
// each page's parsed objects die young, instead of one parse of the whole list holding the loop.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aerakiResources } from '../../src/controller/kube/resources.ts';
import { INFORMER_PAGE_SIZE } from '../../src/kit/kube/paged-list.ts';
import { createKubeStatusPort } from '../../src/status/kube.ts';
import { StatusTargetCache } from '../../src/status/target-cache.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { createPluginKinds } from '../../src/plugins/registry.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';
import { waitFor } from '../reconcile/kube-support.ts';

const COUNT = 2 * INFORMER_PAGE_SIZE + 3;

describe('status targets are listed in pages', () => {
  it('the target cache and a fresh resync list read every page, and see every object', async () => {
    const api = await startFakeKubeApiServer();
    api.seed(
      Array.from({ length: COUNT }, (_, i) => ({
        apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
        kind: 'MetaRouter',
        metadata: { name: `r-${i}`, namespace: 'shop' },
        spec: { hosts: ['svc.shop.example'] },
      })),
    );
    const kc = fakeKubeConfig(api);
    const resources = aerakiResources(createPluginKinds()).filter((r) => r.kind === 'MetaRouter');
    const cache = new StatusTargetCache({
      kc,
      resources,
      onChange: () => {},
      minWatchIntervalMs: 0,
      clock: new ManualClock(0),
      logger: silentLogger,
    });
    const pages = () =>
      api.requests
        .filter((r) => r.verb === 'list' && r.resource === 'metarouters')
        .map((r) => ({ limit: r.query['limit'], continued: r.query['continue'] !== undefined }));
    const three = [
      { limit: String(INFORMER_PAGE_SIZE), continued: false },
      { limit: String(INFORMER_PAGE_SIZE), continued: true },
      { limit: String(INFORMER_PAGE_SIZE), continued: true },
    ];
    try {
      cache.start();
      await waitFor(() => cache.ready, 'the status target cache to be ready');
      assert.deepEqual(pages(), three, 'the informer lists in three pages');
      assert.equal(cache.targets().length, COUNT);
      api.clearRequests();
      const port = createKubeStatusPort(kc, {
        resources,
        apiVersionOf: () => 'v1',
        instance: 'aeraki-0',
        cache,
      });
      const listed = await port.list({ fresh: true });
      assert.deepEqual(pages(), three, 'the resync list reads in three pages');
      assert.equal(listed.length, COUNT, 'every object of every page');
      assert.ok(listed.some((t) => t.ref.name === `r-${COUNT - 1}`));
    } finally {
      await cache.stop();
      await api.close();
    }
  });
});
