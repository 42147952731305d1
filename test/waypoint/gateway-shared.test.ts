// The Gateway informer is shared with the ambient source (src/controller/kube/ambient.ts reads the same path):
// the cache holds the union of both readers' reductions, list items included, so the ambient binding still sees
// each listener's allowedRoutes and the controller its name, whichever reader subscribed first.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import { reduceGateway as ambientReduce } from '../../src/controller/kube/ambient.ts';
import { InformerHub } from '../../src/kit/kube/informer-hub.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { gatewayInfoOf, reduceGateway, validateGateway } from '../../src/waypoint/gateway-objects.ts';
import { gatewaysWatch } from '../../src/waypoint/gateway-watches.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';
import { GATEWAY_TYPES, gateway, PROXY_LISTENER } from './gateway-support.ts';

const ALLOWED = { namespaces: { from: 'All' } };

describe('waypoint Gateway controller: the Gateway informer shared with the ambient source', () => {
  let api: FakeKubeApiServer;
  before(async () => {
    api = await startFakeKubeApiServer({ resources: GATEWAY_TYPES });
    api.seed(gateway('w', [{ ...PROXY_LISTENER, allowedRoutes: ALLOWED, hostname: 'dropped' }]));
  });
  after(() => api.close());

  for (const order of [
    [ambientReduce, reduceGateway],
    [reduceGateway, ambientReduce],
  ] as const) {
    it(`keeps every reader's listener fields (${order[0] === reduceGateway ? 'controller' : 'ambient'} first)`, async () => {
      const kc = fakeKubeConfig(api);
      const hub = new InformerHub({ kc, logger: silentLogger });
      const noop = { upsert: () => {}, delete: () => {} };
      const subs = order.map((reduce) => hub.subscribe(gatewaysWatch(kc), noop, { reduce }));
      for (const s of subs) s.start();
      await Promise.all(subs.map((s) => s.whenSynced()));
      const [cached] = subs[0]!.objects() as KubernetesObject[];
      const listener = (cached as unknown as { spec: { listeners: Record<string, unknown>[] } }).spec
        .listeners[0];
      assert.deepEqual(listener, {
        name: 'proxy',
        port: 15088,
        protocol: 'istio.io/PROXY',
        allowedRoutes: ALLOWED,
      });
      assert.equal(validateGateway(gatewayInfoOf(cached!)), undefined);
      await Promise.all(subs.map((s) => s.stop()));
    });
  }
});
