// Memory in flight: grpc-js holds each incoming message until it is whole, before any budget sees it, so a client
// that starts large messages and never finishes them makes the server hold their bytes. One mesh identity opens
// many connections of many streams, each sending a message just under the message limit minus its last bytes; the
// RDS server runs in a child process (test/support/rds-memory-server.ts) with the default limits and reports its
// peak RSS, which must stay under 512 MB (the Deployment's limit is 1 GiB). The streams over the in-flight budget
// end with RESOURCE_EXHAUSTED; the others keep what they sent until the client leaves.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { DEFAULT_RDS_LIMITS } from '../../src/xds-rds/limits.ts';
import { meshClient, testCa, writeCertDir, type CertDir } from '../fakes/test-ca.ts';
import { MemoryServer } from '../support/rds-memory-child.ts';

const MB = 1 << 20;
const PEAK_LIMIT = 512 * MB;
const ATTACKER = ['spiffe://cluster.local/ns/shop/sa/attacker'];
const L = DEFAULT_RDS_LIMITS;
/** Connections of the attack: 8 × 100 streams × 1 MiB is 800 MiB in flight without a bound. */
const CONNECTIONS = 8;
const PATH = '/envoy.service.route.v3.RouteDiscoveryService/StreamRoutes';

/** How one unfinished message ended: its bytes were all taken, or the server reset the stream (gRPC status). */
type Outcome = { taken: true } | { taken: false; status: string };

/**
 * Opens a stream on `session` and sends a gRPC message header announcing `size` bytes, then `size - 1` of them:
 * the message never completes. Resolves once the bytes were all taken or the stream ended.
 */
function unfinished(session: http2.ClientHttp2Session, body: Buffer): Promise<Outcome> {
  return new Promise<Outcome>((resolve) => {
    const stream = session.request({
      ':method': 'POST',
      ':path': PATH,
      'content-type': 'application/grpc',
      te: 'trailers',
    });
    let status = '';
    stream.on('response', (headers) => (status = String(headers['grpc-status'] ?? status)));
    stream.on('trailers', (headers) => (status = String(headers['grpc-status'] ?? status)));
    stream.on('error', () => {});
    stream.once('close', () => resolve({ taken: false, status: status || `rst ${stream.rstCode}` }));
    const header = Buffer.alloc(5);
    header.writeUInt32BE(body.length + 1, 1);
    stream.write(header);
    stream.write(body, (err) => {
      if (!err) resolve({ taken: true });
    });
  });
}

const mb = (n: number) => `${(n / MB).toFixed(0)} MB`;

describe('RDS: unfinished messages of one identity stay inside the memory limit (child process, default limits)', () => {
  const server = new MemoryServer();
  let certs: CertDir;
  const sessions: http2.ClientHttp2Session[] = [];

  before(async () => {
    certs = writeCertDir();
    await server.run(certs);
  });
  after(() => {
    for (const s of sessions) s.destroy();
    server.stop();
    certs.remove();
  });

  it(
    `${CONNECTIONS} connections of ${L.maxStreamsPerConnection} streams, each a message of ${L.maxReceiveBytes} bytes never finished`,
    { timeout: 120_000 },
    async () => {
      const c = meshClient(ATTACKER);
      const body = Buffer.alloc(L.maxReceiveBytes - 1, 0x61);
      const outcomes: Promise<Outcome>[] = [];
      for (let i = 0; i < CONNECTIONS; i++) {
        const session = http2.connect(`https://localhost:${server.port}`, {
          ca: testCa().ca,
          cert: c.cert,
          key: c.key,
        });
        session.on('error', () => {});
        sessions.push(session);
        for (let j = 0; j < L.maxStreamsPerConnection; j++) outcomes.push(unfinished(session, body));
      }
      const results = await Promise.all(outcomes);
      const under = await server.state(false);
      const taken = results.filter((r) => r.taken).length;
      const refused = results.filter((r) => !r.taken);
      console.log(
        `${taken} of ${results.length} unfinished messages taken, ${refused.length} refused ` +
          `(${[...new Set(refused.map((r) => !r.taken && r.status))].join(', ')}): RSS at start ${mb(server.start.rss)}, ` +
          `peak ${mb(under.maxRss)}, now ${mb(under.rss)} (heap ${mb(under.heapUsed)})`,
      );
      assert.ok(under.maxRss < PEAK_LIMIT, `peak RSS ${mb(under.maxRss)} under ${mb(PEAK_LIMIT)}`);
      // RST_STREAM ENHANCE_YOUR_CALM (11): RESOURCE_EXHAUSTED on a gRPC client.
      for (const r of refused) assert.deepEqual(r, { taken: false, status: 'rst 11' });
      // A stream whose last bytes left the client may still be reset once the server reads them.
      assert.ok((under.refused.in_flight_budget ?? 0) >= refused.length);
      assert.ok(under.held.inFlightBytes <= L.maxInFlightBytesPerIdentity, `${under.held.inFlightBytes}`);
      assert.ok(
        taken >= Math.floor(L.maxInFlightBytesPerIdentity / L.maxReceiveBytes) - 1,
        'the budget is used',
      );
      for (const s of sessions.splice(0)) s.destroy();
      for (let i = 0; (await server.state(false)).held.inFlightBytes > 0; i++) {
        assert.ok(i < 100, 'the unfinished messages are let go when the client leaves');
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal((await server.state(false)).held.inFlightIdentities, 0);
    },
  );
});
