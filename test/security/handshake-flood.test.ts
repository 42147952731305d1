// One source floods a TLS listener with idle TCP connections, re-opened as they are closed, from one loopback
// address (127.0.0.2; Linux routes all of 127.0.0.0/8 to lo), more than the listener's global cap of connections in
// their handshake. Meanwhile a client from another address (127.0.0.1) is still served: RDS answers its request, the
// registry's MCP server fills istiod's store (the project's MCP client, as istiod), the webhook answers (and
// denies) an AdmissionReview. The flood holds no more than its per-source cap; the rest of it
// is refused at once and counted as `rejected_source_limit`. The handshake timeout runs on a ManualClock that never
// moves, so the slots the flood holds stay held for the whole test.
import assert from 'node:assert/strict';
import https from 'node:https';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { McpClient } from '../../src/controller/mcp/client.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { AerakiMetrics } from '../../src/ops/metrics.ts';
import { ServiceEntryMcpServer } from '../../src/registry/mcp/server.ts';
import { createPluginKinds } from '../../src/plugins/registry.ts';
import { generationCheck } from '../../src/app/validate.ts';
import { validateObjects } from '../../src/model/validate/validate.ts';
import { ManualClock } from '../../src/util/clock.ts';
import type { HandshakeGuard } from '../../src/util/handshake-guard.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { WebhookServer } from '../../src/webhook/server.ts';
import { buildRouteConfigurations } from '../../src/xds-rds/routes.ts';
import { RdsServer } from '../../src/xds-rds/server.ts';
import { SnapshotCache } from '../../src/xds-rds/snapshot.ts';
import { RdsTestClient, sotwRequest } from '../fakes/rds-client.ts';
import { meshClient, testCa, writeCertDir, type CertDir } from '../fakes/test-ca.ts';
import { metaRouter, serviceEntry, storeOf } from '../support/builders.ts';
import { PARSE_OPTIONS } from '../support/kinds.ts';
import { waitFor } from '../support/python.ts';
import { endpoint, registryEntry } from '../registry/mcp/entries.ts';
import { ISTIOD, meshTls } from '../registry/mcp/tls.ts';
import { INVALID_META_ROUTER, reviewV1 } from '../webhook/reviews.ts';

const GLOBAL = 40;
const PER_SOURCE = 8;
/** Idle connections the flood keeps trying to hold: more than the global cap. */
const FLOOD = GLOBAL + 8;
/** Connections the flood opens at most, re-opens included. */
const FLOOD_BUDGET = 20_000;
const FLOODER = '127.0.0.2';
const handshake = { timeoutMs: 10_000, maxPending: GLOBAL, maxPendingPerSource: PER_SOURCE };

/** Idle TCP connections from `from`, each re-opened as soon as the server closes it, until stopped or the budget. */
class Flood {
  readonly open = new Set<net.Socket>();
  opened = 0;
  closedByServer = 0;
  private stopped = false;

  constructor(
    private readonly port: number,
    private readonly from: string,
    size = FLOOD,
  ) {
    for (let i = 0; i < size; i++) this.connect();
  }

  stop(): void {
    this.stopped = true;
    for (const s of this.open) s.destroy();
  }

  private connect(): void {
    if (this.stopped || this.opened >= FLOOD_BUDGET) return;
    this.opened++;
    const s = net.connect({ port: this.port, host: '127.0.0.1', localAddress: this.from });
    this.open.add(s);
    s.on('error', () => {});
    s.once('close', () => {
      this.open.delete(s);
      if (this.stopped) return;
      this.closedByServer++;
      setImmediate(() => this.connect());
    });
  }
}

/** Starts a flood and waits until it holds its slots and the server refuses the rest. */
async function saturate(port: number, guard: HandshakeGuard): Promise<Flood> {
  const flood = new Flood(port, FLOODER);
  await waitFor(() => guard.stats().pending >= PER_SOURCE && flood.closedByServer >= FLOOD);
  return flood;
}

