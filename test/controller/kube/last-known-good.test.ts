// Last known good through the Kubernetes source (fake kube-apiserver): a MetaRouter, VirtualService and
// DestinationRule turned invalid stay in effect; after a restart with only invalid versions the hosts of the
// VirtualService and DestinationRule are held for their namespace's ServiceEntries (a MetaRouter holds no host).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeSource } from '../../../src/controller/kube/sources.ts';
import { ConfigStore } from '../../../src/controller/store.ts';
import { generateAll } from '../../../src/envoyfilter/generate-all.ts';
import { createGenerators, createPluginKinds } from '../../../src/plugins/registry.ts';
import { silentLogger } from '../../../src/util/logger.ts';
import { buildRouteConfigurations } from '../../../src/xds-rds/routes.ts';
import { fakeKubeConfig } from '../../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../../fakes/kube-apiserver/index.ts';
import type { KubeObject } from '../../fakes/kube-apiserver/types.ts';
import { waitFor } from '../../reconcile/kube-support.ts';
import { refClock } from '../../reconcile/support.ts';
import {
  DUBBO_HOST,
  destinationRuleRaw,
  GATEWAY_SOURCE,
  gatewayRaw,
  gatewayRouterRaw,
  META_HOST,
  META_ROUTE,
  metaEntry,
  metaRouterRaw,
  ROOT,
  virtualServiceRaw,
  world,
} from '../../support/lkg-objects.ts';

const generators = createGenerators();
const generate = (store: ConfigStore) => generateAll(store, generators, { namespaceScope: false });

describe('last known good: Kubernetes source (fake kube-apiserver)', () => {
  let api: FakeKubeApiServer;
  before(async () => {
    api = await startFakeKubeApiServer();
  });
  after(async () => {
    await api.close();
  });

  async function started(t: { after(fn: () => Promise<void>): void }): Promise<ConfigStore> {
    const store = new ConfigStore({ rootNamespace: ROOT });
    const src = new KubeSource({
      kc: fakeKubeConfig(api, { token: 'aeraki' }),
      kinds: createPluginKinds(),
      store,
      rootNamespace: ROOT,
      istio: 'auto',
      backoff: { initialMs: 50, maxMs: 300 },
      minWatchIntervalMs: 20,
      clock: refClock,
      logger: silentLogger,
    });
    t.after(() => src.stop());
    await src.whenSynced();
    return store;
  }

  it('keeps the valid versions in effect, and holds the hosts after a restart', async (t) => {
    api.seed(world({ mr: true, vs: true, dr: true }) as unknown as KubeObject[]);
    const live = await started(t);
    assert.deepEqual(live.rejected(), []);
    const filters = generate(live).objects;
    const routes = buildRouteConfigurations(live).routes;
    assert.ok(routes.some((r) => r.name === META_ROUTE));

    api.seed([
      metaRouterRaw(false),
      virtualServiceRaw(false),
      destinationRuleRaw(false),
    ] as unknown as KubeObject[]);
    await waitFor(() => live.rejected().length === 3, 'the three invalid versions rejected');
    for (const [kind, name] of [
      ['MetaRouter', 'mr'],
      ['VirtualService', 'vs'],
      ['DestinationRule', 'dr'],
    ] as const) {
      assert.ok(live.get(kind, 'shop', name), `${kind} kept`);
    }
    assert.deepEqual(live.heldHosts(), []);
    assert.deepEqual(generate(live).objects, filters, 'filters unchanged');
    assert.deepEqual(buildRouteConfigurations(live).routes, routes, 'routes unchanged');

    // A new replica sees only the invalid versions: their hosts are held, nothing is rendered for them.
    const restarted = await started(t);
    assert.deepEqual(
      restarted.heldHosts().map((h) => h.host),
      [DUBBO_HOST, META_HOST],
    );
    const out = generate(restarted);
    assert.deepEqual([...out.failedSources].sort(), ['ServiceEntry/shop/dubbo', 'ServiceEntry/shop/svc']);
    assert.deepEqual(out.objects, []);
    assert.deepEqual(buildRouteConfigurations(restarted).held, [META_ROUTE]);

    // Deleting is what removes an effect (and releases the hold).
    api.delete('virtualservices.networking.istio.io', 'shop', 'vs');
    await waitFor(() => !restarted.isHostHeld(DUBBO_HOST, 'shop'), 'the Dubbo host released');
    assert.equal(restarted.isHostHeld(META_HOST, 'shop'), true);
  });

  it('after a restart, holds the Gateway an invalid MetaRouter of its namespace binds, from another only while no valid one binds it', async (t) => {
    api.seed([
      metaEntry,
      gatewayRaw,
      gatewayRouterRaw(true, 'team'),
      gatewayRouterRaw(false, 'shop'),
    ] as unknown as KubeObject[]);
    const elsewhere = await started(t);
    assert.deepEqual(elsewhere.heldGateways(), []);
    assert.ok(!generate(elsewhere).failedSources.has(GATEWAY_SOURCE), 'a valid MetaRouter binds it');
    api.delete('metarouters.metaprotocol.aeraki.io', 'team', 'mr');
    await waitFor(() => elsewhere.isGatewayHeld(ROOT, 'ingress'), 'held once only the invalid one binds it');
    assert.deepEqual(elsewhere.gatewayHolders(ROOT, 'ingress'), [
      { kind: 'MetaRouter', namespace: 'shop', name: 'mr' },
    ]);

    api.delete('metarouters.metaprotocol.aeraki.io', 'shop', 'mr');
    api.seed([gatewayRouterRaw(false, ROOT)] as unknown as KubeObject[]);
    const restarted = await started(t);
    assert.deepEqual(restarted.heldGateways(), [
      { gateway: `${ROOT}/ingress`, by: [{ kind: 'MetaRouter', namespace: ROOT, name: 'mr' }] },
    ]);
    assert.ok(generate(restarted).failedSources.has(GATEWAY_SOURCE), 'the Gateway keeps its output');
  });
});
