// The detailed form of istiod's proxy status: `istio.io/debug` with resource name `syncz` (the JSON of istiod's
// /debug/syncz, with each type's kept NACK message), as the fake istiod answers it (debuggen.go's access rule), its
// decoding, and the SynczClient asking it first and falling back to `istio.io/debug/syncz`.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import type { AdsStream } from '../../src/controller/mcp/transport.ts';
import { SynczClient, type SynczClientOptions } from '../../src/proxy-status/client.ts';
import { decodeDebugSyncz, decodeSyncz, type ProxySync } from '../../src/proxy-status/decode.ts';
import type { FakeIstiod } from '../fakes/istiod/server.ts';
import { proxyId, type FakeProxy } from '../fakes/istiod/syncz.ts';
import { recordingLogger } from '../support/recording-logger.ts';
import {
  askOnce,
  NODE,
  ROOT_IDENTITY,
  tlsIstiod,
  transportFor,
  type Caller,
  type Outcome,
} from './support.ts';

const ERROR = 'Error adding/updating listener(s) 10.96.10.20_20880: proto constraint validation failed';
const PROXIES: FakeProxy[] = [
  { id: proxyId('a', 'shop'), namespace: 'shop', lds: 'SYNCED' },
  { id: proxyId('b', 'shop'), namespace: 'shop', lds: 'ERROR', ldsError: ERROR },
  { id: proxyId('c', 'pay'), namespace: 'pay', lds: 'STALE' },
  { id: proxyId('d', 'pay'), namespace: 'pay', lds: 'NOT_SENT' },
];
const DETAILED: readonly ProxySync[] = [
  { id: PROXIES[0]!.id, namespace: 'shop', type: 'sidecar', listeners: 'SYNCED', listenerError: undefined },
  { id: PROXIES[1]!.id, namespace: 'shop', type: 'sidecar', listeners: 'ERROR', listenerError: ERROR },
  { id: PROXIES[2]!.id, namespace: 'pay', type: 'sidecar', listeners: 'STALE', listenerError: undefined },
  { id: PROXIES[3]!.id, namespace: 'pay', type: 'sidecar', listeners: 'NOT_SENT', listenerError: undefined },
];

/** One `istio.io/debug` question with these resource names; the first answer or the stream's end. */
function askDebug(stream: AdsStream, names: readonly string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    stream.once('data', (answer: Outcome & { typeUrl?: string }) => resolve({ answer }));
    stream.once('error', (error: { code?: number; details?: string }) => resolve({ error }));
    stream.write({ typeUrl: 'istio.io/debug', node: NODE, resourceNames: [...names] });
  });
}

