// The receive worker (receiver.ts, receive-worker.ts) against the in-thread reading (McpState.applyResponse): the same
// store, events, counts and reports over the differential test's random answers and the fuzz test's hostile
// resources; a response read while its stream ended is dropped and its type URL read afresh; every response is
// answered once, in order.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadMcpProtos, MCP_RESOURCE_TYPE_URL } from '../../../src/controller/mcp/protos.ts';
import { McpState } from '../../../src/controller/mcp/state.ts';
import { subscribedTypeUrls, typeUrlFor } from '../../../src/controller/mcp/type-urls.ts';
import type { ConfigStore } from '../../../src/controller/store.ts';
import { parseConfigObject } from '../../../src/model/parse/parse.ts';
import { stableStringify } from '../../../src/util/json.ts';
import { encodeResource, type AnyBytes } from '../../fakes/istiod/encode.ts';
import { mutate, rng, type Rng } from '../../fuzz/prng.ts';
import { recordingStore, serviceEntry } from '../../support/builders.ts';
import { KINDS, NAMES, NS, URLS, World } from '../../support/mcp-answers.ts';
import { WorkerPath } from '../../support/mcp-worker-path.ts';
import { picker } from '../../support/random-mesh.ts';

const protos = loadMcpProtos();
const SE = typeUrlFor('ServiceEntry', 'v1');

function contents(store: ConfigStore): string {
  return stableStringify({
    objects: KINDS.map((k) => store.list(k)),
    rejected: store.rejected(),
    heldHosts: store.heldHosts(),
  });
}

/** Every object frozen in `reference` is frozen in `store` too (registry-owned ones are not, in either). */
function frozenAlike(store: ConfigStore, reference: ConfigStore): boolean {
  return KINDS.every((k) =>
    reference.list(k).every((o) => {
      const same = store.get(k, o.metadata.namespace, o.metadata.name);
      return (
        Object.isFrozen(same) === Object.isFrozen(o) &&
        Object.isFrozen(same?.spec) === Object.isFrozen(o.spec)
      );
    }),
  );
}

const se = (name: string, version: string, host = `${name}.example`): AnyBytes =>
  encodeResource(protos, {
    kind: 'ServiceEntry',
    namespace: NS,
    name,
    version,
    spec: { hosts: [host], ports: [{ number: 9000, name: 'tcp-metaprotocol-x' }] },
  });

/** A hostile resource (test/fuzz/mcp.test.ts): mutated, random, or of the wrong Any type. */
function hostile(r: Rng, i: number): AnyBytes {
  const base = se(`h${i % 5}`, String(i));
  switch (r.int(3)) {
    case 0:
      return { type_url: MCP_RESOURCE_TYPE_URL, value: r.bytes(r.int(120)) };
    case 1:
      return { type_url: r.pick(['', MCP_RESOURCE_TYPE_URL]), value: base.value };
    default:
      return { type_url: MCP_RESOURCE_TYPE_URL, value: mutate(r, base.value) };
  }
}

