// The handshake guard's accounting on a real TLS server over loopback: idle TCP connections from several loopback
// addresses (127.0.0.0/8 is all on lo), counted per source; a source at its cap is refused while others connect;
// a slot is released when the handshake completes, the client closes or the timeout (a ManualClock) passes; when
// all slots are taken, the busiest source's oldest connection makes room for a source holding fewer. And the
// source of an address: IPv4-mapped IPv6 as IPv4, other IPv6 by /64.
import assert from 'node:assert/strict';
import net from 'node:net';
import tls from 'node:tls';
import { after, describe, it } from 'node:test';
import { ManualClock } from '../../src/util/clock.ts';
import { HandshakeGuard, type HandshakeLimits } from '../../src/util/handshake-guard.ts';
import type { Logger } from '../../src/util/logger.ts';
import { sourceOf } from '../../src/util/source-address.ts';
import { testCa } from '../fakes/test-ca.ts';
import { waitFor } from '../support/python.ts';

const A = '127.0.0.2';
const B = '127.0.0.3';
const TIMEOUT_MS = 1000;

interface Harness {
  readonly guard: HandshakeGuard;
  readonly clock: ManualClock;
  readonly warnings: string[];
  /** An idle TCP connection from `from`, resolved once connected; `closed` says whether the server closed it. */
  idle(from: string): Promise<{ socket: net.Socket; closed: () => boolean }>;
  /** A TLS client from `from` that completes its handshake; resolves when the server closed the connection. */
  tlsClient(from: string): Promise<void>;
  by(): Record<string, number>;
}

const servers: { server: tls.Server; sockets: Set<net.Socket> }[] = [];
after(() => {
  for (const { server, sockets } of servers) {
    for (const s of sockets) s.destroy();
    server.close();
  }
});

async function harness(limits: Partial<HandshakeLimits>, host = '127.0.0.1'): Promise<Harness> {
  const clock = new ManualClock(0);
  const warnings: string[] = [];
  const logger = {
    debug: () => {},
    info: () => {},
    warn: (m: string) => warnings.push(m),
    error: () => {},
    child: () => logger,
  } as Logger;
  const full = { timeoutMs: TIMEOUT_MS, maxPending: 0, maxPendingPerSource: 0, ...limits };
  const guard = new HandshakeGuard('test', full, logger, clock);
  const ca = testCa();
  const server = tls.createServer({ cert: ca.serverCert, key: ca.serverKey });
  const sockets = new Set<net.Socket>();
  servers.push({ server, sockets });
  guard.attachTls(server);
  server.on('secureConnection', (s) => s.end());
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    guard,
    clock,
    warnings,
    idle: (from) =>
      new Promise((resolve, reject) => {
        let closed = false;
        const socket = net.connect({ port, host: '127.0.0.1', localAddress: from }, () =>
          resolve({ socket, closed: () => closed }),
        );
        sockets.add(socket);
        socket.on('error', () => {});
        socket.once('close', () => (closed = true));
        socket.once('error', reject);
      }),
    tlsClient: (from) =>
      new Promise((resolve, reject) => {
        const tcp = net.connect({ port, host: '127.0.0.1', localAddress: from });
        const socket = tls.connect({ socket: tcp, servername: 'localhost', ca: ca.ca }, () =>
          socket.once('close', () => resolve()),
        );
        socket.on('end', () => socket.end());
        socket.once('error', reject);
      }),
    by: () => Object.fromEntries(guard.pendingBySource()),
  };
}