describe('istio.io/debug syncz: the form carrying rejection details', () => {
  const cleanups: (() => Promise<void>)[] = [];
  after(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  async function istiod(clientCerts = true): Promise<FakeIstiod> {
    const fake = await tlsIstiod(clientCerts);
    fake.syncz.proxies = PROXIES;
    fake.syncz.tokens.set('root-token', 'istio-system');
    cleanups.push(() => fake.close());
    return fake;
  }

  async function ask(
    fake: FakeIstiod,
    caller: Caller,
    names: readonly string[] = ['syncz'],
  ): Promise<Outcome> {
    const t = transportFor(fake, caller);
    try {
      const stream = await t.open();
      const out = await askDebug(stream, names);
      stream.cancel();
      return out;
    } finally {
      t.close();
    }
  }

  it('the fake answers a root-namespace identity with /debug/syncz JSON in one Any of istio.io/debug', async () => {
    const fake = await istiod();
    const out = await ask(fake, { spiffe: ROOT_IDENTITY });
    assert.ok('answer' in out, JSON.stringify(out));
    assert.equal(out.answer.typeUrl, 'istio.io/debug');
    const [res] = out.answer.resources ?? [];
    assert.equal(res?.type_url, 'istio.io/debug');
    const json = JSON.parse(Buffer.from(res.value!).toString()) as Record<string, unknown>[];
    const lds = 'type.googleapis.com/envoy.config.listener.v3.Listener';
    assert.deepEqual(
      (json[1]!['resources'] as Record<string, { lastError?: string }>)[lds]?.lastError,
      ERROR,
    );
    assert.equal(json[1]!['proxy'], PROXIES[1]!.id);
    assert.deepEqual(decodeDebugSyncz(out.answer.resources ?? []), { ok: true, proxies: DETAILED });
    assert.equal(fake.requests.at(-1)?.kind, 'debug');
  });

  it('the fake applies DebugGen: a root token passes; no identity, another namespace, two names end the stream', async () => {
    const tokenPort = await istiod(false);
    const byToken = await ask(tokenPort, { token: 'root-token' });
    assert.ok('answer' in byToken);
    const cases: [Caller, FakeIstiod, readonly string[], RegExp][] = [
      [{}, tokenPort, ['syncz'], /authentication required/],
      [{ spiffe: 'spiffe://cluster.local/ns/shop/sa/default' }, await istiod(), ['syncz'], /not available/],
      [{ spiffe: ROOT_IDENTITY }, await istiod(), ['syncz', 'adsz'], /only one debug request/],
    ];
    for (const [caller, fake, names, why] of cases) {
      const out = await ask(fake, caller, names);
      assert.ok('error' in out, JSON.stringify(out));
      assert.equal(out.error.code, grpc.status.UNKNOWN);
      assert.match(out.error.details ?? '', why);
    }
  });

  it('older JSON (nonces only) reads a rejection as stale; the newest status form has no detail either', async () => {
    const fake = await istiod();
    fake.syncz.debug = 'older';
    const out = await ask(fake, { spiffe: ROOT_IDENTITY });
    assert.ok('answer' in out);
    const older = decodeDebugSyncz(out.answer.resources ?? []);
    assert.ok(older.ok);
    assert.deepEqual(
      older.proxies.map((p) => [p.listeners, p.listenerError]),
      [
        ['SYNCED', undefined],
        ['STALE', undefined],
        ['STALE', undefined],
        ['NOT_SENT', undefined],
      ],
    );
    fake.syncz.mode = 'newest';
    const t = transportFor(fake, { spiffe: ROOT_IDENTITY });
    const stream = await t.open();
    const status = await askOnce(stream);
    stream.cancel();
    t.close();
    assert.ok('answer' in status);
    const d = decodeSyncz(status.answer.resources ?? []);
    assert.ok(d.ok);
    assert.deepEqual(d.proxies[1], { ...DETAILED[1], listeners: 'STALE', listenerError: undefined });
  });

  it('decodes nothing from an answer that is not the syncz JSON', () => {
    const notFound = decodeDebugSyncz([
      { type_url: 'istio.io/debug', value: Buffer.from('404 page not found\n') },
    ]);
    assert.deepEqual(notFound, { ok: false, reason: 'not the syncz JSON: "404 page not found"' });
    assert.equal(decodeDebugSyncz([{ type_url: 'istio.io/debug', value: Buffer.from('{}') }]).ok, false);
    assert.equal(decodeDebugSyncz([]).ok, false);
  });

  interface Running {
    readonly fake: FakeIstiod;
    readonly client: SynczClient;
    readonly answers: (readonly ProxySync[])[];
    readonly log: ReturnType<typeof recordingLogger>;
  }

  async function client(
    caller: Caller,
    options: Partial<SynczClientOptions> = {},
    setup?: (f: FakeIstiod) => void,
  ): Promise<Running> {
    const fake = await istiod(caller.spiffe !== undefined);
    setup?.(fake);
    const transport = transportFor(fake, caller);
    const answers: (readonly ProxySync[])[] = [];
    const log = recordingLogger();
    const c = new SynczClient(
      { open: () => transport.open(), node: NODE, intervalMs: 50, detailedForm: true, ...options },
      { logger: log, onAnswer: (p) => answers.push(p) },
    );
    c.start();
    cleanups.push(() => {
      c.stop();
      transport.close();
      return Promise.resolve();
    });
    return { fake, client: c, answers, log };
  }
  const detailedAsks = (f: FakeIstiod) => f.requests.filter((r) => r.typeUrl === 'istio.io/debug').length;
  const statusAsks = (f: FakeIstiod) => f.requests.filter((r) => r.typeUrl === 'istio.io/debug/syncz').length;
  const warnings = (r: Running) => r.log.records.filter((x) => x.level === 'warn');

  it('the client asks the detailed form first and gets the rejection with its detail', async () => {
    const r = await client({ spiffe: ROOT_IDENTITY }, {}, (f) => (f.syncz.mode = 'newest'));
    await r.fake.waitFor(() => detailedAsks(r.fake) >= 2, 'two detailed questions');
    assert.deepEqual(r.answers[0], DETAILED);
    assert.equal(r.client.answeredForm, 'detailed');
    assert.equal(statusAsks(r.fake), 0);
    assert.equal(new Set(r.fake.requests.map((q) => q.stream)).size, 1, 'one stream for every question');
    assert.deepEqual(warnings(r), []);
  });

  it('refused (an identity outside the root namespace): said once, the status form instead, no storm', async () => {
    const r = await client(
      { spiffe: 'spiffe://cluster.local/ns/shop/sa/default' },
      { refusedBackoffMs: 60_000 },
    );
    await r.fake.waitFor(() => statusAsks(r.fake) >= 4, 'four status questions');
    assert.equal(detailedAsks(r.fake), 1);
    assert.equal(r.fake.streams.length, 2, 'the refusal ended one stream; one more for the status form');
    assert.equal(r.client.answeredForm, 'status');
    assert.equal(r.client.state, 'answering');
    assert.equal(warnings(r).length, 1);
    assert.match(
      warnings(r)[0]!.message,
      /istiod refused istio\.io\/debug syncz: the debug info is not available/,
    );
    assert.match(
      warnings(r)[0]!.message,
      /asking istio\.io\/debug\/syncz instead, which gives no rejection details/,
    );
  });

  it('an older istiod without the type: the status form until the backoff ends, then the detailed one again', async () => {
    // Time enough for an answer on a loaded machine: a second timeout would add a second warning.
    const r = await client({ spiffe: ROOT_IDENTITY }, { timeoutMs: 500, refusedBackoffMs: 400 }, (f) => {
      f.syncz.debug = 'absent';
      f.syncz.mode = 'older';
    });
    await r.fake.waitFor(() => r.answers.length >= 1, 'an answer of the status form');
    assert.equal(r.client.answeredForm, 'status');
    assert.deepEqual(
      r.answers[0]!.map((p) => p.listeners),
      ['SYNCED', 'STALE', 'STALE', 'NOT_SENT'],
    );
    assert.match(warnings(r)[0]?.message ?? '', /did not answer istio\.io\/debug syncz within 500 ms/);
    r.fake.syncz.debug = 'newest';
    // (waitFor looks again at each request: the detailed answer is seen at the question after it)
    await r.fake.waitFor(() => r.client.answeredForm === 'detailed', 'the detailed form after the backoff');
    assert.deepEqual(r.answers.at(-1), DETAILED);
    assert.equal(warnings(r).length, 1);
  });
});
