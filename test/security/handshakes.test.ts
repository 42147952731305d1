// Connections that never finish their handshake, on each TLS listener (RDS, the MCP server, the webhook): idle TCP
// sockets over the cap are closed at once, the others when the handshake timeout (on a ManualClock) passes, and a
// real client still connects afterwards. The metrics count them by listener and result.
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import https from 'node:https';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { AerakiMetrics } from '../../src/ops/metrics.ts';
import { ServiceEntryMcpServer } from '../../src/registry/mcp/server.ts';
import { ManualClock } from '../../src/util/clock.ts';
import type { HandshakeGuard } from '../../src/util/handshake-guard.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { WebhookServer } from '../../src/webhook/server.ts';
import { RdsServer } from '../../src/xds-rds/server.ts';
import { SnapshotCache } from '../../src/xds-rds/snapshot.ts';
import { meshClient, testCa, writeCertDir, type CertDir } from '../fakes/test-ca.ts';
import { meshTls, ISTIOD } from '../registry/mcp/tls.ts';
import { waitFor } from '../support/python.ts';
import { createPluginKinds } from '../../src/plugins/registry.ts';

const CAP = 3;
const TIMEOUT_MS = 1000;
const IDLE = 5;
// One source here (127.0.0.1): the global cap without the per-source one (test/security/handshake-flood.test.ts).
const handshake = { timeoutMs: TIMEOUT_MS, maxPending: CAP, maxPendingPerSource: 0 };

interface Listener {
  readonly name: string;
  readonly port: number;
  readonly guard: HandshakeGuard;
  /** Connects as a real client would and resolves once the server answered. */
  readonly realClient: () => Promise<void>;
  stop(): Promise<void>;
}

/** An HTTP/2 client over mTLS with this identity: resolves at the server's SETTINGS. */
function http2Client(port: number, identity: string): Promise<void> {
  const c = meshClient([identity]);
  return new Promise((resolve, reject) => {
    const session = http2.connect(`https://localhost:${port}`, { ca: testCa().ca, cert: c.cert, key: c.key });
    session.once('remoteSettings', () => {
      session.close();
      resolve();
    });
    session.once('error', reject);
  });
}

/** Idle TCP sockets: connected, sending nothing. */
async function idleSockets(
  port: number,
  n: number,
): Promise<{ sockets: net.Socket[]; closed: Set<net.Socket> }> {
  const closed = new Set<net.Socket>();
  const sockets = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<net.Socket>((resolve, reject) => {
          const s = net.connect(port, '127.0.0.1', () => resolve(s));
          s.on('error', () => {});
          s.once('close', () => closed.add(s));
          s.once('error', reject);
        }),
    ),
  );
  return { sockets, closed };
}

describe('handshake limits on every TLS listener', () => {
  const clock = new ManualClock(Date.now());
  let certs: CertDir;
  const listeners: Listener[] = [];

  before(async () => {
    certs = writeCertDir();
    const rds = new RdsServer(
      {
        host: '127.0.0.1',
        port: 0,
        logger: silentLogger,
        tls: { ...certs, pollIntervalMs: 60_000 },
        handshake,
        clock,
      },
      new SnapshotCache(),
    );
    const rdsPort = await rds.start();
    listeners.push({
      name: 'rds',
      port: rdsPort,
      guard: rds.handshakes,
      realClient: () => http2Client(rdsPort, 'spiffe://cluster.local/ns/shop/sa/orders'),
      stop: () => rds.stop(),
    });
    const mcp = new ServiceEntryMcpServer({
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger,
      tls: meshTls(),
      handshake,
      clock,
    });
    const mcpPort = await mcp.start();
    listeners.push({
      name: 'mcp',
      port: mcpPort,
      guard: mcp.handshakes,
      realClient: () => http2Client(mcpPort, ISTIOD),
      stop: () => mcp.stop(),
    });
    const webhook = new WebhookServer({
      address: { host: '127.0.0.1', port: 0 },
      kinds: createPluginKinds(),
      certFile: certs.certFile,
      keyFile: certs.keyFile,
      validate: () => [],
      logger: silentLogger,
      pollIntervalMs: 60_000,
      handshake,
      clock,
    });
    const webhookPort = (await webhook.start()).port;
    listeners.push({
      name: 'webhook',
      port: webhookPort,
      guard: webhook.handshakes,
      realClient: () =>
        new Promise((resolve, reject) => {
          const req = https.get(`https://localhost:${webhookPort}/`, { ca: testCa().ca }, (res) => {
            res.resume();
            assert.equal(res.statusCode, 404);
            resolve();
          });
          req.once('error', reject);
        }),
      stop: () => webhook.stop(),
    });
  });
  after(async () => {
    for (const l of listeners) await l.stop();
    certs.remove();
  });

  it('closes the idle sockets over the cap at once and the rest at the timeout; a real client connects afterwards', async () => {
    for (const l of listeners) {
      const { sockets, closed } = await idleSockets(l.port, IDLE);
      await waitFor(() => closed.size === IDLE - CAP && l.guard.stats().pending === CAP);
      assert.deepEqual(
        { ...l.guard.stats().results },
        {
          completed: 0,
          failed: 0,
          timeout: 0,
          rejected_over_limit: IDLE - CAP,
          rejected_source_limit: 0,
          evicted: 0,
        },
        l.name,
      );
      assert.equal(sockets.filter((s) => !closed.has(s)).length, CAP, `${l.name}: the others stay open`);

      clock.advance(TIMEOUT_MS - 1);
      assert.equal(l.guard.stats().pending, CAP, `${l.name}: not before the timeout`);
      clock.advance(1);
      await waitFor(() => closed.size === IDLE);
      assert.equal(l.guard.stats().pending, 0);
      assert.equal(l.guard.stats().results.timeout, CAP, l.name);

      await l.realClient();
      await waitFor(() => l.guard.stats().results.completed === 1);
    }
  });

  it('counts them in aeraki_tls_handshakes_total{listener,result} and the pending gauge', async () => {
    const metrics = new AerakiMetrics({ defaultMetrics: false });
    metrics.provide({ handshakes: () => listeners.map((l) => l.guard.stats()) });
    const text = await metrics.registry.metrics();
    for (const name of ['rds', 'mcp', 'webhook']) {
      assert.match(
        text,
        new RegExp(`aeraki_tls_handshakes_total\\{listener="${name}",result="timeout"\\} ${CAP}`),
      );
      assert.match(
        text,
        new RegExp(
          `aeraki_tls_handshakes_total\\{listener="${name}",result="rejected_over_limit"\\} ${IDLE - CAP}`,
        ),
      );
      assert.match(text, new RegExp(`aeraki_tls_handshakes_pending\\{listener="${name}"\\} 0`));
    }
  });
});