describe('MCP receive worker', () => {
  it('leaves the store, events, counts and reports the in-thread reading leaves, over random answers', async () => {
    const p = picker(40);
    const world = new World(protos, p);
    const [a, b] = [recordingStore(), recordingStore()];
    const inThread = new McpState(protos, a.store, parseConfigObject, '', URLS);
    const worker = new WorkerPath(protos, b.store, URLS);
    try {
      for (let step = 1; step <= 300; step++) {
        const where = `step ${step}`;
        const r = p.next();
        if (r < 0.05) {
          inThread.resync();
          worker.reconnect();
        } else if (r < 0.1) {
          const name = p.one(NAMES);
          for (const { store } of [a, b]) {
            if (r < 0.075)
              store.applyOwned('registry', [serviceEntry(NS, name, { hosts: ['reg.example'] })], []);
            else store.applyOwned('registry', [], [{ kind: 'ServiceEntry', namespace: NS, name }]);
          }
        } else {
          const type = p.one(URLS);
          if (r < 0.15) world.clear(type);
          else world.change(type);
          const { resources } = world.answer(type);
          const expected = inThread.applyResponse(type, resources);
          assert.deepEqual(await worker.answer(type, resources), expected, `outcome: ${where}`);
        }
        assert.equal(contents(b.store), contents(a.store), `store: ${where}`);
        assert.deepEqual(b.events.map(stableStringify), a.events.map(stableStringify), `events: ${where}`);
        a.events.length = 0;
        b.events.length = 0;
      }
      assert.ok(frozenAlike(b.store, a.store), 'objects read in the worker are frozen as parsed ones are');
      assert.deepEqual(worker.failures, []);
    } finally {
      await worker.close();
    }
  });

  it('reports hostile resources as the in-thread reading does, and keeps the valid ones', async () => {
    const r = rng(4040);
    const [a, b] = [recordingStore(), recordingStore()];
    const urls = subscribedTypeUrls('v1');
    const inThread = new McpState(protos, a.store, parseConfigObject, '', urls);
    const worker = new WorkerPath(protos, b.store, urls);
    const good = se('good', '1');
    try {
      for (let i = 0; i < 150; i++) {
        const resources = Array.from({ length: 1 + r.int(4) }, (_, k) => hostile(r, i * 4 + k));
        resources.splice(r.int(resources.length + 1), 0, good);
        const expected = inThread.applyResponse(SE, resources);
        assert.deepEqual(await worker.answer(SE, resources), expected, `iteration ${i}`);
        assert.equal(contents(b.store), contents(a.store), `iteration ${i}`);
        assert.ok(b.store.get('ServiceEntry', NS, 'good'), `iteration ${i}`);
      }
      assert.deepEqual(worker.failures, []);
    } finally {
      await worker.close();
    }
  });

  for (const when of ['waiting in the worker', 'read, its result not yet taken'] as const) {
    it(`drops an answer of an ended stream ${when} and reads its type URL afresh`, async () => {
      const urls = subscribedTypeUrls('v1');
      const { store } = recordingStore();
      const worker = new WorkerPath(protos, store, urls);
      try {
        await worker.answer(SE, [se('a', '1'), se('b', '1')]);
        // The old stream's last answer: a and c (b removed). Never applied: its stream ends before.
        worker.post(SE, [se('a', '1'), se('c', '1')]);
        if (when === 'read, its result not yet taken') {
          const until = Date.now() + 1500; // the worker reads it meanwhile; this thread takes nothing
          while (Date.now() < until);
        }
        worker.reconnect();
        // The new stream's first answer is that same state: it must reach the store whole.
        await worker.answer(SE, [se('a', '1'), se('c', '1')]);
        const keys = store.list('ServiceEntry').map((o) => o.metadata.name);
        assert.deepEqual(keys.sort(), ['a', 'c']);
        assert.deepEqual(worker.state.counts(SE.url), { valid: 2, invalid: 0 });
      } finally {
        await worker.close();
      }
    });
  }

  it('answers every response once, in the order they came; an older one of a type URL is superseded', async () => {
    const urls = subscribedTypeUrls('v1');
    const worker = new WorkerPath(protos, recordingStore().store, urls);
    const DR = typeUrlFor('DestinationRule', 'v1');
    try {
      // Posted in one turn: the worker reads them after they all came, newest of each type URL.
      for (let i = 0; i < 6; i++) worker.post(i % 2 === 0 ? SE : DR, [se(`s${i}`, '1')]);
      worker.post('networking.istio.io/v1/Unknown', []);
      await worker.until(7);
      assert.deepEqual(worker.failures, []);
      const ids = worker.said.map(({ m }) => m.id);
      assert.deepEqual(
        ids,
        [...ids].sort((x, y) => x - y),
        'in order',
      );
      assert.deepEqual(new Set(ids).size, 7, 'each once');
      const read = worker.said.filter(({ m }) => m.type === 'read').map(({ m }) => m.id);
      assert.ok(
        read.includes(5) && read.includes(6) && read.includes(7),
        'the newest of each type URL is read',
      );
      for (const { m } of worker.said) if (m.id < 5) assert.equal(m.type, 'superseded');
      assert.deepEqual(worker.state.counts(SE.url), { valid: 1, invalid: 0 });
    } finally {
      await worker.close();
    }
  });
});
