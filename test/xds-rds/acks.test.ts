import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ROUTE_CONFIGURATION_TYPE } from '../../src/model/constants.ts';
import { proxiesDocument } from '../../src/app/debug.ts';
import { AerakiMetrics } from '../../src/ops/metrics.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { AckTracker, proxyNamespace } from '../../src/xds-rds/acks.ts';
import { RdsServer } from '../../src/xds-rds/server.ts';
import { SnapshotCache } from '../../src/xds-rds/snapshot.ts';
import type { RouteConfigurationJson } from '../../src/xds-rds/route-json.ts';
import { ackOf, RdsTestClient, sotwRequest } from '../fakes/rds-client.ts';
import { waitFor } from '../support/python.ts';

const A = 'a.example_1';
const B = 'b.example_2';

const route = (name: string, cluster: string): RouteConfigurationJson => ({
  name,
  virtualHosts: [{ name: 'dummy', domains: ['*'], routes: [{ match: { prefix: '/' }, route: { cluster } }] }],
});

/** The value of one sample line of the Prometheus text (`name` with its labels, if any). */
const sample = (text: string, name: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
};

const nackOf = (
  resp: { versionInfo: string; nonce: string },
  names: string[],
  message: string,
  kept = '',
) => ({
  typeUrl: ROUTE_CONFIGURATION_TYPE,
  resourceNames: names,
  versionInfo: kept,
  responseNonce: resp.nonce,
  errorDetail: { code: 3, message },
});

