// MetaRouter Programmed from the proxies' answers: a real RDS server and client, the RouteSource over the store, and
// the status controller against the fake kube-apiserver, wired as serve wires them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { aerakiResources } from '../../src/controller/kube/resources.ts';
import { applyWrites } from '../../src/kit/apply.ts';
import { AerakiMetrics } from '../../src/ops/metrics.ts';
import { createPluginKinds } from '../../src/plugins/registry.ts';
import { StatusController } from '../../src/status/controller.ts';
import { createKubeStatusPort } from '../../src/status/kube.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { routeAcksOf, RouteSource, type TrackedRouteAcks } from '../../src/xds-rds/route-source.ts';
import type { ConfigEvent } from '../../src/model/view.ts';
import { RdsServer } from '../../src/xds-rds/server.ts';
import { SnapshotCache } from '../../src/xds-rds/snapshot.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';
import { ackOf, RdsTestClient, sotwRequest, type RdsTestStream } from '../fakes/rds-client.ts';
import { metaRouter, serviceEntry, storeOf } from '../support/builders.ts';
import { waitFor } from '../support/python.ts';
import type { ConfigStore } from '../../src/controller/store.ts';
import { ROUTE_CONFIGURATION_TYPE } from '../../src/model/constants.ts';
import type { SotwResponse } from '../../src/tools/rds-codec.ts';

const MR = 'metarouters.metaprotocol.aeraki.io';
const EV = { group: 'events.k8s.io', resource: 'events' };
const QUIET = 500;
const HOST = 'svc.shop.example';
const ROUTE = `${HOST}_20880`;

const apiRouter = (cluster: string) => ({
  apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
  kind: 'MetaRouter',
  metadata: { name: 'r', namespace: 'shop' },
  spec: { hosts: [HOST], routes: [{ route: [{ destination: { host: cluster } }] }] },
});
const storeRouter = (cluster: string, generation: number) =>
  metaRouter(
    'shop',
    'r',
    {
      hosts: [HOST],
      routes: [{ route: [{ destination: { host: cluster } }], requestMutation: [], responseMutation: [] }],
    },
    { generation },
  );

const sample = (text: string, name: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
};

