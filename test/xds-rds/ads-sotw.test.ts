// StreamAggregatedResources against the RDS server's listener (real mTLS on loopback): a waypoint of a Gateway with
// Dubbo, Thrift, Redis, ZooKeeper and MetaProtocol services gets its listener, clusters, endpoints and routes, every
// resource passing protos-2026; one service change is one push of that service's resources; per-type nonces;
// NACK -> rejected; another Gateway's credential -> PERMISSION_DENIED; unknown Gateway -> empty answers.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import {
  CLUSTER_TYPE,
  DUBBO_ROUTE_TYPE,
  ENDPOINT_TYPE,
  LISTENER_TYPE,
  META_ROUTE_TYPE,
  THRIFT_ROUTE_TYPE,
} from '../../src/model/ambient/xds.ts';
import { sotwAck, waypointNode, type AdsSotwResponse, type AdsTestStream } from '../fakes/ads-client.ts';
import { waitFor } from '../support/python.ts';
import { GATEWAY, LISTENER_NAME, metaRoute, problemsOf, startAds, type AdsHarness } from './ads-harness.ts';
import { dubbo, LISTENER_TEMPLATE, META_ROUTE_NAME } from './ads-shapes.ts';

type Sotw = AdsTestStream<AdsSotwResponse>;

/** Subscribes as Envoy does (CDS, EDS, LDS, routes), ACKing each; returns the first answer of each type. */
async function subscribeAll(
  s: Sotw,
  node = waypointNode('shop', 'wp'),
): Promise<Map<string, AdsSotwResponse>> {
  const got = new Map<string, AdsSotwResponse>();
  const ask = async (typeUrl: string, names: string[], first = false) => {
    s.send({ ...(first ? { node } : {}), typeUrl, resourceNames: names });
    const r = await s.next();
    assert.equal(r.typeUrl, typeUrl);
    got.set(typeUrl, r);
    s.send(sotwAck(r, names));
    return r;
  };
  const cds = await ask(CLUSTER_TYPE, [], true);
  await ask(
    ENDPOINT_TYPE,
    cds.resources.map((r) => r.name),
  );
  await ask(LISTENER_TYPE, []);
  await ask(DUBBO_ROUTE_TYPE, ['dubbo.shop.svc.cluster.local_20880']);
  await ask(THRIFT_ROUTE_TYPE, ['thrift.shop.svc.cluster.local_9090']);
  await ask(META_ROUTE_TYPE, [META_ROUTE_NAME]);
  return got;
}

