import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { serviceEntry, virtualService } from '../support/builders.ts';
import { settled, startPair, waitForStatus, type Pair } from '../fakes/istiod/harness.ts';
import { encodeResourceWithBody, GARBAGE } from '../fakes/istiod/encode.ts';
import { MCP_RESOURCE_TYPE_URL } from '../../src/controller/mcp/protos.ts';

const SE_V1 = 'networking.istio.io/v1/ServiceEntry';
const SE_V1A3 = 'networking.istio.io/v1alpha3/ServiceEntry';

function se(name: string, version = '1', ns = 'shop') {
  return serviceEntry(
    ns,
    name,
    {
      hosts: [`${name}.${ns}.svc.cluster.local`],
      addresses: ['10.0.0.1'],
      ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP' }],
      resolution: 'STATIC',
    },
    { resourceVersion: version },
  );
}

function names(p: Pair, kind: 'ServiceEntry' | 'VirtualService' = 'ServiceEntry'): string[] {
  return p.store.list(kind).map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
}

describe('MCP client against the fake istiod', () => {
  const pairs: Pair[] = [];
  after(async () => {
    for (const p of pairs) await p.close();
  });
  async function pair(...args: Parameters<typeof startPair>): Promise<Pair> {
    const p = await startPair(...args);
    pairs.push(p);
    return p;
  }

  it('handshake: one request per type in order, the node only on the first, Aeraki identity', async () => {
    const p = await pair({ serve: 'v1alpha3' }, { apiVersion: 'v1alpha3' });
    p.client.start();
    await p.client.whenSynced();
    const inits = p.fake.filter('init');
    assert.deepEqual(
      inits.map((r) => r.typeUrl),
      ['ServiceEntry', 'VirtualService', 'DestinationRule', 'Gateway'].map((k) => `networking.istio.io/v1alpha3/${k}`),
    );
    assert.equal(inits[0]?.nodeId, 'sidecar~10.244.0.15~aeraki-7d9f-abcde.istio-system~istio-system.svc.cluster.local');
    assert.deepEqual(inits[0]?.nodeMetadata, { GENERATOR: 'api', ISTIO_VERSION: '65536.65536.65536' });
    assert.ok(inits.slice(1).every((r) => r.nodeId === undefined));
    assert.equal(p.fake.streams.length, 1);
    assert.equal(p.fake.streams[0]?.authorization, undefined);
    assert.deepEqual(p.client.typeUrls(), inits.map((r) => r.typeUrl));
  });

  it('auto mode subscribes v1 and v1alpha3 of every kind', async () => {
    const p = await pair();
    p.client.start();
    await p.client.whenSynced();
    assert.equal(p.fake.filter('init').length, 8);
    assert.deepEqual(p.client.typeUrls().slice(0, 2), [SE_V1, SE_V1A3]);
  });

  it('replaces the full state of a type and ACKs each response with its nonce and version', async () => {
    const p = await pair({ serve: 'v1' }, {}, (f) => f.set([se('a'), se('b'), se('c')], { push: false }));
    p.client.start();
    await p.client.whenSynced();
    assert.deepEqual(names(p), ['shop/a', 'shop/b', 'shop/c']);
    assert.equal(p.store.get('ServiceEntry', 'shop', 'a')?.apiVersion, 'networking.istio.io/v1');
    await settled(p); // the initial ACKs have reached istiod (else they would be stale after the next push)
    p.events.length = 0;
    p.fake.remove('ServiceEntry', 'shop', 'a', { push: false });
    p.fake.upsert(se('b', '2'));
    await settled(p);
    assert.deepEqual(names(p), ['shop/b', 'shop/c']);
    assert.deepEqual(
      p.events.map((e) => `${e.type} ${e.name}`),
      ['deleted a', 'updated b'],
      'only real changes; c (same resourceVersion) untouched',
    );
    // Every response was ACKed with its own nonce (the fake classifies a wrong nonce as stale).
    assert.equal(p.fake.filter('stale').length, 0);
    assert.equal(p.fake.filter('nack').length, 0);
    const acks = p.fake.filter('ack', SE_V1);
    assert.equal(acks.length, 2);
    assert.deepEqual(
      acks.map((a) => a.versionInfo),
      ['v0', 'v1'],
    );
    const st = p.client.status();
    assert.equal(st.state, 'connected');
    assert.equal(st.types.find((t) => t.typeUrl === SE_V1)?.version, 'v1');
    assert.equal(st.types.find((t) => t.typeUrl === SE_V1)?.resources, 2);
    assert.equal(st.types.find((t) => t.typeUrl === SE_V1)?.lastPushTime, 1_000_000);
  });

  for (const serve of ['v1', 'v1alpha3'] as const) {
    it(`auto mode works against a ${serve}-only istiod; the empty other URL deletes nothing`, async () => {
      const p = await pair({ serve }, {}, (f) => f.set([se('a'), virtualService('shop', 'vs', { hosts: ['a'] })], { push: false }));
      p.client.start();
      await p.client.whenSynced();
      assert.deepEqual(names(p), ['shop/a']);
      assert.deepEqual(names(p, 'VirtualService'), ['shop/vs']);
      assert.equal(p.store.get('ServiceEntry', 'shop', 'a')?.apiVersion, `networking.istio.io/${serve}`);
      p.events.length = 0;
      p.fake.upsert(se('d'));
      await settled(p);
      assert.deepEqual(names(p), ['shop/a', 'shop/d']);
      assert.deepEqual(p.events.map((e) => `${e.type} ${e.kind} ${e.name}`), ['added ServiceEntry d']);
      assert.ok(p.client.synced);
    });
  }

  it('an undecodable resource is skipped and NACKed; the others are applied, known ones kept', async () => {
    const p = await pair({ serve: 'v1' }, {}, (f) => f.set([se('a'), se('b')], { push: false }));
    p.client.start();
    await p.client.whenSynced();
    const protos = p.fake.protos;
    p.fake.setRaw('ServiceEntry', [
      { type_url: MCP_RESOURCE_TYPE_URL, value: GARBAGE },
      encodeResourceWithBody(protos, { kind: 'ServiceEntry', namespace: 'shop', name: 'b', version: '9' }, {
        type_url: 'type.googleapis.com/istio.networking.v1alpha3.ServiceEntry',
        value: GARBAGE,
      }),
    ]);
    p.fake.remove('ServiceEntry', 'shop', 'b', { push: false });
    p.fake.upsert(se('c'));
    await settled(p);
    // c applied; b (undecodable body) kept at its previous version; the nameless one makes the answer partial.
    assert.deepEqual(names(p), ['shop/a', 'shop/b', 'shop/c']);
    const nacks = p.fake.filter('nack', SE_V1);
    assert.equal(nacks.length, 1);
    assert.match(nacks[0]?.errorMessage ?? '', /2 undecodable/);
    assert.equal(nacks[0]?.versionInfo, 'v0', 'a NACK carries the last accepted version');
    const st = p.client.status();
    assert.equal(st.undecodable, 2);
    assert.equal(st.nacksSent, 1);
    // Once istiod serves clean state again, deletions resume.
    p.fake.setRaw('ServiceEntry', []);
    p.fake.remove('ServiceEntry', 'shop', 'a');
    await settled(p);
    assert.deepEqual(names(p), ['shop/c']);
  });

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
    const p = await pair({ serve: 'v1', requireToken: 'secret-token' }, { tokenFile }, (f) => f.set([se('a')], { push: false }));
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

  it('ignores configs of another istio.io/rev unless --revision selects them', async () => {
    const canary = se('canary', '1');
    const labelled = { ...canary, metadata: { ...canary.metadata, labels: { 'istio.io/rev': 'canary' } } };
    const p = await pair({ serve: 'v1' }, {}, (f) => f.set([se('a'), labelled], { push: false }));
    p.client.start();
    await p.client.whenSynced();
    assert.deepEqual(names(p), ['shop/a']);
    const q = await pair({ serve: 'v1' }, { revision: 'canary' }, (f) => f.set([se('a'), labelled], { push: false }));
    q.client.start();
    await q.client.whenSynced();
    assert.deepEqual(names(q), ['shop/a', 'shop/canary']);
  });

  it('records invalid objects as rejected and still applies the valid ones', async () => {
    const bad = { kind: 'ServiceEntry' as const, namespace: 'shop', name: 'bad', version: '3', spec: { hosts: ['x'], ports: [{ number: 80 }] } };
    const p = await pair({ serve: 'v1' }, {}, (f) => f.set([se('a'), bad], { push: false }));
    p.client.start();
    await p.client.whenSynced();
    assert.deepEqual(names(p), ['shop/a']);
    const rejected = p.store.rejected();
    assert.equal(rejected.length, 1);
    assert.deepEqual(rejected[0]?.ref, { kind: 'ServiceEntry', namespace: 'shop', name: 'bad' });
    assert.equal(rejected[0]?.issues[0]?.path, 'spec.ports[0].name');
    assert.equal(p.fake.filter('nack').length, 0, 'invalid user config is ACKed, not NACKed');
    p.fake.remove('ServiceEntry', 'shop', 'bad');
    await settled(p);
    assert.equal(p.store.rejected().length, 0);
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

  it('decodes and applies a 10,000-ServiceEntry answer', async () => {
    const many = Array.from({ length: 10_000 }, (_, i) => se(`svc-${String(i).padStart(5, '0')}`, String(i + 1)));
    const p = await pair({ serve: 'v1' }, {}, (f) => f.set(many, { push: false }));
    p.client.start();
    await p.client.whenSynced();
    assert.equal(p.store.list('ServiceEntry').length, 10_000);
    assert.equal(p.client.status().types.find((t) => t.typeUrl === SE_V1)?.resources, 10_000);
  });
});
