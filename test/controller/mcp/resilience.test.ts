import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { names, se, settled, trackedPairs, waitForStatus } from '../../fakes/istiod/harness.ts';
import { foreignCa, testCa } from '../../fakes/test-ca.ts';

describe('MCP client resilience against the fake istiod', () => {
  const pair = trackedPairs();

  it('reconnects after a drop mid-push without spurious deletes, then resyncs', async () => {
    const p = await pair({ serve: 'v1' }, {}, (f) => f.set([se('a'), se('b'), se('c')], { push: false }));
    p.client.start();
    await p.client.whenSynced();
    p.events.length = 0;
    p.fake.dropAfterResponses = 1;
    p.fake.upsert(se('d'), { push: false });
    p.fake.remove('ServiceEntry', 'shop', 'c');
    const down = await waitForStatus(p.client, (s) => s.state === 'backoff', 'backoff after the drop');
    assert.equal(down.reconnects, 1);
    assert.deepEqual(p.clock.pendingDelays(), [500]);
    p.clock.advance(500);
    await waitForStatus(p.client, (s) => s.state === 'connected', 'reconnected');
    await p.fake.waitFor(
      () => p.fake.requests.filter((r) => r.stream === 2 && r.kind === 'ack').length === 8,
      'resync on the new stream',
    );
    assert.deepEqual(names(p), ['shop/a', 'shop/b', 'shop/d']);
    assert.deepEqual(
      p.events.filter((e) => e.type === 'deleted').map((e) => e.name),
      ['c'],
      'only the really deleted object',
    );
    const inits2 = p.fake.requests.filter((r) => r.stream === 2 && r.kind === 'init');
    assert.equal(inits2.length, 8);
    assert.ok(inits2[0]?.nodeId, 'the node is sent again on the new stream');
  });

  it('keeps the store while istiod is away; the first full answer after it returns reconciles it', async () => {
    const p = await pair({ serve: 'v1' }, {}, (f) => f.set([se('a'), se('b')], { push: false }));
    p.client.start();
    await p.client.whenSynced();
    await settled(p);
    p.events.length = 0;
    p.fake.refuseStreams = Infinity;
    p.fake.dropStreams();
    await waitForStatus(p.client, (s) => s.state === 'backoff', 'disconnected');
    p.clock.advance(p.clock.pendingDelays()[0] ?? 0);
    await waitForStatus(p.client, (s) => s.state === 'backoff' && s.reconnects === 2, 'refused once more');
    assert.deepEqual(names(p), ['shop/a', 'shop/b'], 'nothing is deleted while istiod is unreachable');
    assert.equal(p.events.length, 0);
    p.fake.remove('ServiceEntry', 'shop', 'a', { push: false });
    p.fake.upsert(se('c'), { push: false });
    p.fake.refuseStreams = 0;
    p.clock.advance(p.clock.pendingDelays()[0] ?? 0);
    await p.fake.waitFor(
      () => p.fake.requests.filter((r) => r.stream === 3 && r.kind === 'ack').length === 8,
      'resync after the outage',
    );
    assert.deepEqual(names(p), ['shop/b', 'shop/c']);
    assert.deepEqual(
      p.events.map((e) => `${e.type} ${e.name}`),
      ['deleted a', 'added c'],
    );
    assert.equal(p.client.status().reconnects, 2);
    assert.deepEqual(
      p.fake.streams.map((s) => s.id),
      [1, 2, 3],
      'stream 2 was refused, stream 3 resynced',
    );
  });

  it('keeps retrying while istiod refuses streams, with growing backoff, and syncs afterwards', async () => {
    const p = await pair({ serve: 'v1' }, {}, (f) => {
      f.set([se('a')], { push: false });
      f.refuseStreams = 3;
    });
    p.client.start();
    const delays: number[] = [];
    for (let i = 1; i <= 3; i++) {
      await waitForStatus(p.client, (s) => s.state === 'backoff' && s.reconnects === i, `refusal ${i}`);
      delays.push(...p.clock.pendingDelays());
      p.clock.advance(p.clock.pendingDelays()[0] ?? 0);
    }
    assert.deepEqual(delays, [500, 750, 1125]);
    await p.client.whenSynced();
    assert.deepEqual(names(p), ['shop/a']);
    assert.match(p.client.status().lastError ?? '', /refused/);
  });

  it('sends the bearer token from the token file; without it istiod says UNAUTHENTICATED', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mcp-token-'));
    const tokenFile = path.join(dir, 'token');
    writeFileSync(tokenFile, 'secret-token\n');
    const p = await pair({ serve: 'v1', requireToken: 'secret-token' }, { tokenFile }, (f) =>
      f.set([se('a')], { push: false }),
    );
    p.client.start();
    await p.client.whenSynced();
    assert.equal(p.fake.streams[0]?.authorization, 'Bearer secret-token');
    assert.deepEqual(names(p), ['shop/a']);

    const q = await pair({ serve: 'v1', requireToken: 'secret-token' });
    q.client.start();
    const s = await waitForStatus(q.client, (st) => st.state === 'backoff', 'rejected');
    assert.match(s.lastError ?? '', /16 authentication failure/);
    assert.equal(q.client.synced, false);
  });

  it('retries while the token file is missing and connects once it appears (projected token mounted late)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mcp-token-'));
    const tokenFile = path.join(dir, 'token');
    const p = await pair({ serve: 'v1', requireToken: 'late' }, { tokenFile }, (f) =>
      f.set([se('a')], { push: false }),
    );
    p.client.start();
    const s = await waitForStatus(p.client, (st) => st.state === 'backoff', 'file error');
    assert.match(s.lastError ?? '', /cannot open the stream: ENOENT/);
    assert.equal(p.fake.streams.length, 0);
    writeFileSync(tokenFile, 'late');
    p.clock.advance(p.clock.pendingDelays()[0] ?? 0);
    await p.client.whenSynced();
    assert.deepEqual(names(p), ['shop/a']);
  });

  it('speaks TLS verified with the mesh root certificate, with the bearer token', async () => {
    const pems = testCa();
    const dir = mkdtempSync(path.join(tmpdir(), 'mcp-tls-'));
    const write = (n: string, c: string) => {
      writeFileSync(path.join(dir, n), c);
      return path.join(dir, n);
    };
    const rootCertFile = write('root-cert.pem', pems.ca);
    const tokenFile = write('token', 'tls-token');
    const tls = { key: Buffer.from(pems.serverKey), cert: Buffer.from(pems.serverCert) };
    const p = await pair(
      { serve: 'v1', tls, requireToken: 'tls-token' },
      { tls: true, rootCertFile, tokenFile, serverName: 'localhost' },
      (f) => f.set([se('a')], { push: false }),
    );
    p.client.start();
    await p.client.whenSynced();
    assert.deepEqual(names(p), ['shop/a']);
    assert.equal(p.fake.streams[0]?.authorization, 'Bearer tls-token');

    const wrongRoot = write('foreign.pem', foreignCa().ca);
    const q = await pair(
      { serve: 'v1', tls },
      { tls: true, rootCertFile: wrongRoot, serverName: 'localhost' },
    );
    q.client.start();
    const s = await waitForStatus(q.client, (st) => st.state === 'backoff', 'TLS failure');
    assert.match(s.lastError ?? '', /^stream closed: 14 /);
    assert.equal(q.fake.streams.length, 0, 'no stream reached the server');
  });

  it('survives a slow istiod (delayed responses)', async () => {
    const p = await pair({ serve: 'v1' }, {}, (f) => {
      f.set([se('a')], { push: false });
      f.delayMs = 20;
    });
    p.client.start();
    await p.client.whenSynced();
    assert.deepEqual(names(p), ['shop/a']);
  });
});