describe('status: MetaRouter Programmed from the proxies acknowledgements', () => {
  let api: FakeKubeApiServer;
  let store: ConfigStore;
  let cache: SnapshotCache;
  let rds: RdsServer;
  let routes: RouteSource;
  let status: StatusController;
  let port: number;
  const clock = new ManualClock(Date.parse('2026-02-03T04:05:06Z'));
  const metrics = new AerakiMetrics({ defaultMetrics: false });
  const clients: RdsTestClient[] = [];
  let triggers = 0;

  before(async () => {
    api = await startFakeKubeApiServer();
    api.seed(apiRouter('a.shop.example'));
    store = storeOf([
      serviceEntry('shop', 'svc', {
        hosts: [HOST],
        ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo' }],
      }),
      storeRouter('a.shop.example', 1),
    ]);
    cache = new SnapshotCache();
    rds = new RdsServer({ host: '127.0.0.1', port: 0, logger: silentLogger, tls: { insecure: true } }, cache);
    metrics.provide({ routeAcks: () => rds.acks });
    // Wired as serve wires it (app/serve-rds.ts, serve-topics.ts): the routes rebuilt and the proxies' answers
    // noted for the status planner, the store's events handed to each run, so runs plan only what moved.
    let routeAcks: TrackedRouteAcks | undefined;
    routes = new RouteSource(store, cache, {
      logger: silentLogger,
      onRebuilt: (names) => {
        routeAcks?.noteChanged(names);
        triggers++;
      },
    });
    let changes: ConfigEvent[] = [];
    store.subscribe((e) => {
      routes.onEvent(e);
      changes.push(e);
    });
    routes.rebuild();
    const acks = (routeAcks = routeAcksOf(routes, rds.acks));
    rds.acks.onStateChange = (route) => {
      acks.noteChanged([route]);
      triggers++;
    };
    status = new StatusController({
      port: createKubeStatusPort(fakeKubeConfig(api), {
        resources: aerakiResources(createPluginKinds()),
        apiVersionOf: () => 'networking.istio.io/v1alpha3',
        instance: 'aeraki-0',
      }),
      apply: applyWrites,
      inputs: () => {
        const taken = changes;
        changes = [];
        return { view: store, rejected: [], issues: [], routeAcks: acks, changes: taken };
      },
      logger: silentLogger,
      quietMs: QUIET,
      maxWaitMs: 2000,
      resyncMs: 0,
      clock,
    });
    port = await rds.start();
  });

  after(async () => {
    for (const c of clients) c.close();
    await status.stop();
    routes.stop();
    await rds.stop();
    await api.close();
  });

  const proxy = (id: string): RdsTestStream<SotwResponse> => {
    const c = new RdsTestClient(port, 'insecure', '127.0.0.1');
    clients.push(c);
    const s = c.sotw();
    s.send(sotwRequest([ROUTE], { node: { id } }));
    return s;
  };
  const pass = async () => {
    status.trigger();
    clock.advance(QUIET);
    await status.idle();
  };
  const programmed = () =>
    ((api.get(MR, 'shop', 'r') as any).status?.conditions ?? []).find((c: any) => c.type === 'Programmed');
  const proxyEvents = () =>
    api.list(EV).filter((e: any) => e.reason === 'ProxyRejected') as { note?: string; type?: string }[];

  it('no proxy subscribed: True, saying so, with the observed generation', async () => {
    await pass();
    const c = programmed();
    assert.equal(c.status, 'True');
    assert.equal(c.reason, 'Programmed');
    assert.equal(c.message, `routes are served for host "${HOST}"; no proxy subscribed`);
    assert.equal(c.observedGeneration, 1);
    assert.deepEqual(routes.routesOf('shop', 'r'), [{ name: ROUTE, generation: 1 }]);
  });

  it('a proxy that never answers: Unknown/Pending; once it disconnects it no longer counts', async () => {
    const before = triggers;
    const quiet = proxy('sidecar~10.0.0.9~quiet-0.shop~shop.svc.cluster.local');
    await quiet.next();
    await waitFor(() => rds.acks.summary(ROUTE)?.pending === 1);
    assert.ok(triggers > before, 'a change of the proxies answers triggers the status controller');
    await pass();
    let c = programmed();
    assert.equal(c.status, 'Unknown');
    assert.equal(c.reason, 'Pending');
    assert.match(
      c.message,
      /^1 proxy of 1 has not acknowledged the routes for host "svc.shop.example" yet \(the oldest sent at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)$/,
    );
    quiet.close();
    await waitFor(() => rds.acks.summary(ROUTE) === undefined);
    await pass();
    c = programmed();
    assert.equal(c.status, 'True');
    assert.match(c.message, /no proxy subscribed$/);
  });

  it('a rejected version: False/ProxyRejected, one Warning Event, the metric; a valid version acknowledged: True', async () => {
    const s = proxy('sidecar~10.0.0.1~proxy-0.shop~shop.svc.cluster.local');
    const r1 = await s.next();
    s.send(ackOf(r1, [ROUTE]));
    await waitFor(() => rds.acks.summary(ROUTE)?.acked === 1);
    await pass();
    assert.equal(programmed().status, 'True');
    assert.equal(programmed().message, `routes are served for host "${HOST}": acknowledged by 1 proxy`);

    // generation 2: the proxy rejects the version built from it
    api.seed(apiRouter('b.shop.example'));
    assert.equal((api.get(MR, 'shop', 'r') as any).metadata.generation, 2);
    store.upsert(storeRouter('b.shop.example', 2));
    routes.flush();
    assert.deepEqual(routes.routesOf('shop', 'r'), [{ name: ROUTE, generation: 2 }]);
    const r2 = await s.next();
    s.send({
      typeUrl: ROUTE_CONFIGURATION_TYPE,
      resourceNames: [ROUTE],
      versionInfo: r1.versionInfo,
      responseNonce: r2.nonce,
      errorDetail: { code: 3, message: `unknown cluster ${'x'.repeat(2000)}` },
    });
    await waitFor(() => rds.acks.summary(ROUTE)?.rejected === 1);
    await pass();
    const c = programmed();
    assert.equal(c.status, 'False');
    assert.equal(c.reason, 'ProxyRejected');
    assert.equal(c.observedGeneration, 2);
    const version = cache.snapshot().resources.get(ROUTE)?.version;
    assert.ok(
      c.message.startsWith(
        `1 proxy of 1 rejected the routes for host "${HOST}"; proxy sidecar~10.0.0.1~proxy-0.shop~shop.svc.cluster.local ` +
          `rejected version ${version} of route ${ROUTE}: unknown cluster x`,
      ),
      c.message,
    );
    assert.ok(c.message.endsWith('x...'), 'the error detail is cut');
    let events = proxyEvents();
    assert.equal(events.length, 1);
    assert.equal(events[0]?.type, 'Warning');
    assert.ok(
      events[0]?.note?.startsWith(
        `proxy sidecar~10.0.0.1~proxy-0.shop~shop.svc.cluster.local rejected version ${version}`,
      ),
    );
    assert.equal(sample(await metrics.render(), 'aeraki_route_configs_rejected'), 1);
    // The next pass reports nothing new; the rejection pushes nothing else to the proxy.
    await pass();
    assert.equal(proxyEvents().length, 1, 'one Event per rejected version');
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(s.inbox.pending(), 0, 'a rejection pushes nothing');

    // generation 3, valid: acknowledged
    api.seed(apiRouter('c.shop.example'));
    store.upsert(storeRouter('c.shop.example', 3));
    routes.flush();
    const r3 = await s.next();
    await pass();
    assert.equal(programmed().status, 'Unknown', 'sent, not answered yet');
    await pass(); // reads back its write: nothing is left to plan, so the answer alone must bring what follows
    s.send(ackOf(r3, [ROUTE]));
    await waitFor(() => rds.acks.summary(ROUTE)?.acked === 1);
    await pass();
    const ok = programmed();
    assert.equal(ok.status, 'True');
    assert.equal(ok.reason, 'Programmed');
    assert.equal(ok.message, `routes are served for host "${HOST}": acknowledged by 1 proxy`);
    assert.equal(ok.observedGeneration, 3);
    events = proxyEvents();
    assert.equal(events.length, 1, 'no Event for an acknowledged version');
    assert.equal(sample(await metrics.render(), 'aeraki_route_configs_rejected'), 0);
    s.close();
  });

  it('routes not rebuilt from the current generation yet: Unknown/Pending', async () => {
    api.seed(apiRouter('d.shop.example'));
    await pass();
    const c = programmed();
    assert.equal(c.status, 'Unknown');
    assert.equal(c.reason, 'Pending');
    assert.equal(c.message, `the routes for host "${HOST}" are built from generation 3, not yet 4`);
  });
});