describe('RDS acknowledgements per stream and per route', () => {
  let cache: SnapshotCache;
  let server: RdsServer;
  let port: number;
  const clients: RdsTestClient[] = [];
  const client = () => {
    const c = new RdsTestClient(port, 'insecure', '127.0.0.1');
    clients.push(c);
    return c;
  };
  const observed: number[] = [];
  const metrics = new AerakiMetrics({ defaultMetrics: false });

  before(async () => {
    cache = new SnapshotCache();
    cache.setRoutes([route(A, 'a1'), route(B, 'b1')]);
    server = new RdsServer(
      { host: '127.0.0.1', port: 0, logger: silentLogger, tls: { insecure: true } },
      cache,
    );
    server.acks.onAllAcked = (ms) => {
      observed.push(ms);
      metrics.configToAck.observe(ms / 1000);
    };
    metrics.provide({ routeAcks: () => server.acks });
    port = await server.start();
  });

  after(async () => {
    for (const c of clients) c.close();
    await server.stop();
  });

  it('SotW: a NACK is recorded against the route, pushes nothing, and a later ACK clears it', async () => {
    const s = client().sotw();
    s.send(sotwRequest([A]));
    const r1 = await s.next();
    await waitFor(() => server.acks.summary(A)?.pending === 1);
    s.send(ackOf(r1, [A]));
    await waitFor(() => server.acks.summary(A)?.acked === 1);
    assert.deepEqual(server.acks.summary(A), {
      name: A,
      subscribed: 1,
      acked: 1,
      pending: 0,
      oldestPendingMs: 0,
      rejected: 0,
    });

    const changeAt = Date.now();
    cache.setRoutes([route(A, 'a2'), route(B, 'b1')]);
    server.acks.noteChange([A], changeAt);
    const r2 = await s.next();
    assert.equal(server.acks.summary(A)?.pending, 1);
    s.send(nackOf(r2, [A], `bad route ${'x'.repeat(2000)}`, r1.versionInfo));
    await waitFor(() => server.acks.summary(A)?.rejected === 1);
    const sum = server.acks.summary(A)!;
    assert.equal(sum.firstRejection?.proxy, 'sidecar~10.0.0.1~proxy-0.ns~ns.svc.cluster.local');
    assert.equal(sum.firstRejection?.version, cache.snapshot().resources.get(A)?.version);
    assert.equal(sum.firstRejection?.detail.length, 1024);
    assert.ok(sum.firstRejection?.detail.startsWith('bad route x'));
    assert.equal(server.acks.routeConfigsRejected, 1);
    assert.equal(server.acks.proxiesRejecting, 1);
    let text = await metrics.render();
    assert.equal(sample(text, 'aeraki_route_configs_rejected'), 1);
    assert.equal(sample(text, 'aeraki_proxies_rejecting_routes'), 1);
    const doc = JSON.parse(JSON.stringify(proxiesDocument(server.acks))) as {
      proxies: { nodeId: string; routes: { name: string; rejected?: { errorDetail: string } }[] }[];
      routes: { name: string; rejected: number }[];
      routeConfigsRejected: number;
    };
    assert.equal(doc.proxies[0]?.nodeId, 'sidecar~10.0.0.1~proxy-0.ns~ns.svc.cluster.local');
    assert.equal(doc.proxies[0]?.routes[0]?.name, A);
    assert.ok(doc.proxies[0]?.routes[0]?.rejected?.errorDetail.startsWith('bad route'));
    assert.deepEqual(
      doc.routes.map((r) => [r.name, r.rejected]),
      [[A, 1]],
    );
    assert.equal(doc.routeConfigsRejected, 1);
    const [proxy] = server.acks.proxies();
    assert.equal(proxy?.namespace, 'ns');
    assert.equal(proxy?.protocol, 'sotw');
    assert.equal(proxy?.routes[0]?.state, 'rejected');
    assert.equal(proxy?.routes[0]?.rejected?.version, proxy?.routes[0]?.sent);
    assert.notEqual(proxy?.routes[0]?.acked, proxy?.routes[0]?.sent, 'the proxy keeps the last good version');
    // A NACK pushes nothing else; nothing until the next change.
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(s.inbox.pending(), 0);
    assert.deepEqual(observed, [], 'not every proxy acknowledged the change');

    cache.setRoutes([route(A, 'a3'), route(B, 'b1')]);
    const r3 = await s.next();
    assert.equal(server.acks.summary(A)?.rejected, 0, 'a new version is pending again');
    assert.equal(server.acks.routeConfigsRejected, 0);
    s.send(ackOf(r3, [A]));
    await waitFor(() => server.acks.summary(A)?.acked === 1);
    assert.equal(server.acks.proxiesRejecting, 0);
    assert.equal(server.acks.proxies()[0]?.routes[0]?.rejected, undefined);
    assert.equal(observed.length, 1, 'the change is measured once every subscribed proxy acknowledged');
    text = await metrics.render();
    assert.equal(sample(text, 'aeraki_route_configs_rejected'), 0);
    assert.equal(sample(text, 'aeraki_proxies_rejecting_routes'), 0);
    assert.equal(sample(text, 'aeraki_config_to_ack_seconds_count'), 1);
    s.close();
    await waitFor(() => server.acks.summary(A) === undefined);
  });

  it('a proxy that never answers stays pending; one that disconnects no longer counts', async () => {
    const quiet = client().sotw();
    quiet.send(sotwRequest([A, B]));
    await quiet.next();
    const answering = client().sotw();
    answering.send(sotwRequest([B]));
    const r = await answering.next();
    answering.send(ackOf(r, [B]));
    await waitFor(() => server.acks.summary(B)?.acked === 1);
    const b = server.acks.summary(B)!;
    assert.equal(b.subscribed, 2);
    assert.equal(b.pending, 1);
    assert.ok(b.oldestPendingMs >= 0);
    assert.equal(server.acks.summary(A)?.pending, 1);
    quiet.close();
    await waitFor(() => server.acks.summary(B)?.subscribed === 1);
    assert.equal(server.acks.summary(A), undefined);
    assert.equal(server.acks.summary(B)?.pending, 0);
    answering.close();
    await waitFor(() => server.acks.streamCount === 0);
  });

  it('delta: a NACK is recorded, pushes nothing, and a later ACK clears it; an unsubscribe forgets', async () => {
    const d = client().delta();
    d.send({
      node: { id: 'delta-proxy' },
      typeUrl: ROUTE_CONFIGURATION_TYPE,
      resourceNamesSubscribe: [A, B],
    });
    const r1 = await d.next();
    assert.equal(r1.resources.length, 2);
    d.send({ typeUrl: ROUTE_CONFIGURATION_TYPE, responseNonce: r1.nonce });
    await waitFor(() => server.acks.summary(A)?.acked === 1 && server.acks.summary(B)?.acked === 1);

    cache.setRoutes([route(A, 'a4'), route(B, 'b1')]);
    const r2 = await d.next();
    d.send({
      typeUrl: ROUTE_CONFIGURATION_TYPE,
      responseNonce: r2.nonce,
      errorDetail: { code: 3, message: 'no' },
    });
    await waitFor(() => server.acks.summary(A)?.rejected === 1);
    assert.equal(server.acks.summary(B)?.acked, 1, 'only the route the response carried is rejected');
    assert.equal(server.acks.routeConfigsRejected, 1);
    assert.equal(server.acks.proxiesRejecting, 1);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(d.inbox.pending(), 0, 'a NACK pushes nothing');

    cache.setRoutes([route(A, 'a5'), route(B, 'b1')]);
    const r3 = await d.next();
    d.send({ typeUrl: ROUTE_CONFIGURATION_TYPE, responseNonce: r3.nonce });
    await waitFor(() => server.acks.summary(A)?.acked === 1);
    assert.equal(server.acks.proxiesRejecting, 0);

    d.send({ typeUrl: ROUTE_CONFIGURATION_TYPE, resourceNamesUnsubscribe: [A] });
    await waitFor(() => server.acks.summary(A) === undefined);
    d.close();
    await waitFor(() => server.acks.streamCount === 0);
  });

  it('reports the routes a proxy subscribes to and was not sent (NOT SENT), SotW and delta', async () => {
    const GONE = 'gone.example_3';
    const notSent = (nodeId: string) => server.acks.proxies().find((p) => p.nodeId === nodeId)?.notSent;
    const s = client().sotw();
    s.send(sotwRequest([A, GONE], { node: { id: 'sotw-unserved' } }));
    s.send(ackOf(await s.next(), [A, GONE]));
    await waitFor(() => server.acks.summary(A)?.acked === 1);
    assert.deepEqual(notSent('sotw-unserved'), [GONE]);
    const d = client().delta();
    d.send({
      node: { id: 'delta-unserved' },
      typeUrl: ROUTE_CONFIGURATION_TYPE,
      resourceNamesSubscribe: [GONE, B],
    });
    d.send({ typeUrl: ROUTE_CONFIGURATION_TYPE, responseNonce: (await d.next()).nonce });
    await waitFor(() => server.acks.summary(B)?.acked === 1);
    assert.deepEqual(notSent('delta-unserved'), [GONE]);
    // In /debug/proxies, beside the routes it was sent.
    const doc = proxiesDocument(server.acks);
    const report = doc.proxies.find((p) => p.nodeId === 'delta-unserved')!;
    assert.deepEqual([report.routes.map((r) => r.name), report.notSent], [[B], [GONE]]);
    // The route appears: sent, no longer NOT SENT; a route removed from the server is NOT SENT again.
    cache.setRoutes([route(A, 'a1'), route(B, 'b1'), route(GONE, 'g')]);
    s.send(ackOf(await s.next(), [A, GONE]));
    await waitFor(() => notSent('sotw-unserved') === undefined);
    cache.setRoutes([route(A, 'a1'), route(B, 'b1')]);
    await waitFor(() => notSent('sotw-unserved')?.[0] === GONE);
    // Unsubscribed: nothing to report.
    d.send({ typeUrl: ROUTE_CONFIGURATION_TYPE, resourceNamesUnsubscribe: [GONE] });
    await waitFor(() => notSent('delta-unserved') === undefined);
    s.close();
    d.close();
    await waitFor(() => server.acks.streamCount === 0);
  });

  it('delta: declared initial versions count as acknowledged', async () => {
    const version = cache.snapshot().resources.get(B)!.version;
    const d = client().delta();
    d.send({
      node: { id: 'delta-initial' },
      typeUrl: ROUTE_CONFIGURATION_TYPE,
      resourceNamesSubscribe: [B],
      initialResourceVersions: { [B]: version },
    });
    await waitFor(() => server.acks.summary(B)?.acked === 1);
    assert.equal(server.acks.proxies()[0]?.routes[0]?.acked, version);
    d.close();
    await waitFor(() => server.acks.streamCount === 0);
  });
});

