import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { virtualService } from '../../support/builders.ts';
import { names, se, settled, trackedPairs, waitForStatus } from '../../fakes/istiod/harness.ts';
import { encodeResourceWithBody, GARBAGE } from '../../fakes/istiod/encode.ts';
import { MCP_RESOURCE_TYPE_URL } from '../../../src/controller/mcp/protos.ts';
import { busyReceiveWorkers } from '../../support/busy-receive-worker.ts';

const SE_V1 = 'networking.istio.io/v1/ServiceEntry';
const SE_V1A3 = 'networking.istio.io/v1alpha3/ServiceEntry';

describe('MCP client against the fake istiod', () => {
  const pair = trackedPairs();

  it('handshake: one request per type in order, the node only on the first, Aeraki identity', async () => {
    const p = await pair({ serve: 'v1alpha3' }, { apiVersion: 'v1alpha3' });
    p.client.start();
    await p.client.whenSynced();
    const inits = p.fake.filter('init');
    assert.deepEqual(
      inits.map((r) => r.typeUrl),
      ['ServiceEntry', 'VirtualService', 'DestinationRule', 'Gateway'].map(
        (k) => `networking.istio.io/v1alpha3/${k}`,
      ),
    );
    assert.equal(
      inits[0]?.nodeId,
      'sidecar~10.244.0.15~aeraki-7d9f-abcde.istio-system~istio-system.svc.cluster.local',
    );
    assert.deepEqual(inits[0]?.nodeMetadata, { GENERATOR: 'api', ISTIO_VERSION: '65536.65536.65536' });
    assert.ok(inits.slice(1).every((r) => r.nodeId === undefined));
    assert.equal(p.fake.streams.length, 1);
    assert.equal(p.fake.streams[0]?.authorization, undefined);
    assert.deepEqual(
      p.client.typeUrls(),
      inits.map((r) => r.typeUrl),
    );
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

  it('answers read together are applied newest first: an older one of the same type URL is superseded', async () => {
    // The receive worker owns the stream: answers wait unread while it is busy (behind istiod), then are read together.
    const workers = busyReceiveWorkers();
    const p = await pair({ pushScope: 'kind' }, {}, (f) => f.set([se('a'), se('b')], { push: false }), {
      spawnReceiveWorker: workers.spawn,
    });
    p.client.start();
    await p.client.whenSynced();
    await settled(p);
    const supersededOf = () => p.client.status().types.find((t) => t.typeUrl === SE_V1)?.superseded ?? 0;
    // Pushes that reach the socket while the worker is busy are read together (how many per read is up to the
    // transport: rounds until one was superseded).
    let v = 1;
    for (let round = 0; round < 20 && supersededOf() === 0; round++) {
      workers.busy(300);
      for (let i = 0; i < 3; i++) p.fake.upsert(se('b', String(++v)));
      await settled(p);
      assert.equal(
        p.store.get('ServiceEntry', 'shop', 'b')?.metadata.resourceVersion,
        String(v),
        'the newest',
      );
    }
    assert.ok(supersededOf() >= 1, 'an answer was superseded');
    assert.ok(p.client.status().superseded >= supersededOf(), 'counted in the total');
    const applied = p.client.status().types.find((t) => t.typeUrl === SE_V1)?.responses ?? 0;
    const sent = p.fake.sent.filter((r) => r.typeUrl === SE_V1).length;
    assert.ok(
      sent > 1 && sent <= v,
      'pushes made while an answer was in flight are merged, never more answers',
    );
    assert.equal(applied + supersededOf(), sent, 'every answer applied or superseded, once');
    assert.equal(p.fake.filter('nack').length, 0);
  });

  it('pushScope kind: a change re-sends only its kind type URLs, each with the full set', async () => {
    const p = await pair({ pushScope: 'kind' }, {}, (f) => f.set([se('a'), se('b')], { push: false }));
    p.client.start();
    await p.client.whenSynced();
    await settled(p);
    p.fake.upsert(se('b', '2'));
    await settled(p);
    const acked = p.fake.filter('ack').map((r) => r.typeUrl);
    const count = (url: string) => acked.filter((u) => u === url).length;
    assert.equal(count(SE_V1), 2);
    assert.equal(count(SE_V1A3), 2);
    assert.equal(
      count('networking.istio.io/v1/VirtualService'),
      1,
      'VirtualService: the initial answer only',
    );
    assert.equal(acked.length, 8 + 2);
    assert.deepEqual(names(p), ['shop/a', 'shop/b']);
  });

  for (const serve of ['v1', 'v1alpha3'] as const) {
    it(`auto mode works against a ${serve}-only istiod; the empty other URL deletes nothing`, async () => {
      const p = await pair({ serve }, {}, (f) =>
        f.set([se('a'), virtualService('shop', 'vs', { hosts: ['a'] })], { push: false }),
      );
      p.client.start();
      await p.client.whenSynced();
      assert.deepEqual(names(p), ['shop/a']);
      assert.deepEqual(names(p, 'VirtualService'), ['shop/vs']);
      assert.equal(p.store.get('ServiceEntry', 'shop', 'a')?.apiVersion, `networking.istio.io/${serve}`);
      p.events.length = 0;
      p.fake.upsert(se('d'));
      await settled(p);
      assert.deepEqual(names(p), ['shop/a', 'shop/d']);
      assert.deepEqual(
        p.events.map((e) => `${e.type} ${e.kind} ${e.name}`),
        ['added ServiceEntry d'],
      );
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
      encodeResourceWithBody(
        protos,
        { kind: 'ServiceEntry', namespace: 'shop', name: 'b', version: '9' },
        {
          type_url: 'type.googleapis.com/istio.networking.v1alpha3.ServiceEntry',
          value: GARBAGE,
        },
      ),
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

  it('ignores configs of another istio.io/rev unless --revision selects them', async () => {
    const canary = se('canary', '1');
    const labelled = { ...canary, metadata: { ...canary.metadata, labels: { 'istio.io/rev': 'canary' } } };
    const p = await pair({ serve: 'v1' }, {}, (f) => f.set([se('a'), labelled], { push: false }));
    p.client.start();
    await p.client.whenSynced();
    assert.deepEqual(names(p), ['shop/a']);
    const q = await pair({ serve: 'v1' }, { revision: 'canary' }, (f) =>
      f.set([se('a'), labelled], { push: false }),
    );
    q.client.start();
    await q.client.whenSynced();
    assert.deepEqual(names(q), ['shop/a', 'shop/canary']);
  });

  it('records invalid objects as rejected and still applies the valid ones', async () => {
    const bad = {
      kind: 'ServiceEntry' as const,
      namespace: 'shop',
      name: 'bad',
      version: '3',
      spec: { hosts: ['x'], ports: [{ number: 80 }] },
    };
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

  it('applies synthetic ServiceEntries (no version, zero creation time); identical re-sends emit nothing', async () => {
    const synthetic = {
      kind: 'ServiceEntry' as const,
      namespace: 'meta-dubbo',
      name: 'synthetic-dubbo-sample',
      version: '',
      createTime: -62_135_596_800,
      spec: {
        hosts: ['dubbo-sample.meta-dubbo.svc.cluster.local'],
        addresses: ['10.96.0.20'],
        ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP' }],
        location: 'MESH_INTERNAL',
        resolution: 'STATIC',
        workloadSelector: { labels: { app: 'dubbo-sample' } },
      },
    };
    const p = await pair({ serve: 'v1' }, {}, (f) => f.set([synthetic], { push: false }));
    p.client.start();
    await p.client.whenSynced();
    await settled(p);
    const got = p.store.get('ServiceEntry', 'meta-dubbo', 'synthetic-dubbo-sample');
    assert.equal(got?.metadata.creationTimestamp, '');
    assert.equal(got?.metadata.resourceVersion, '');
    assert.equal(got?.spec.location, 'MESH_INTERNAL');
    assert.deepEqual(got?.spec.workloadSelector, { labels: { app: 'dubbo-sample' } });
    p.events.length = 0;
    p.fake.push();
    await settled(p);
    assert.equal(p.events.length, 0);
  });

  it('decodes and applies a 10,000-ServiceEntry answer larger than 4 MiB (no grpc-js receive limit)', async () => {
    const note = 'x'.repeat(400);
    const many = Array.from({ length: 10_000 }, (_, i) => {
      const o = se(`svc-${String(i).padStart(5, '0')}`, String(i + 1));
      return { ...o, metadata: { ...o.metadata, annotations: { note } } };
    });
    const p = await pair({ serve: 'v1' }, {}, (f) => f.set(many, { push: false }));
    p.client.start();
    const st = await waitForStatus(p.client, (x) => x.synced || x.state === 'backoff', 'synced or failed');
    assert.equal(st.lastError, undefined);
    assert.ok(p.fake.largestResponse > 4 * 2 ** 20, `response of ${p.fake.largestResponse} bytes`);
    assert.equal(p.store.list('ServiceEntry').length, 10_000);
    assert.equal(p.store.get('ServiceEntry', 'shop', 'svc-09999')?.metadata.annotations['note'], note);
    assert.equal(p.client.status().types.find((t) => t.typeUrl === SE_V1)?.resources, 10_000);
  });
});
