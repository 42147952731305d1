// The RDS routes the managed EnvoyFilters name, as the writers know them: the drift watch (over the fake
// kube-apiserver) and the directory sink, from their lists and the writes since, never holding the specs.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { META_PROTOCOL_PROXY_TYPE, TYPED_STRUCT_TYPE } from '../../src/model/constants.ts';
import type { EnvoyFilterObject } from '../../src/model/objects.ts';
import { createDirSink } from '../../src/reconcile/dir-sink.ts';
import { createKubeSink } from '../../src/reconcile/kube-sink.ts';
import { ManagedObjectsWatch } from '../../src/reconcile/managed-watch.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';
import { waitFor } from './kube-support.ts';
import { filter, refClock } from './support.ts';

/** A managed EnvoyFilter whose MetaProtocol proxy names RDS route `route`. */
function metaFilter(name: string, route: string): EnvoyFilterObject {
  const base = filter('shop', name, `ServiceEntry/shop/${name}`);
  const typed = {
    '@type': TYPED_STRUCT_TYPE,
    type_url: META_PROTOCOL_PROXY_TYPE,
    value: { rds: { routeConfigName: route } },
  };
  return {
    ...base,
    spec: {
      configPatches: [
        { applyTo: 'NETWORK_FILTER', patch: { operation: 'REPLACE', value: { typed_config: typed } } },
      ],
    },
  };
}

const asObject = (m: ReadonlyMap<string, readonly string[]> | undefined) => (m ? Object.fromEntries(m) : m);

describe('the routes managed EnvoyFilters name', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'aeraki-managed-routes-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('the drift watch keeps them from its list and its events', async () => {
    const api = await startFakeKubeApiServer();
    const kc = fakeKubeConfig(api);
    const sink = createKubeSink(kc);
    const watch = new ManagedObjectsWatch({
      kc,
      onChange: () => {},
      plurals: ['envoyfilters'],
      clock: refClock,
      logger: silentLogger,
    });
    try {
      await sink.create(metaFilter('a', 'a.shop_1'));
      await sink.create(filter('shop', 'plain', 'ServiceEntry/shop/plain'));
      assert.equal(watch.rdsRoutes(), undefined, 'unknown before the first list');
      watch.start();
      await watch.whenSynced();
      await waitFor(() => watch.rdsRoutes() !== undefined, 'listed');
      assert.deepEqual(asObject(watch.rdsRoutes()), { 'shop/a': ['a.shop_1'] });
      await sink.create(metaFilter('b', 'b.shop_2'));
      await waitFor(() => watch.rdsRoutes()?.has('shop/b') === true, 'the creation');
      const [a] = (await sink.list()).filter((e) => e.name === 'a');
      await sink.delete(a!);
      await waitFor(() => watch.rdsRoutes()?.has('shop/a') === false, 'the deletion');
      assert.deepEqual(asObject(watch.rdsRoutes()), { 'shop/b': ['b.shop_2'] });
    } finally {
      await watch.stop();
      await api.close();
    }
  });

  it('the directory sink keeps them from its list and its writes', async () => {
    const dir = path.join(root, 'out');
    const writer = createDirSink(dir);
    await writer.create(metaFilter('a', 'a.shop_1'));
    const sink = createDirSink(dir); // a new process: unknown until it lists
    assert.equal(sink.rdsRoutes(), undefined);
    const [a] = await sink.list();
    assert.deepEqual(asObject(sink.rdsRoutes()), { 'shop/a': ['a.shop_1'] });
    await sink.update(metaFilter('a', 'a.shop_9'), a!);
    await sink.create(filter('shop', 'plain', 'ServiceEntry/shop/plain'));
    assert.deepEqual(asObject(sink.rdsRoutes()), { 'shop/a': ['a.shop_9'] });
    await sink.delete(a!);
    assert.deepEqual(asObject(sink.rdsRoutes()), {});
  });
});