describe('AckTracker', () => {
  it('keeps counts per route as answers come, and measures a change to its last ACK', () => {
    let now = 1000;
    const seen: number[] = [];
    const t = new AckTracker({ clock: { now: () => now } as never, onAllAcked: (ms) => seen.push(ms) });
    const p1 = t.open('spiffe://cluster.local/ns/a/sa/x', 'delta');
    const p2 = t.open('unauthenticated', 'sotw');
    p1.sent('1', [{ name: 'r', version: 'v1' }], false);
    p2.sent('1', [{ name: 'r', version: 'v1' }], true);
    t.noteChange(['r'], 900);
    now = 1500;
    assert.equal(t.summary('r')?.oldestPendingMs, 500);
    p1.ack('1');
    assert.deepEqual(seen, []);
    p2.nack('1', 'bad');
    assert.equal(t.routeConfigsRejected, 1);
    p2.close();
    assert.equal(t.routeConfigsRejected, 0);
    assert.equal(t.proxiesRejecting, 0);
    assert.deepEqual(seen, [600], 'the disconnect left only proxies that acknowledged');
    p1.ack('1');
    assert.deepEqual(seen, [600], 'an answer to a settled nonce changes nothing');
    assert.equal(t.proxies()[0]?.namespace, 'a');
  });

  it('reads the namespace from a SPIFFE peer or an Istio node id', () => {
    assert.equal(proxyNamespace('', 'spiffe://cluster.local/ns/foo/sa/bar'), 'foo');
    assert.equal(
      proxyNamespace('sidecar~10.0.0.1~pod-0.bar~bar.svc.cluster.local', 'unauthenticated'),
      'bar',
    );
    assert.equal(proxyNamespace('x', 'unauthenticated'), undefined);
  });
});
