import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { SynczClient, type SynczClientOptions } from '../../src/proxy-status/client.ts';
import type { ProxySync } from '../../src/proxy-status/decode.ts';
import type { FakeIstiod } from '../fakes/istiod/server.ts';
import { proxyId } from '../fakes/istiod/syncz.ts';
import { recordingLogger } from '../support/recording-logger.ts';
import { NODE, ROOT_IDENTITY, tlsIstiod, transportFor } from './support.ts';

interface Running {
  readonly fake: FakeIstiod;
  readonly client: SynczClient;
  readonly answers: (readonly ProxySync[])[];
  readonly log: ReturnType<typeof recordingLogger>;
}

describe('SynczClient against the fake istiod', () => {
  const cleanups: (() => Promise<void>)[] = [];
  after(async () => {
    for (const c of cleanups) await c();
  });

  async function start(
    options: Partial<SynczClientOptions> = {},
    setup?: (f: FakeIstiod) => void,
  ): Promise<Running> {
    const fake = await tlsIstiod();
    fake.syncz.proxies = [
      { id: proxyId('a', 'shop'), namespace: 'shop', lds: 'SYNCED' },
      {
        id: proxyId('b', 'shop'),
        namespace: 'shop',
        lds: 'ERROR',
        ldsError: 'Error adding/updating listener(s) x: y',
      },
    ];
    setup?.(fake);
    const transport = transportFor(fake, { spiffe: ROOT_IDENTITY });
    const answers: (readonly ProxySync[])[] = [];
    const log = recordingLogger();
    const client = new SynczClient(
      { open: () => transport.open(), node: NODE, intervalMs: 100, afterWriteMs: 20, ...options },
      { logger: log, onAnswer: (p) => answers.push(p) },
    );
    client.start();
    cleanups.push(async () => {
      client.stop();
      transport.close();
      await fake.close();
    });
    return { fake, client, answers, log };
  }

  const debugRequests = (f: FakeIstiod) => f.requests.filter((r) => r.kind === 'debug');

  it('asks periodically on one stream of its own and never ACKs an answer', async () => {
    const r = await start();
    await r.fake.waitFor(() => debugRequests(r.fake).length >= 3, 'three questions');
    await sleep(20);
    assert.ok(r.answers.length >= 2);
    assert.deepEqual(
      r.answers[0]!.map((p) => [p.namespace, p.listeners]),
      [
        ['shop', 'SYNCED'],
        ['shop', 'ERROR'],
      ],
    );
    // Every request is a fresh question (no nonce): none acknowledges an answer; one stream for all.
    assert.ok(debugRequests(r.fake).every((q) => q.responseNonce === ''));
    assert.equal(r.fake.requests.length, debugRequests(r.fake).length);
    assert.equal(new Set(r.fake.requests.map((q) => q.stream)).size, 1);
    assert.equal(r.client.state, 'answering');
  });

  it('asks soon after a write instead of waiting for the interval', async () => {
    const r = await start({ intervalMs: 60_000 });
    await r.fake.waitFor(() => debugRequests(r.fake).length === 1, 'the first question');
    await sleep(30);
    r.client.nudge();
    await r.fake.waitFor(() => debugRequests(r.fake).length === 2, 'the question after a write', 2_000);
  });

  it('a refusal: one warning, then a long backoff (no retry storm)', async () => {
    const r = await start({ refusedBackoffMs: 60_000 }, (f) => (f.syncz.mode = 'refuse'));
    await r.fake.waitFor(() => debugRequests(r.fake).length === 1, 'the question');
    await sleep(400);
    r.client.nudge();
    await sleep(100);
    assert.equal(debugRequests(r.fake).length, 1);
    assert.equal(r.client.state, 'refused');
    const warnings = r.log.records.filter((x) => x.level === 'warn');
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!.message, /istiod refused istio\.io\/debug\/syncz: debug info is not available/);
  });

  it('an istiod that does not know the type: one warning, then a long backoff', async () => {
    const r = await start({ refusedBackoffMs: 60_000, timeoutMs: 100 }, (f) => (f.syncz.mode = 'unknown'));
    await r.fake.waitFor(() => debugRequests(r.fake).length === 1, 'the question');
    await sleep(400);
    assert.equal(debugRequests(r.fake).length, 1);
    assert.equal(r.answers.length, 0);
    assert.equal(r.client.state, 'refused');
    const warnings = r.log.records.filter((x) => x.level === 'warn');
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!.message, /did not answer/);
  });

  it('an istiod restricting syncz refuses an unauthenticated stream: warned once, with the hint', async () => {
    const fake = await tlsIstiod(false);
    fake.syncz.mode = 'restricted';
    const transport = transportFor(fake, {});
    const log = recordingLogger();
    const client = new SynczClient(
      {
        open: () => transport.open(),
        node: NODE,
        intervalMs: 50,
        refusedBackoffMs: 200,
        refusalHint: 'try the TLS port',
      },
      { logger: log, onAnswer: () => {} },
    );
    client.start();
    cleanups.push(async () => {
      client.stop();
      transport.close();
      await fake.close();
    });
    await fake.waitFor(() => debugRequests(fake).length >= 2, 'a second question after the backoff');
    await sleep(20);
    const warnings = log.records.filter((x) => x.level === 'warn');
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!.message, /refused istio\.io\/debug\/syncz: .*; try the TLS port$/);
    assert.ok(debugRequests(fake).length <= 3);
  });
});
