// Who may read routes and the limits against bad clients, on a real RDS server over mTLS: client identities
// (SPIFFE URI SANs) refused with PERMISSION_DENIED before any response, logged once, counted; connections per
// identity; streams that never send; pings too often (GOAWAY too_many_pings); oversized messages.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as http2 from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from '../../src/util/logger.ts';
import { AerakiMetrics } from '../../src/ops/metrics.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { buildRouteConfigurations } from '../../src/xds-rds/routes.ts';
import { RdsServer, type RdsServerOptions } from '../../src/xds-rds/server.ts';
import { SnapshotCache } from '../../src/xds-rds/snapshot.ts';
import { metaRouter, serviceEntry, storeOf } from '../support/builders.ts';
import { RdsTestClient, sotwRequest } from '../fakes/rds-client.ts';
import { meshClient, testCa, writeCertDir, type CertDir } from '../fakes/test-ca.ts';

const HOST = 'guarded.example';
const NAME = `${HOST}_20880`;
const routes = buildRouteConfigurations(
  storeOf([
    serviceEntry('ns', 'guarded', { hosts: [HOST], ports: [{ number: 20880, name: 'tcp-metaprotocol-x' }] }),
    metaRouter('ns', 'mr', {
      hosts: [HOST],
      routes: [
        { name: 'r', route: [{ destination: { host: HOST } }], requestMutation: [], responseMutation: [] },
      ],
    }),
  ]),
).routes;

interface LogLine {
  level: string;
  message: string;
  fields: Record<string, unknown>;
}

function recordingLogger(lines: LogLine[]): Logger {
  const at =
    (level: string) =>
    (message: string, fields: Record<string, unknown> = {}) =>
      lines.push({ level, message, fields });
  const logger: Logger = {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: () => logger,
  };
  return logger;
}

/** A server of the routes above with these options; `client(uris)` connects with a mesh certificate. */
function harness(extra: Partial<RdsServerOptions> = {}) {
  const h = {
    certs: undefined as unknown as CertDir,
    server: undefined as unknown as RdsServer,
    port: 0,
    logs: [] as LogLine[],
    clients: [] as RdsTestClient[],
    client(uris: readonly string[]): RdsTestClient {
      const c = meshClient(uris);
      const client = new RdsTestClient(h.port, { ca: testCa().ca, cert: c.cert, key: c.key });
      h.clients.push(client);
      return client;
    },
  };
  before(async () => {
    h.certs = writeCertDir();
    const cache = new SnapshotCache();
    cache.setRoutes(routes);
    h.server = new RdsServer(
      {
        host: '127.0.0.1',
        port: 0,
        logger: recordingLogger(h.logs),
        tls: { ...h.certs, pollIntervalMs: 60_000 },
        ...extra,
      },
      cache,
    );
    h.port = await h.server.start();
  });
  after(async () => {
    for (const c of h.clients) c.close();
    await h.server.stop();
    h.certs.remove();
  });
  return h;
}

const SHOP = 'spiffe://cluster.local/ns/shop/sa/orders';

