import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import * as grpc from '@grpc/grpc-js';
import { decodeSyncz } from '../../src/proxy-status/decode.ts';
import type { FakeIstiod } from '../fakes/istiod/server.ts';
import { proxyId, type FakeProxy } from '../fakes/istiod/syncz.ts';
import { buildNode } from '../../src/controller/mcp/node.ts';
import { TEST_NODE } from '../fakes/istiod/harness.ts';
import {
  askOnce,
  NODE,
  ROOT_IDENTITY,
  tlsIstiod,
  transportFor,
  type Caller,
  type Outcome,
} from './support.ts';

const PROXIES: FakeProxy[] = [
  { id: proxyId('shop-1', 'shop'), namespace: 'shop', lds: 'SYNCED' },
  { id: proxyId('shop-2', 'shop'), namespace: 'shop', lds: 'STALE' },
  {
    id: proxyId('pay-1', 'pay'),
    namespace: 'pay',
    lds: 'ERROR',
    ldsError: 'Error adding/updating listener(s) 10.96.10.20_20880: boom',
  },
];

describe('fake istiod: istio.io/debug/syncz', () => {
  let fake: FakeIstiod;
  /** The same istiod's port without client certificates: callers authenticate by token or not at all. */
  let tokenPort: FakeIstiod;
  before(async () => {
    fake = await tlsIstiod();
    tokenPort = await tlsIstiod(false);
    for (const f of [fake, tokenPort]) {
      f.syncz.proxies = PROXIES;
      f.syncz.tokens.set('root-token', 'istio-system');
    }
  });
  after(async () => {
    await fake.close();
    await tokenPort.close();
  });

  async function ask(caller: Caller): Promise<Outcome> {
    const t = transportFor(caller.spiffe ? fake : tokenPort, caller);
    try {
      const stream = await t.open();
      const out = await askOnce(stream);
      stream.cancel();
      return out;
    } finally {
      t.close();
    }
  }

  function proxies(out: Outcome) {
    assert.ok('answer' in out, `expected an answer, got ${JSON.stringify(out)}`);
    const d = decodeSyncz(out.answer.resources ?? []);
    assert.ok(d.ok);
    return d.proxies;
  }

  it('answers a root-namespace identity (client certificate) with every proxy, current shape', async () => {
    const out = await ask({ spiffe: ROOT_IDENTITY });
    assert.ok('answer' in out);
    assert.equal(out.answer.typeUrl, 'istio.io/debug/syncz');
    assert.deepEqual(proxies(out), [
      {
        id: PROXIES[0]!.id,
        namespace: 'shop',
        type: 'sidecar',
        listeners: 'SYNCED',
        listenerError: undefined,
      },
      {
        id: PROXIES[1]!.id,
        namespace: 'shop',
        type: 'sidecar',
        listeners: 'STALE',
        listenerError: undefined,
      },
      {
        id: PROXIES[2]!.id,
        namespace: 'pay',
        type: 'sidecar',
        listeners: 'ERROR',
        listenerError: PROXIES[2]!.ldsError,
      },
    ]);
    const last = fake.requests.at(-1)!;
    assert.equal(last.kind, 'debug');
  });

  it('answers a root-namespace token the same', async () => {
    assert.equal(proxies(await ask({ token: 'root-token' })).length, 3);
  });

  it('current istiod shows a caller outside the root namespace every proxy (statusgen.go checks no caller)', async () => {
    assert.equal(proxies(await ask({ spiffe: 'spiffe://cluster.local/ns/shop/sa/default' })).length, 3);
    assert.equal(proxies(await ask({})).length, 3, 'nor an unauthenticated one');
  });

  it('restricted: a caller outside the root namespace sees only its namespace', async () => {
    fake.syncz.mode = 'restricted';
    try {
      const out = await ask({ spiffe: 'spiffe://cluster.local/ns/shop/sa/default' });
      assert.deepEqual(
        proxies(out).map((p) => p.id),
        [PROXIES[0]!.id, PROXIES[1]!.id],
      );
    } finally {
      fake.syncz.mode = 'current';
    }
  });

  it('a node naming GENERATOR api is answered by the MCP generator: an empty list, whatever the proxies', async () => {
    assert.equal(NODE.metadata.fields['GENERATOR'], undefined, "the syncz stream's node names no generator");
    const t = transportFor(fake, { spiffe: ROOT_IDENTITY });
    try {
      const stream = await t.open();
      const out = await askOnce(stream, 'istio.io/debug/syncz', buildNode(TEST_NODE));
      stream.cancel();
      assert.deepEqual(proxies(out), []);
    } finally {
      t.close();
    }
  });

  it('restricted: refuses an unauthenticated caller by ending the stream', async () => {
    tokenPort.syncz.mode = 'restricted';
    try {
      const out = await ask({});
      assert.ok('error' in out);
      assert.equal(out.error.code, grpc.status.UNAUTHENTICATED);
    } finally {
      tokenPort.syncz.mode = 'current';
    }
  });

  it('answers over plaintext (the default --istiod-address, port 15010); restricted refuses there', async () => {
    const plain = await (await import('../fakes/istiod/server.ts')).FakeIstiod.start();
    plain.syncz.proxies = PROXIES;
    const t = transportFor(plain, { tls: false });
    try {
      let stream = await t.open();
      assert.equal(proxies(await askOnce(stream)).length, 3);
      stream.cancel();
      plain.syncz.mode = 'restricted';
      stream = await t.open();
      const out = await askOnce(stream);
      assert.ok('error' in out);
      assert.equal(out.error.code, grpc.status.UNAUTHENTICATED);
    } finally {
      t.close();
      await plain.close();
    }
  });

  it('older istiod: node id only and the per-type xds_config (a rejection is STALE, no detail), to anyone', async () => {
    tokenPort.syncz.mode = 'older';
    try {
      assert.deepEqual(
        proxies(await ask({})).map((p) => [p.namespace, p.listeners, p.listenerError]),
        [
          ['shop', 'SYNCED', undefined],
          ['shop', 'STALE', undefined],
          ['pay', 'STALE', undefined],
        ],
      );
    } finally {
      tokenPort.syncz.mode = 'current';
    }
  });

  it('an istiod that does not know the type sends no answer', async () => {
    fake.syncz.mode = 'unknown';
    try {
      const t = transportFor(fake, { spiffe: ROOT_IDENTITY });
      const stream = await t.open();
      const out = await Promise.race([askOnce(stream), sleep(300).then(() => 'silence' as const)]);
      stream.cancel();
      t.close();
      assert.equal(out, 'silence');
      assert.equal(fake.requests.at(-1)?.kind, 'debug');
    } finally {
      fake.syncz.mode = 'current';
    }
  });

  it('a refusal ends the stream', async () => {
    fake.syncz.mode = 'refuse';
    try {
      const out = await ask({ spiffe: ROOT_IDENTITY });
      assert.ok('error' in out);
      assert.equal(out.error.code, grpc.status.PERMISSION_DENIED);
    } finally {
      fake.syncz.mode = 'current';
    }
  });
});
