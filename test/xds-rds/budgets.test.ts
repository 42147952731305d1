// Route-name budgets (src/xds-rds/budgets.ts): the accounting per connection and per identity, streams refused
// with RESOURCE_EXHAUSTED naming the budget and its flag, and everything a stream holds released when it ends; then
// the same on a real mTLS server (refusals counted and logged once per identity, nothing left once the client left).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import { ROUTE_CONFIGURATION_TYPE } from '../../src/model/constants.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { AckTracker } from '../../src/xds-rds/acks.ts';
import {
  NameBudgets,
  nameCost,
  type BudgetRefusal,
  type NameBudgetLimits,
} from '../../src/xds-rds/budgets.ts';
import { DeltaStream } from '../../src/xds-rds/delta-stream.ts';
import { RdsMetrics } from '../../src/xds-rds/metrics.ts';
import { buildRouteConfigurations } from '../../src/xds-rds/routes.ts';
import { RdsServer } from '../../src/xds-rds/server.ts';
import { SnapshotCache } from '../../src/xds-rds/snapshot.ts';
import { SotwStream } from '../../src/xds-rds/sotw-stream.ts';
import type { StreamDeps, StreamSink } from '../../src/xds-rds/stream-types.ts';
import { recordingLogger } from '../support/recording-logger.ts';
import { metaRouter, serviceEntry, storeOf } from '../support/builders.ts';
import { RdsTestClient, sotwRequest, type RdsTestStream } from '../fakes/rds-client.ts';
import { meshClient, testCa, writeCertDir, type CertDir } from '../fakes/test-ca.ts';