describe('handshake guard: slots per source', () => {
  it('refuses a connection from a source at its cap at once, and only that source', async () => {
    const h = await harness({ maxPendingPerSource: 2, maxPending: 10 });
    const a = [await h.idle(A), await h.idle(A)];
    await waitFor(() => h.guard.stats().pending === 2);
    const third = await h.idle(A);
    await waitFor(() => third.closed());
    assert.equal(h.guard.stats().results.rejected_source_limit, 1);
    assert.ok(
      a.every((c) => !c.closed()),
      'the first two stay',
    );

    const b = [await h.idle(B), await h.idle(B)];
    await waitFor(() => h.guard.stats().pending === 4);
    assert.deepEqual(h.by(), { [A]: 2, [B]: 2 });
    assert.equal(h.guard.stats().sources, 2);
    assert.ok(
      b.every((c) => !c.closed()),
      'another source still gets slots',
    );

    const fourth = await h.idle(A);
    await waitFor(() => fourth.closed());
    assert.equal(h.guard.stats().results.rejected_source_limit, 2);
    assert.equal(h.warnings.length, 1, 'one warning per source while it is at its cap');
    assert.match(h.warnings[0]!, /2 connections from 127\.0\.0\.2 in their handshake/);
  });

  it("releases a source's slot when its handshake completes, when the client closes, and at the timeout", async () => {
    const h = await harness({ maxPendingPerSource: 1, maxPending: 10 });
    const first = await h.idle(A);
    await waitFor(() => h.guard.stats().pending === 1);
    const refused = await h.idle(A);
    await waitFor(() => refused.closed());

    first.socket.destroy();
    await waitFor(() => h.guard.stats().results.failed === 1);
    assert.deepEqual(h.by(), {});
    assert.equal(h.guard.stats().sources, 0);

    const second = await h.idle(A);
    await waitFor(() => h.guard.stats().pending === 1);
    h.clock.advance(TIMEOUT_MS);
    await waitFor(() => second.closed());
    assert.equal(h.guard.stats().results.timeout, 1);
    assert.deepEqual(h.by(), {});

    await h.tlsClient(A);
    await h.tlsClient(A);
    assert.equal(h.guard.stats().results.completed, 2);
    assert.deepEqual(h.by(), {});
    const third = await h.idle(A);
    await waitFor(() => h.guard.stats().pending === 1);
    assert.ok(!third.closed());
    assert.deepEqual(
      { ...h.guard.stats().results },
      {
        completed: 2,
        failed: 1,
        timeout: 1,
        rejected_over_limit: 0,
        rejected_source_limit: 1,
        evicted: 0,
      },
    );
  });

  it("makes room for a source holding fewer by closing the busiest source's oldest connection", async () => {
    const h = await harness({ maxPendingPerSource: 0, maxPending: 4 });
    const a: { closed: () => boolean }[] = [];
    for (let i = 0; i < 4; i++) {
      a.push(await h.idle(A));
      await waitFor(() => h.guard.stats().pending === i + 1);
    }
    await h.idle(B);
    await waitFor(() => a[0]!.closed());
    assert.deepEqual(h.by(), { [A]: 3, [B]: 1 });
    await h.idle(B);
    await waitFor(() => a[1]!.closed());
    assert.deepEqual(h.by(), { [A]: 2, [B]: 2 });
    assert.equal(h.guard.stats().results.evicted, 2);

    // Even shares: one more from either source is refused, nothing is evicted.
    const overB = await h.idle(B);
    const overA = await h.idle(A);
    await waitFor(() => overA.closed() && overB.closed());
    assert.deepEqual(h.by(), { [A]: 2, [B]: 2 });
    assert.ok(!a[2]!.closed() && !a[3]!.closed());
    assert.equal(h.guard.stats().results.rejected_over_limit, 2);
    assert.equal(h.guard.stats().results.evicted, 2);
  });

  it('counts an IPv4 client of a dual-stack listener by its IPv4 address', async () => {
    const h = await harness({ maxPendingPerSource: 1, maxPending: 10 }, '::');
    await h.idle(A);
    await waitFor(() => h.guard.stats().pending === 1);
    assert.deepEqual(h.by(), { [A]: 1 });
  });
});

describe('handshake guard: the source of an address', () => {
  it('is the IPv4 address, also when mapped into IPv6, and the /64 of other IPv6 addresses', () => {
    const cases: [string | undefined, string][] = [
      ['10.0.0.7', '10.0.0.7'],
      ['::ffff:10.0.0.7', '10.0.0.7'],
      ['::FFFF:7f00:2', '127.0.0.2'],
      ['0:0:0:0:0:ffff:1.2.3.4', '1.2.3.4'],
      ['2001:db8:0:1:aaaa::1', '2001:db8:0:1::/64'],
      ['2001:db8:0:1:bbbb:cccc:dddd:eeee', '2001:db8:0:1::/64'],
      ['2001:0DB8:0000:0000:1:2:3:4', '2001:db8::/64'],
      ['fe80::1%eth0', 'fe80::/64'],
      ['64:ff9b::10.0.0.1', '64:ff9b::/64'],
      ['::1', '::/64'],
      [undefined, 'unknown'],
      ['', 'unknown'],
    ];
    for (const [address, source] of cases) assert.equal(sourceOf(address), source, String(address));
  });
});