/** POSTs an AdmissionReview of an invalid MetaRouter from 127.0.0.1, as the API server would. */
function postReview(port: number, uid: string): Promise<{ status: number; body: any }> {
  const body = JSON.stringify(reviewV1(INVALID_META_ROUTER, uid));
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        localAddress: '127.0.0.1',
        servername: 'localhost',
        path: '/validate',
        method: 'POST',
        ca: testCa().ca,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

const HOST = 'flooded.example';
const NAME = `${HOST}_20880`;

/** The project's MCP client as istiod dials the registry's MCP server: mTLS with istiod's identity. */
function istiodClient(port: number, caFile: string, store: ConfigStore): McpClient {
  const c = meshClient([ISTIOD]);
  return new McpClient(
    {
      address: `127.0.0.1:${port}`,
      tls: true,
      rootCertFile: caFile,
      serverName: 'localhost',
      apiVersion: 'v1',
      revision: '',
      node: { podName: 'istiod-0', namespace: 'istio-system', podIp: '10.0.0.3' },
      clientIdentity: () => ({ cert: Buffer.from(c.cert), key: Buffer.from(c.key) }),
    },
    { store, logger: silentLogger },
  );
}

/** Resolves when `client` synced; rejects after `ms`. */
function syncedWithin(client: McpClient, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the MCP client did not sync within ${ms} ms`)), ms);
  });
  return Promise.race([client.whenSynced(), late]).finally(() => clearTimeout(timer));
}

describe('a handshake flood from one source does not keep other sources out', () => {
  const clock = new ManualClock(Date.now());
  let certs: CertDir;
  let rds: RdsServer;
  let rdsPort: number;
  let webhook: WebhookServer;
  let webhookPort: number;
  let mcp: ServiceEntryMcpServer;
  let mcpPort: number;

  before(async () => {
    certs = writeCertDir();
    const cache = new SnapshotCache();
    cache.setRoutes(
      buildRouteConfigurations(
        storeOf([
          serviceEntry('ns', 'flooded', {
            hosts: [HOST],
            ports: [{ number: 20880, name: 'tcp-metaprotocol-x' }],
          }),
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
    const tls = { ...certs, pollIntervalMs: 60_000 };
    rds = new RdsServer({ host: '127.0.0.1', port: 0, logger: silentLogger, tls, handshake, clock }, cache);
    rdsPort = await rds.start();
    webhook = new WebhookServer({
      address: { host: '127.0.0.1', port: 0 },
      kinds: createPluginKinds(),
      certFile: certs.certFile,
      keyFile: certs.keyFile,
      validate: (o) =>
        validateObjects([o], {
          rootNamespace: 'istio-system',
          parseOptions: PARSE_OPTIONS,
          check: generationCheck({ rootNamespace: 'istio-system', namespaceScope: false }),
        }).issues,
      logger: silentLogger,
      pollIntervalMs: 60_000,
      handshake,
      clock,
    });
    webhookPort = (await webhook.start()).port;
    mcp = new ServiceEntryMcpServer({
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger,
      tls: meshTls(),
      handshake,
      clock,
    });
    mcp.update([registryEntry('org.apache.dubbo.samples.DemoService', [endpoint('10.1.0.1')])]);
    mcpPort = await mcp.start();
  });
  after(async () => {
    await rds.stop();
    await webhook.stop();
    await mcp.stop();
    certs.remove();
  });

  it(
    'RDS: a sidecar from another address gets its routes while the flood is refused',
    { timeout: 60_000 },
    async () => {
      const flood = await saturate(rdsPort, rds.handshakes);
      const c = meshClient(['spiffe://cluster.local/ns/shop/sa/orders']);
      const client = new RdsTestClient(rdsPort, { ca: testCa().ca, cert: c.cert, key: c.key }, '127.0.0.1');
      try {
        const stream = client.sotw();
        stream.send(sotwRequest([NAME]));
        const response = await stream.next(10_000);
        assert.deepEqual(
          response.resources.map((r) => (r.json as { name: string }).name),
          [NAME],
        );
        assert.ok(flood.open.size >= PER_SOURCE, 'the flood still holds its slots');
        assert.ok(flood.opened > FLOOD, 'the flood re-opened what was closed');
        assert.ok(rds.handshakes.stats().results.rejected_source_limit > 0);
        assert.equal(rds.handshakes.pendingBySource().get(FLOODER), PER_SOURCE);
        stream.close();
      } finally {
        client.close();
        flood.stop();
      }
    },
  );

  it(
    'webhook: an AdmissionReview from another address is answered while the flood is refused',
    { timeout: 60_000 },
    async () => {
      const flood = await saturate(webhookPort, webhook.handshakes);
      try {
        const reply = await postReview(webhookPort, 'flood-1');
        assert.equal(reply.status, 200);
        assert.deepEqual([reply.body.response.uid, reply.body.response.allowed], ['flood-1', false]);
        assert.ok(flood.open.size >= PER_SOURCE, 'the flood still holds its slots');
        assert.ok(webhook.handshakes.stats().results.rejected_source_limit > 0);
      } finally {
        flood.stop();
      }
    },
  );

  it(
    'MCP: istiod from another address receives the registry ServiceEntries while the flood is refused',
    { timeout: 60_000 },
    async () => {
      const flood = await saturate(mcpPort, mcp.handshakes);
      const store = new ConfigStore({ rootNamespace: 'istio-system' });
      const client = istiodClient(mcpPort, certs.caFile, store);
      try {
        client.start();
        await syncedWithin(client, 10_000);
        assert.deepEqual(
          store.list('ServiceEntry').map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
          ['dubbo/zk-org-apache-dubbo-samples-demoservice'],
        );
        assert.ok(flood.open.size >= PER_SOURCE, 'the flood still holds its slots');
        assert.ok(flood.opened > FLOOD, 'the flood re-opened what was closed');
        assert.ok(mcp.handshakes.stats().results.rejected_source_limit > 0);
        assert.equal(mcp.handshakes.pendingBySource().get(FLOODER), PER_SOURCE);
      } finally {
        await client.stop();
        flood.stop();
      }
    },
  );

  it('counts the refused connections as rejected_source_limit by listener', async () => {
    const metrics = new AerakiMetrics({ defaultMetrics: false });
    const guards = [rds.handshakes, mcp.handshakes, webhook.handshakes];
    metrics.provide({ handshakes: () => guards.map((g) => g.stats()) });
    const text = await metrics.registry.metrics();
    for (const [listener, guard] of [
      ['rds', rds.handshakes],
      ['mcp', mcp.handshakes],
      ['webhook', webhook.handshakes],
    ] as const) {
      const n = guard.stats().results.rejected_source_limit;
      assert.ok(n > 0, listener);
      assert.match(
        text,
        new RegExp(
          `aeraki_tls_handshakes_total\\{listener="${listener}",result="rejected_source_limit"\\} ${n}\\b`,
        ),
      );
      assert.match(
        text,
        new RegExp(
          `aeraki_tls_handshakes_total\\{listener="${listener}",result="rejected_over_limit"\\} 0\\b`,
        ),
      );
    }
  });

  it(
    'webhook: when floods from many sources take every slot, a newcomer still gets one (the busiest source gives its oldest)',
    { timeout: 60_000 },
    async () => {
      // Six sources of PER_SOURCE + 2 each: 60 connections for 40 slots, each source within its own cap.
      const floods = [3, 4, 5, 6, 7, 8].map((n) => new Flood(webhookPort, `127.0.0.${n}`, PER_SOURCE + 2));
      try {
        await waitFor(() => webhook.handshakes.stats().pending === GLOBAL);
        await waitFor(() => webhook.handshakes.stats().results.rejected_over_limit >= PER_SOURCE);
        const evictedBefore = webhook.handshakes.stats().results.evicted;
        const reply = await postReview(webhookPort, 'flood-2');
        assert.equal(reply.status, 200);
        assert.deepEqual([reply.body.response.uid, reply.body.response.allowed], ['flood-2', false]);
        assert.ok(
          webhook.handshakes.stats().results.evicted > evictedBefore,
          'a flooding source gave a slot',
        );
        for (const [source, n] of webhook.handshakes.pendingBySource())
          assert.ok(n <= PER_SOURCE, `${source}: ${n}`);
      } finally {
        for (const f of floods) f.stop();
      }
    },
  );
});