const T = ROUTE_CONFIGURATION_TYPE;
const ID = 'spiffe://cluster.local/ns/shop/sa/orders';
const names = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${prefix}${i}.example_20880`);
const cost = (list: readonly string[]) => list.reduce((sum, n) => sum + nameCost(n), 0);

function limits(over: Partial<NameBudgetLimits> = {}): NameBudgetLimits {
  return {
    maxRouteNameBytes: 300,
    maxRouteNamesPerStream: 10_000,
    maxRouteNameBytesPerConnection: 1 << 20,
    maxRouteNameBytesPerIdentity: 4 << 20,
    ...over,
  };
}

describe('NameBudgets: accounting', () => {
  it('charges a connection across its streams, refuses what would exceed it, and takes it back on close', () => {
    const refusals: [BudgetRefusal, string][] = [];
    const ten = names('a', 10);
    const budgets = new NameBudgets(limits({ maxRouteNameBytesPerConnection: cost(ten) + 10 }), (r, id) =>
      refusals.push([r, id]),
    );
    const a = budgets.open(ID, '10.0.0.1:4000');
    const b = budgets.open(ID, '10.0.0.1:4000');
    assert.equal(a.change(ten.slice(0, 6), [], 6), undefined);
    assert.equal(b.change(ten.slice(6), [], 4), undefined);
    const over = b.change(['x.example_1'], [], 5);
    assert.equal(over?.reason, 'connection_budget');
    assert.match(
      over.message,
      /budget is \d+ bytes per connection \(--rds-max-route-name-bytes-per-connection\)/,
    );
    assert.deepEqual(refusals, [[over, ID]]);
    assert.equal(b.charged, cost(ten.slice(6)), 'nothing charged for a refusal');
    // Another connection of the same identity has its own connection budget.
    assert.equal(budgets.open(ID, '10.0.0.1:4001').change(['x.example_1'], [], 1), undefined);
    // Dropping names releases them; the stream's close releases the rest.
    assert.equal(b.change(['x.example_1'], ten.slice(6, 8), 3), undefined);
    a.close();
    a.close();
    assert.equal(budgets.identityBytes(ID), cost(ten.slice(8)) + 2 * nameCost('x.example_1'));
    b.close();
    budgets.open(ID, 'unused').close();
    assert.equal(budgets.held.connections, 1, 'only the stream on the other connection holds names');
  });

  it('charges an identity across its connections, and other identities apart', () => {
    const list = names('b', 20);
    const budgets = new NameBudgets(limits({ maxRouteNameBytesPerIdentity: cost(list) }));
    const streams = [0, 1, 2, 3].map((i) => budgets.open(ID, `10.0.0.${i}:1`));
    for (const [i, s] of streams.entries())
      assert.equal(s.change(list.slice(i * 5, i * 5 + 5), [], 5), undefined);
    const over = budgets.open(ID, '10.0.0.9:1').change(['one-more.example_1'], [], 1);
    assert.equal(over?.reason, 'identity_budget');
    assert.match(
      over.message,
      new RegExp(`^${ID} would hold \\d+ bytes .*\\(--rds-max-route-name-bytes-per-identity\\)`),
    );
    assert.equal(budgets.open('spiffe://cluster.local/ns/pay/sa/x', 'c:1').change(list, [], 20), undefined);
    for (const s of streams) s.close();
    assert.equal(budgets.identityBytes(ID), 0);
    assert.equal(budgets.open(ID, '10.0.0.9:1').change(['one-more.example_1'], [], 1), undefined);
  });

  it('checks the length of every name and the names of a stream, naming the field and the flag', () => {
    const reasons: string[] = [];
    const budgets = new NameBudgets(limits({ maxRouteNameBytes: 20, maxRouteNamesPerStream: 3 }), (r) =>
      reasons.push(r.reason),
    );
    const s = budgets.open(ID, 'c:1');
    assert.equal(s.checkNames('resource_names', ['short_1', 'x'.repeat(20)]), undefined);
    assert.equal(
      s.checkNames('resource_names', ['short_1', `${'é'.repeat(10)}_1`])?.message,
      'resource_names[1] is 22 bytes; the budget is 20 bytes per route name (--rds-max-route-name-bytes)',
    );
    assert.equal(
      s.checkNames('resource_names_subscribe', ['a', 'b', 'c', 'd'])?.message,
      'resource_names_subscribe lists 4 route names; the budget is 3 per stream (--rds-max-route-names-per-stream)',
    );
    assert.match(s.change(['d'], [], 4)?.message ?? '', /^the stream would subscribe to 4 route names/);
    assert.deepEqual(reasons, ['name_length', 'stream_budget', 'stream_budget']);
    // 0 is no limit.
    const free = new NameBudgets(limits({ maxRouteNameBytes: 0, maxRouteNamesPerStream: 0 })).open(ID, 'c');
    assert.equal(free.checkNames('resource_names', ['y'.repeat(5000), ...names('c', 20)]), undefined);
  });
});

class Sink implements StreamSink {
  sent = 0;
  failed: { code: number; message: string } | undefined;
  send(): void {
    this.sent++;
  }
  fail(code: number, message: string): void {
    this.failed = { code, message };
  }
}

describe('RDS streams within their budgets', () => {
  const served = ['a.example_1', 'b.example_1'];
  const setup = (over: Partial<NameBudgetLimits>) => {
    const cache = new SnapshotCache();
    cache.setRoutes(
      served.map((name) => ({
        name,
        virtualHosts: [
          {
            name: 'dummy',
            domains: ['*'],
            routes: [{ name: 'default', match: { prefix: '/' }, route: { cluster: 'c' } }],
          },
        ],
      })),
    );
    const budgets = new NameBudgets(limits(over));
    const acks = new AckTracker();
    const metrics = new RdsMetrics();
    const deps = (sink: Sink): StreamDeps => ({
      cache,
      sink,
      logger: silentLogger,
      metrics,
      peer: ID,
      acks,
      budget: budgets.open(ID, 'c:1'),
    });
    return { cache, budgets, acks, metrics, deps };
  };

  it('SotW: a stream over the connection budget ends with RESOURCE_EXHAUSTED; the other keeps its routes', () => {
    const extra = names('s', 10);
    const { cache, budgets, acks, deps } = setup({
      maxRouteNameBytesPerConnection: cost(served) + cost(extra) - 1,
    });
    const first = new SotwStream(deps(new Sink()));
    first.handleRequest({
      versionInfo: '',
      nodeId: 'p',
      resourceNames: served,
      typeUrl: T,
      responseNonce: '',
    });
    const sink = new Sink();
    const second = new SotwStream(deps(sink));
    second.handleRequest({
      versionInfo: '',
      nodeId: 'p',
      resourceNames: extra,
      typeUrl: T,
      responseNonce: '',
    });
    assert.equal(sink.failed?.code, grpc.status.RESOURCE_EXHAUSTED);
    assert.match(sink.failed.message, /--rds-max-route-name-bytes-per-connection/);
    assert.equal(cache.watchedNameCount, 2, 'the refused stream watches nothing');
    assert.equal(budgets.identityBytes(ID), cost(served));
    // Re-sending the same names costs nothing more; dropping one releases it.
    first.handleRequest({
      versionInfo: '',
      nodeId: 'p',
      resourceNames: served,
      typeUrl: T,
      responseNonce: '1',
    });
    first.handleRequest({
      versionInfo: '',
      nodeId: 'p',
      resourceNames: [served[0]!],
      typeUrl: T,
      responseNonce: '1',
    });
    assert.equal(budgets.identityBytes(ID), nameCost(served[0]!));
    first.close();
    assert.deepEqual(
      [
        cache.watchedNameCount,
        acks.streamCount,
        acks.routeCount,
        budgets.held.connections,
        budgets.held.identities,
      ],
      [0, 0, 0, 0, 0],
    );
  });

  it('delta: subscribe and unsubscribe charge and release; initial versions of names not subscribed are not kept', () => {
    const { cache, budgets, acks, deps } = setup({ maxRouteNamesPerStream: 502 });
    const sink = new Sink();
    const stream = new DeltaStream(deps(sink));
    const unrelated = Object.fromEntries(names('u', 500).map((n) => [n, 'v']));
    stream.handleRequest({
      nodeId: 'p',
      typeUrl: T,
      subscribe: served,
      unsubscribe: [],
      initialResourceVersions: { ...unrelated, [served[0]!]: 'x'.repeat(4000) },
      responseNonce: '',
    });
    assert.equal(sink.failed, undefined);
    assert.equal(
      (stream as unknown as { known: Map<string, string> }).known.size,
      2,
      'only subscribed names',
    );
    assert.equal(sink.sent, 1, 'a name declared at a version that is not ours is sent');
    assert.equal(budgets.identityBytes(ID), cost(served));
    stream.handleRequest({
      nodeId: '',
      typeUrl: T,
      subscribe: [],
      unsubscribe: [served[1]!],
      initialResourceVersions: {},
      responseNonce: '',
    });
    assert.equal(budgets.identityBytes(ID), nameCost(served[0]!));
    stream.handleRequest({
      nodeId: '',
      typeUrl: T,
      subscribe: names('d', 502),
      unsubscribe: [],
      initialResourceVersions: {},
      responseNonce: '',
    });
    const failed = sink.failed as Sink['failed'];
    assert.equal(failed?.code, grpc.status.RESOURCE_EXHAUSTED);
    assert.match(
      failed?.message ?? '',
      /^the stream would subscribe to 503 route names; the budget is 502 per stream/,
    );
    assert.equal((stream as unknown as { known: Map<string, string> }).known.size, 0);
    assert.deepEqual(
      [
        cache.watchedNameCount,
        acks.streamCount,
        acks.routeCount,
        budgets.held.connections,
        budgets.held.identities,
      ],
      [0, 0, 0, 0, 0],
    );
  });
});

describe('RDS server: route-name budgets over mTLS', () => {
  const HOST = 'budget.example';
  const NAME = `${HOST}_20880`;
  let certs: CertDir;
  let server: RdsServer;
  let port = 0;
  const logger = recordingLogger();
  const clients: RdsTestClient[] = [];
  const client = (id: string) => {
    const c = meshClient([id]);
    const rc = new RdsTestClient(port, { ca: testCa().ca, cert: c.cert, key: c.key });
    clients.push(rc);
    return rc;
  };

  before(async () => {
    certs = writeCertDir();
    const cache = new SnapshotCache();
    cache.setRoutes(
      buildRouteConfigurations(
        storeOf([
          serviceEntry('ns', 'b', { hosts: [HOST], ports: [{ number: 20880, name: 'tcp-metaprotocol-x' }] }),
          metaRouter('ns', 'mr', {
            hosts: [HOST],
            routes: [
              {
                name: 'r',
                route: [{ destination: { host: HOST } }],
                requestMutation: [],
                responseMutation: [],
              },
            ],
          }),
        ]),
      ).routes,
    );
    const perConnection = nameCost(NAME) + cost(names('n', 50)) + 100;
    server = new RdsServer(
      {
        host: '127.0.0.1',
        port: 0,
        logger,
        tls: { ...certs, pollIntervalMs: 60_000 },
        limits: { maxRouteNameBytesPerConnection: perConnection },
      },
      cache,
    );
    port = await server.start();
  });
  after(async () => {
    for (const c of clients) c.close();
    await server.stop();
    certs.remove();
  });

  it('ends streams over a budget with RESOURCE_EXHAUSTED, counts them by reason, logs once, keeps the others', async () => {
    const rc = client(ID);
    const good = rc.sotw();
    good.send(sotwRequest([NAME, ...names('n', 50)]));
    assert.equal((await good.next()).resources.length, 1);
    const refused: RdsTestStream<unknown>[] = [];
    for (let i = 0; i < 2; i++) {
      const s = rc.sotw();
      s.send(sotwRequest(names(`m${i}-`, 10)));
      refused.push(s);
    }
    const long = rc.delta();
    long.send({ node: { id: 'p' }, typeUrl: T, resourceNamesSubscribe: ['z'.repeat(301)] });
    for (const s of [...refused, long]) {
      const status = await s.status;
      assert.equal(status.code, grpc.status.RESOURCE_EXHAUSTED);
    }
    assert.match(
      (await refused[0]!.status).details,
      /per connection \(--rds-max-route-name-bytes-per-connection\)/,
    );
    assert.equal(
      (await long.status).details,
      'resource_names_subscribe[0] is 301 bytes; the budget is 300 bytes per route name (--rds-max-route-name-bytes)',
    );
    assert.equal(server.metrics.refused.get('connection_budget'), 2);
    assert.equal(server.metrics.refused.get('name_length'), 1);
    const warned = logger.records.filter((r) => r.level === 'warn' && r.message === 'rds: client refused');
    assert.deepEqual(
      warned.map((r) => r.fields.reason),
      ['connection_budget', 'name_length'],
      'logged once per reason and identity',
    );
    // The good stream still gets its route, on the same connection.
    good.send({ ...sotwRequest([NAME]), responseNonce: '1', versionInfo: '' });
    const held = server.heldState();
    assert.equal(held.budgetConnections, 1);
    good.close();
    rc.close();
    for (let i = 0; server.heldState().streams > 0; i++) {
      assert.ok(i < 200, 'the stream ends');
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(
      Object.values(server.heldState()).every((v) => v === 0),
      JSON.stringify(server.heldState()),
    );
  });
});
