// DeltaAggregatedResources against the RDS server's listener (real mTLS on loopback): wildcard LDS/CDS and named
// EDS/routes, only changes and removals pushed, what the client declares it has not resent, NACK -> rejected.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  CLUSTER_TYPE,
  DUBBO_ROUTE_TYPE,
  ENDPOINT_TYPE,
  LISTENER_TYPE,
  META_ROUTE_TYPE,
} from '../../src/model/ambient/xds.ts';
import { waypointNode, type AdsDeltaResponse, type AdsTestStream } from '../fakes/ads-client.ts';
import { waitFor } from '../support/python.ts';
import { GATEWAY, problemsOf, startAds, type AdsHarness } from './ads-harness.ts';
import { clusterName, dubbo, META_ROUTE_NAME } from './ads-shapes.ts';

type Delta = AdsTestStream<AdsDeltaResponse>;

const ack = (r: AdsDeltaResponse) => ({ typeUrl: r.typeUrl, responseNonce: r.nonce });
const DUBBO_V1 = clusterName('dubbo.shop.svc.cluster.local', 20880, 'v1');

async function ask(s: Delta, req: Record<string, unknown>): Promise<AdsDeltaResponse> {
  s.send(req);
  const r = await s.next();
  assert.equal(r.typeUrl, req['typeUrl']);
  s.send(ack(r));
  return r;
}

describe('ADS incremental (delta)', () => {
  let h: AdsHarness;
  before(async () => {
    h = await startAds();
  });
  after(() => h.stop());

  it('serves wildcard clusters and listener, named endpoints and routes, then only what changed', async () => {
    const s = h.client('shop', 'wp').delta();
    const cds = await ask(s, { node: waypointNode('shop', 'wp'), typeUrl: CLUSTER_TYPE });
    assert.equal(cds.resources.length, 5);
    const names = cds.resources.map((r) => r.name);
    const eds = await ask(s, { typeUrl: ENDPOINT_TYPE, resourceNamesSubscribe: names });
    const lds = await ask(s, { typeUrl: LISTENER_TYPE });
    const routes = await ask(s, {
      typeUrl: DUBBO_ROUTE_TYPE,
      resourceNamesSubscribe: ['dubbo.shop.svc.cluster.local_20880'],
    });
    const meta = await ask(s, { typeUrl: META_ROUTE_TYPE, resourceNamesSubscribe: [META_ROUTE_NAME] });
    const all = [cds, eds, lds, routes, meta].flatMap((r) => r.resources);
    assert.equal(all.length, 5 + 5 + 1 + 1 + 1);
    assert.deepEqual(problemsOf(all), []);
    assert.ok(all.every((r) => r.version !== ''));
    await waitFor(() => h.server.waypointPrograms.state(GATEWAY).state === 'acked');

    // New endpoints of one service: one response, that one resource.
    const responses = h.server.metrics.responses;
    const moved = dubbo('dubbo.shop.svc.cluster.local', '10.96.0.10', ['10.244.0.42']);
    h.cache.apply([{ gateway: GATEWAY, services: new Map([['Service/shop/dubbo', moved]]) }]);
    const push = await s.next();
    assert.deepEqual(
      [push.typeUrl, push.resources.map((r) => r.name), push.removedResources],
      [ENDPOINT_TYPE, [DUBBO_V1], []],
    );
    s.send(ack(push));
    await waitFor(() => s.inbox.pending() === 0 && h.server.metrics.responses === responses + 1);

    // The service goes: the listener loses its chain and the route goes, then the cluster and endpoints nothing
    // uses any more are removed.
    h.cache.apply([{ gateway: GATEWAY, services: new Map([['Service/shop/dubbo', undefined]]) }]);
    const gone = await s.take(4);
    assert.deepEqual(
      gone.map((x) => [x.typeUrl, x.resources.length, x.removedResources]),
      [
        [LISTENER_TYPE, 1, []],
        [DUBBO_ROUTE_TYPE, 0, ['dubbo.shop.svc.cluster.local_20880']],
        [CLUSTER_TYPE, 0, [DUBBO_V1]],
        [ENDPOINT_TYPE, 0, [DUBBO_V1]],
      ],
    );
    for (const x of gone) s.send(ack(x));
    s.close();
    h.cache.apply([{ gateway: GATEWAY, services: new Map([['Service/shop/dubbo', moved]]) }]);
  });

  it('does not resend what the client declares it has; removes what the Gateway no longer serves', async () => {
    const first = h.client('shop', 'wp').delta();
    const cds = await ask(first, { node: waypointNode('shop', 'wp'), typeUrl: CLUSTER_TYPE });
    first.close();
    const versions = Object.fromEntries(cds.resources.map((r) => [r.name, r.version!]));
    versions['outbound|1||gone.shop.svc.cluster.local'] = '0123456789abcdef';
    const s = h.client('shop', 'wp').delta();
    s.send({ node: waypointNode('shop', 'wp'), typeUrl: CLUSTER_TYPE, initialResourceVersions: versions });
    const again = await s.next();
    assert.deepEqual(again.resources, []);
    assert.deepEqual(again.removedResources, ['outbound|1||gone.shop.svc.cluster.local']);
    s.close();
  });

  it('records a NACK as the Gateway rejected', async () => {
    await waitFor(() => h.server.waypointPrograms.state(GATEWAY).state === 'none');
    const s = h.client('shop', 'wp').delta();
    s.send({ node: waypointNode('shop', 'wp', 'wp-delta'), typeUrl: LISTENER_TYPE });
    const lds = await s.next();
    s.send({ ...ack(lds), errorDetail: { code: 13, message: 'listener proxy_protocol_inbound: no' } });
    await waitFor(() => h.server.waypointPrograms.state(GATEWAY).state === 'rejected');
    const st = h.server.waypointPrograms.state(GATEWAY);
    assert.deepEqual([st.proxy, st.detail], ['wp-delta.shop', 'listener proxy_protocol_inbound: no']);
    s.close();
    await waitFor(() => h.server.waypointPrograms.state(GATEWAY).state === 'none');
    assert.equal(h.cache.watchCount, 0, 'the streams let go of their watches');
  });
});