describe('RDS: who may read routes', () => {
  const h = harness({
    peers: {
      trustDomain: 'cluster.local',
      trustDomainAliases: ['old.mesh'],
      allowedNamespaces: ['shop', 'pay'],
    },
  });

  const refusal = async (uris: readonly string[]) => {
    const s = h.client(uris).sotw();
    s.send(sotwRequest([NAME]));
    const status = await s.status;
    assert.equal(s.inbox.count, 0, 'no response before the refusal');
    return status;
  };

  it('answers a workload of an allowed namespace in the trust domain, and one of an alias', async () => {
    for (const id of [SHOP, 'spiffe://old.mesh/ns/pay/sa/billing']) {
      const s = h.client([id]).sotw();
      s.send(sotwRequest([NAME]));
      const r = await s.next();
      assert.deepEqual(
        r.resources.map((x) => (x.json as { name: string }).name),
        [NAME],
        id,
      );
      s.close();
    }
  });

  it('refuses another trust domain, no URI SAN and a namespace not allowed with PERMISSION_DENIED', async () => {
    const cases: [readonly string[], RegExp][] = [
      [['spiffe://other.mesh/ns/shop/sa/orders'], /trust domain "other\.mesh" is not the mesh's/],
      [[], /no SPIFFE URI SAN/],
      [['https://shop.example/orders'], /no SPIFFE URI SAN/],
      [['spiffe://cluster.local/ns/evil/sa/x'], /namespace "evil" may not read routes/],
      [['spiffe://cluster.local/workload/x'], /is not of the form/],
      [[SHOP, 'spiffe://cluster.local/ns/pay/sa/x'], /2 SPIFFE URI SANs/],
    ];
    for (const [uris, message] of cases) {
      const status = await refusal(uris);
      assert.equal(status.code, grpc.status.PERMISSION_DENIED, JSON.stringify(uris));
      assert.match(status.details, message);
    }
    assert.deepEqual(Object.fromEntries(h.server.metrics.refused), {
      trust_domain: 1,
      no_spiffe_id: 3,
      namespace: 2,
    });
    const metrics = new AerakiMetrics({ defaultMetrics: false });
    metrics.provide({ rds: () => h.server.metrics });
    const text = await metrics.render();
    assert.match(text, /aeraki_rds_refused_total\{reason="namespace"\} 2/);
    assert.match(text, /aeraki_rds_refused_total\{reason="no_spiffe_id"\} 3/);
  });

  it('logs a refusal once per identity (or certificate serial), with the reason', async () => {
    const id = 'spiffe://cluster.local/ns/blocked/sa/again';
    const before = h.logs.filter((l) => l.level === 'warn' && l.fields['identity'] === id).length;
    await refusal([id]);
    await refusal([id]);
    const warned = h.logs.filter((l) => l.level === 'warn' && l.fields['identity'] === id);
    assert.equal(before, 0);
    assert.equal(warned.length, 1);
    assert.equal(warned[0]?.message, 'rds: client refused');
    assert.equal(warned[0]?.fields['reason'], 'namespace');
    const bySerial = h.logs.filter(
      (l) => l.level === 'warn' && String(l.fields['identity']).startsWith('serial:'),
    );
    assert.equal(bySerial.length, 3, 'one per certificate without exactly one SPIFFE id');
  });
});

describe('RDS: limits', () => {
  const clock = new ManualClock(1_000_000);
  const h = harness({
    clock,
    limits: { maxConnectionsPerIdentity: 2, idleStreamTimeoutMs: 30_000, maxReceiveBytes: 64 * 1024 },
  });

  const waitFor = async (cond: () => boolean) => {
    for (let i = 0; !cond(); i++) {
      if (i > 2000) throw new Error('condition not met');
      await new Promise((r) => setTimeout(r, 5));
    }
  };

  it('refuses a connection past the per-identity limit with RESOURCE_EXHAUSTED, and admits again once one closes', async () => {
    const id = ['spiffe://cluster.local/ns/shop/sa/many'];
    const open = [h.client(id).sotw(), h.client(id).sotw()];
    for (const s of open) s.send(sotwRequest([NAME]));
    for (const s of open) await s.next();
    const third = h.client(id).sotw();
    third.send(sotwRequest([NAME]));
    const status = await third.status;
    assert.equal(status.code, grpc.status.RESOURCE_EXHAUSTED);
    assert.match(status.details, /already holds 2 connections; at most 2/);
    // Two streams on one connection count once.
    open[0]!.close();
    await waitFor(() => h.server.metrics.streamsActive === 1);
    const again = h.client(id);
    const [a, b] = [again.sotw(), again.sotw()];
    a.send(sotwRequest([NAME]));
    b.send(sotwRequest([NAME]));
    assert.equal((await a.next()).resources.length, 1);
    assert.equal((await b.next()).resources.length, 1);
    for (const s of [open[1]!, a, b]) s.close();
    await waitFor(() => h.server.metrics.streamsActive === 0);
  });

  it('ends a stream that sends nothing with DEADLINE_EXCEEDED; a stream that sent a request stays', async () => {
    const busy = h.client([SHOP]).sotw();
    busy.send(sotwRequest([NAME]));
    await busy.next();
    const silent = h.client(['spiffe://cluster.local/ns/shop/sa/silent']).sotw();
    await waitFor(() => h.server.metrics.streamsActive === 2);
    clock.advance(30_000);
    const status = await silent.status;
    assert.equal(status.code, grpc.status.DEADLINE_EXCEEDED);
    assert.match(status.details, /no request within 30000 ms/);
    assert.equal(h.server.metrics.refused.get('idle_stream'), 1);
    assert.equal(h.server.metrics.streamsActive, 1);
    busy.close();
  });

  it('refuses a message over the receive limit with RESOURCE_EXHAUSTED and keeps serving', async () => {
    const s = h.client([SHOP]).sotw();
    s.send(sotwRequest(Array.from({ length: 5000 }, (_, i) => `name-${i}.example_20880`)));
    const status = await s.status;
    assert.equal(status.code, grpc.status.RESOURCE_EXHAUSTED);
    const ok = h.client([SHOP]).sotw();
    ok.send(sotwRequest([NAME]));
    assert.equal((await ok.next()).resources.length, 1);
    ok.close();
  });

  it('closes a connection after more than 5 streams refused as invalid (GOAWAY invalid_requests)', async () => {
    const c = h.client(['spiffe://cluster.local/ns/shop/sa/garbage']);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const call = c.raw(i % 2 === 0 ? 'sotw' : 'delta');
      call.on('error', () => {});
      const status = new Promise<grpc.StatusObject>((resolve) => call.on('status', resolve));
      call.write(Buffer.from([0xff, 0xff, 0xff]));
      statuses.push((await status).code);
    }
    assert.deepEqual(statuses, Array(6).fill(grpc.status.INVALID_ARGUMENT));
    await waitFor(() => h.server.metrics.refused.get('invalid_requests') === 1);
    // The client reconnects; a good stream on the new connection is served.
    const s = c.sotw();
    s.send(sotwRequest([NAME]));
    assert.equal((await s.next()).resources.length, 1);
    s.close();
  });

  it('closes a connection that pings too often with GOAWAY ENHANCE_YOUR_CALM too_many_pings', async () => {
    const c = meshClient(['spiffe://cluster.local/ns/shop/sa/pinger']);
    const session = http2.connect(`https://localhost:${h.port}`, {
      ca: testCa().ca,
      cert: c.cert,
      key: c.key,
    });
    session.on('error', () => {});
    const goaway = new Promise<{ code: number; data: string }>((resolve) =>
      session.on('goaway', (code, _last, data) => resolve({ code, data: data?.toString() ?? '' })),
    );
    await new Promise<void>((resolve) => session.once('connect', () => resolve()));
    for (let i = 0; i < 5 && !session.destroyed; i++) session.ping(() => {});
    const g = await goaway;
    assert.equal(g.code, http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
    assert.equal(g.data, 'too_many_pings');
    assert.equal(h.server.metrics.refused.get('too_many_pings'), 1);
    session.destroy();
  });
});