describe('ADS state of the world', () => {
  let h: AdsHarness;
  before(async () => {
    h = await startAds();
  });
  after(() => h.stop());

  it('serves a waypoint its listener, clusters, endpoints and routes, all passing protos-2026', async () => {
    const s = h.client('shop', 'wp').sotw();
    const got = await subscribeAll(s);
    const all = [...got.values()].flatMap((r) => r.resources);
    assert.deepEqual(problemsOf(all), []);
    assert.equal(got.get(CLUSTER_TYPE)!.resources.length, 5);
    assert.equal(got.get(ENDPOINT_TYPE)!.resources.length, 5);
    const listener = got.get(LISTENER_TYPE)!.resources[0]!.json as { name: string; filterChains: unknown[] };
    assert.equal(listener.name, LISTENER_NAME);
    assert.equal(listener.filterChains.length, 5);
    assert.equal(got.get(META_ROUTE_TYPE)!.resources[0]!.name, META_ROUTE_NAME, 'from the RDS cache');
    const proxy = () => h.server.acks.proxies().find((p) => p.nodeId === 'wp-0.shop')!;
    await waitFor(() => proxy().routes.length === 14 && proxy().routes.every((r) => r.state === 'acked'));
    assert.deepEqual(h.server.waypointPrograms.state(GATEWAY), {
      gateway: GATEWAY,
      state: 'acked',
      connected: 1,
    });
    assert.ok(proxy().routes.some((r) => r.name === `listener/${LISTENER_NAME}`));
    assert.ok(
      proxy().routes.some((r) => r.name === META_ROUTE_NAME),
      'the RDS route, counted as RDS routes are',
    );
    assert.equal(h.server.acks.summary(META_ROUTE_NAME)?.acked, 1);
    s.close();
    await waitFor(() => h.server.waypointPrograms.state(GATEWAY).state === 'none');
  });

  it('pushes one service change once, to the types it touched, with only that service changed', async () => {
    const s = h.client('shop', 'wp').sotw();
    const first = await subscribeAll(s);
    const responses = h.server.metrics.responses;
    const before = new Map(first.get(ENDPOINT_TYPE)!.resources.map((r) => [r.name, JSON.stringify(r.json)]));
    const changed = dubbo('dubbo.shop.svc.cluster.local', '10.96.0.10', ['10.244.0.10', '10.244.0.99']);
    h.cache.apply([{ gateway: GATEWAY, services: new Map([['Service/shop/dubbo', changed]]) }]);
    const eds = await s.next();
    assert.equal(eds.typeUrl, ENDPOINT_TYPE);
    const differs = eds.resources
      .filter((r) => before.get(r.name) !== JSON.stringify(r.json))
      .map((r) => r.name);
    assert.deepEqual(differs, ['outbound|20880|v1|dubbo.shop.svc.cluster.local']);
    assert.equal(eds.resources.length, 5, 'SotW: the whole subscribed set');
    assert.deepEqual(problemsOf(eds.resources), []);
    s.send(sotwAck(eds, [...before.keys()]));
    await waitFor(() => h.server.metrics.acks >= 1 && s.inbox.pending() === 0);
    assert.equal(h.server.metrics.responses, responses + 1, 'one response, nothing else');
    // An RDS route change reaches the waypoint as a route push.
    h.rds.setRoutes([metaRoute('outbound|8000|v2|trpc.shop.svc.cluster.local')]);
    const route = await s.next();
    assert.equal(route.typeUrl, META_ROUTE_TYPE);
    assert.deepEqual(problemsOf(route.resources), []);
    s.close();
    await waitFor(() => h.server.waypointPrograms.state(GATEWAY).state === 'none');
  });

  it('keeps a nonce per type: answering an older type after a newer one was sent is not stale', async () => {
    const s = h.client('shop', 'wp').sotw();
    s.send({ node: waypointNode('shop', 'wp'), typeUrl: CLUSTER_TYPE });
    const cds = await s.next();
    s.send({ typeUrl: LISTENER_TYPE });
    const lds = await s.next();
    assert.notEqual(cds.nonce, lds.nonce);
    const stale = h.server.metrics.staleNonces;
    const acks = h.server.metrics.acks;
    s.send(sotwAck(cds));
    s.send(sotwAck(lds));
    await waitFor(() => h.server.metrics.acks === acks + 2);
    assert.equal(h.server.metrics.staleNonces, stale);
    // A CDS request with LDS's nonce is stale for CDS only.
    s.send({ typeUrl: CLUSTER_TYPE, responseNonce: lds.nonce, versionInfo: lds.versionInfo });
    await waitFor(() => h.server.metrics.staleNonces === stale + 1);
    s.close();
    await waitFor(() => h.server.waypointPrograms.state(GATEWAY).state === 'none');
  });

  it('records a NACK as the Gateway rejected, with the proxy and the first error detail', async () => {
    const s = h.client('shop', 'wp').sotw();
    const seen: string[][] = [];
    const unsubscribe = h.server.waypointPrograms.subscribe((g) => seen.push([...g]));
    s.send({ node: waypointNode('shop', 'wp', 'wp-nack'), typeUrl: CLUSTER_TYPE });
    const cds = await s.next();
    await waitFor(() => h.server.waypointPrograms.state(GATEWAY).connected === 1);
    assert.equal(h.server.waypointPrograms.state(GATEWAY).state, 'pending', 'nothing ACKed yet');
    s.send({ ...sotwAck(cds), errorDetail: { code: 3, message: 'cluster outbound|9090||x: bad' } });
    await waitFor(() => {
      const st = h.server.waypointPrograms.state(GATEWAY);
      return st.state === 'rejected' && st.connected === 1;
    });
    assert.deepEqual(h.server.waypointPrograms.state(GATEWAY), {
      gateway: GATEWAY,
      state: 'rejected',
      connected: 1,
      proxy: 'wp-nack.shop',
      detail: 'cluster outbound|9090||x: bad',
    });
    assert.ok(seen.some((g) => g.includes(GATEWAY)));
    const proxy = h.server.acks.proxies().find((p) => p.nodeId === 'wp-nack.shop')!;
    assert.ok(proxy.routes.some((r) => r.state === 'rejected' && r.name.startsWith('cluster/')));
    unsubscribe();
    s.close();
  });

  it("refuses another Gateway's credential with PERMISSION_DENIED naming the cluster and the identity", async () => {
    const s = h.client('shop', 'other').sotw();
    s.send({ node: waypointNode('shop', 'wp'), typeUrl: CLUSTER_TYPE });
    const status = await s.status;
    assert.equal(status.code, grpc.status.PERMISSION_DENIED);
    assert.match(status.details, /node\.cluster "wp\.shop"/);
    assert.match(status.details, /spiffe:\/\/cluster\.local\/ns\/shop\/sa\/wp/);
    assert.match(status.details, /spiffe:\/\/cluster\.local\/ns\/shop\/sa\/other/);
    assert.equal(h.server.metrics.refused.get('waypoint_identity'), 1);
  });

  it('refuses a request without node.cluster and an unknown type URL', async () => {
    const s = h.client('shop', 'wp').sotw();
    s.send({ node: { id: 'x' }, typeUrl: CLUSTER_TYPE });
    assert.equal((await s.status).code, grpc.status.PERMISSION_DENIED);
    const t = h.client('shop', 'wp').sotw();
    t.send({ node: waypointNode('shop', 'wp'), typeUrl: 'type.googleapis.com/envoy.config.core.v3.Secret' });
    const status = await t.status;
    assert.equal(status.code, grpc.status.INVALID_ARGUMENT);
    assert.match(status.details, /unsupported type URL/);
  });

  it('answers an unknown Gateway with empty responses, then serves it once it appears', async () => {
    const s = h.client('shop', 'later').sotw();
    s.send({ node: waypointNode('shop', 'later'), typeUrl: CLUSTER_TYPE });
    const cds = await s.next();
    assert.deepEqual(cds.resources, []);
    s.send(sotwAck(cds));
    s.send({ typeUrl: LISTENER_TYPE });
    const lds = await s.next();
    assert.deepEqual(lds.resources, []);
    s.send(sotwAck(lds));
    const services = new Map([
      ['Service/shop/dubbo', dubbo('d.shop.svc.cluster.local', '10.96.1.1', ['10.244.1.1'])],
    ]);
    h.cache.apply([{ gateway: 'shop/later', listener: LISTENER_TEMPLATE, services }]);
    const [c, l] = await s.take(2);
    assert.deepEqual(
      [c!.typeUrl, c!.resources.length, l!.typeUrl, l!.resources.length],
      [CLUSTER_TYPE, 1, LISTENER_TYPE, 1],
      'clusters before the listener that uses them',
    );
    assert.deepEqual(problemsOf([...c!.resources, ...l!.resources]), []);
    s.close();
  });
});

describe('ADS admission with a restricted RDS peer policy', () => {
  let h: AdsHarness;
  before(async () => {
    const peers = {
      trustDomain: 'cluster.local',
      trustDomainAliases: [],
      allowedNamespaces: ['istio-system'],
    };
    h = await startAds(undefined, peers);
  });
  after(() => h.stop());

  it("admits a waypoint by its Gateway's identity, whatever namespaces may read routes", async () => {
    const s = h.client('shop', 'wp').sotw();
    s.send({ node: waypointNode('shop', 'wp'), typeUrl: CLUSTER_TYPE });
    assert.equal((await s.next()).resources.length, 5);
    s.close();
    const t = h.client('shop', 'intruder').sotw();
    t.send({ node: waypointNode('shop', 'wp'), typeUrl: CLUSTER_TYPE });
    assert.equal((await t.status).code, grpc.status.PERMISSION_DENIED);
  });
});
