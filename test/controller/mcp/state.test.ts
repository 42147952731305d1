import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadMcpProtos, MCP_RESOURCE_TYPE_URL } from '../../../src/controller/mcp/protos.ts';
import { McpState, type McpStoreSink, type RejectedObject } from '../../../src/controller/mcp/state.ts';
import { peekResourceName } from '../../../src/controller/mcp/resource-decode.ts';
import { ConfigStore, type KeyChange } from '../../../src/controller/store.ts';
import { subscribedTypeUrls, typeUrlFor } from '../../../src/controller/mcp/type-urls.ts';
import type { ConfigKind, ConfigObject } from '../../../src/model/objects.ts';
import { parseConfigObject } from '../../../src/model/parse/parse.ts';
import { encodeResource, GARBAGE, type AnyBytes } from '../../fakes/istiod/encode.ts';
import { serviceEntry } from '../../support/builders.ts';

const protos = loadMcpProtos();
const V1 = typeUrlFor('ServiceEntry', 'v1');
const V1A3 = typeUrlFor('ServiceEntry', 'v1alpha3');

/** Holds what the state writes, as the store would hold it (names sorted; the kind last written). */
class Recorder implements McpStoreSink {
  private readonly held = new Map<string, Map<string, string>>();
  private readonly rejections = new Map<string, Map<string, string>>();
  private lastKind: ConfigKind | undefined;
  replaceKind(kind: ConfigKind, objects: readonly ConfigObject[], rejected: readonly RejectedObject[]): void {
    this.held.set(kind, new Map(objects.map((o) => [keyOf(o.metadata), label(o)])));
    this.rejections.set(kind, new Map(rejected.map((r) => [keyOf(r.ref), keyOf(r.ref)])));
    this.lastKind = kind;
  }
  applyKindChanges(kind: ConfigKind, changes: readonly KeyChange[]): void {
    const held = this.held.get(kind) ?? new Map<string, string>();
    const rejections = this.rejections.get(kind) ?? new Map<string, string>();
    for (const c of changes) {
      const key =
        c.type === 'valid'
          ? keyOf(c.object.metadata)
          : c.type === 'rejected'
            ? keyOf(c.rejection.ref)
            : keyOf(c);
      rejections.delete(key);
      if (c.type === 'valid') held.set(key, label(c.object));
      else if (c.type === 'rejected') rejections.set(key, key);
      else held.delete(key);
    }
    this.held.set(kind, held);
    this.rejections.set(kind, rejections);
    this.lastKind = kind;
  }
  releases(): number {
    return 0;
  }
  get last(): { kind: ConfigKind; names: string[]; rejected: string[] } | undefined {
    const kind = this.lastKind;
    if (kind === undefined) return undefined;
    const names = [...(this.held.get(kind)?.values() ?? [])].sort();
    return { kind, names, rejected: [...(this.rejections.get(kind)?.values() ?? [])].sort() };
  }
}

function keyOf(m: { namespace: string; name: string }): string {
  return `${m.namespace}/${m.name}`;
}

function label(o: ConfigObject): string {
  return `${o.apiVersion.split('/')[1] ?? ''}:${keyOf(o.metadata)}`;
}

function res(name: string, version: string, host = `${name}.example.com`): AnyBytes {
  return encodeResource(protos, {
    kind: 'ServiceEntry',
    namespace: 'ns',
    name,
    version,
    spec: { hosts: [host], ports: [{ number: 80, name: 'tcp-dubbo' }] },
  });
}

describe('McpState', () => {
  it('unions v1 and v1alpha3; v1 wins a shared name; an empty answer of one URL deletes nothing', () => {
    const sink = new Recorder();
    const state = new McpState(protos, sink, parseConfigObject, '', subscribedTypeUrls('auto'));
    state.applyResponse(V1A3, [res('a', '1'), res('b', '1')]);
    assert.deepEqual(sink.last?.names, ['v1alpha3:ns/a', 'v1alpha3:ns/b']);
    state.applyResponse(V1, [res('b', '7'), res('c', '1')]);
    assert.deepEqual(sink.last?.names, ['v1:ns/b', 'v1:ns/c', 'v1alpha3:ns/a']);
    state.applyResponse(V1, []);
    assert.deepEqual(sink.last?.names, ['v1alpha3:ns/a', 'v1alpha3:ns/b']);
    state.applyResponse(V1A3, []);
    assert.deepEqual(sink.last?.names, []);
  });

  it('reuses the parsed object of an unchanged resourceVersion or of unchanged bytes', () => {
    let parses = 0;
    const counting = (raw: unknown) => (parses++, parseConfigObject(raw));
    const state = new McpState(protos, new Recorder(), counting, '', [V1]);
    state.applyResponse(V1, [res('a', '1'), res('synthetic-b', '')]);
    state.applyResponse(V1, [res('a', '1'), res('synthetic-b', '')]);
    assert.equal(parses, 2, 'same version, same bytes: nothing parsed again');
    state.applyResponse(V1, [res('a', '2'), res('synthetic-b', '', 'moved.example.com')]);
    assert.equal(parses, 4, 'a new version and new bytes under an empty version are parsed');
  });

  it('hands the store the very objects it held when a response repeats their bytes', () => {
    const store = new ConfigStore({ rootNamespace: 'istio-system' });
    const state = new McpState(protos, store, parseConfigObject, '', [V1]);
    state.applyResponse(V1, [res('a', ''), res('b', '')]);
    const [a, b] = store.list('ServiceEntry');
    state.applyResponse(V1, [res('a', ''), res('b', '', 'moved.example.com')]);
    assert.equal(store.get('ServiceEntry', 'ns', 'a'), a, 'a: the same object');
    const moved = store.get('ServiceEntry', 'ns', 'b');
    assert.notEqual(moved, b, 'b: decoded again');
    assert.deepEqual(moved?.spec, { ...b?.spec, hosts: ['moved.example.com'] });
  });

  it('peeks the name of an encoded Resource without decoding it; undefined for unreadable bytes', () => {
    assert.equal(peekResourceName(res('a', '1').value), 'ns/a');
    assert.equal(peekResourceName(new Uint8Array()), '');
    assert.equal(peekResourceName(GARBAGE), undefined);
  });

  it('keeps an object whose new body is undecodable, and deletes nothing after a nameless undecodable one', () => {
    const sink = new Recorder();
    const state = new McpState(protos, sink, parseConfigObject, '', [V1]);
    state.applyResponse(V1, [res('a', '1'), res('b', '1')]);
    const badBody = encodeResource(protos, {
      kind: 'ServiceEntry',
      namespace: 'ns',
      name: 'a',
      version: '2',
      spec: {},
    });
    const r = protos.Resource.decode(badBody.value) as unknown as { body: { value: Uint8Array } };
    r.body.value = GARBAGE;
    const a2 = { type_url: MCP_RESOURCE_TYPE_URL, value: protos.Resource.encode(r).finish() };
    let out = state.applyResponse(V1, [a2]);
    assert.deepEqual(sink.last?.names, ['v1:ns/a'], 'a kept at its previous version, b deleted');
    assert.equal(out.undecodable, 1);
    assert.equal(out.partial, false);
    out = state.applyResponse(V1, [{ type_url: MCP_RESOURCE_TYPE_URL, value: GARBAGE }, res('c', '1')]);
    assert.equal(out.partial, true);
    assert.deepEqual(sink.last?.names, ['v1:ns/a', 'v1:ns/c'], 'partial answer: added c, deleted nothing');
  });

  it('passes invalid objects as rejections and skips bad names and other revisions', () => {
    const sink = new Recorder();
    const state = new McpState(protos, sink, parseConfigObject, 'canary', [V1]);
    const invalid = encodeResource(protos, {
      kind: 'ServiceEntry',
      namespace: 'ns',
      name: 'bad',
      spec: { ports: [{ number: 1 }] },
    });
    const other = encodeResource(protos, {
      kind: 'ServiceEntry',
      namespace: 'ns',
      name: 'stable',
      labels: { 'istio.io/rev': 'stable' },
      spec: { hosts: ['x'] },
    });
    const mine = encodeResource(protos, {
      kind: 'ServiceEntry',
      namespace: 'ns',
      name: 'mine',
      labels: { 'istio.io/rev': 'canary' },
      spec: { hosts: ['x'] },
    });
    const noNs = protos.Resource.decode(res('x', '1').value) as unknown as { metadata: { name: string } };
    noNs.metadata.name = 'no-namespace';
    const out = state.applyResponse(V1, [
      invalid,
      other,
      mine,
      { type_url: MCP_RESOURCE_TYPE_URL, value: protos.Resource.encode(noNs).finish() },
    ]);
    assert.deepEqual(sink.last, { kind: 'ServiceEntry', names: ['v1:ns/mine'], rejected: ['ns/bad'] });
    assert.equal(out.skipped, 2);
    assert.equal(out.badNames.length, 1);
    assert.deepEqual(state.counts(V1.url), { valid: 1, invalid: 1 });
  });
});

describe('McpState: last known good', () => {
  const DR = typeUrlFor('DestinationRule', 'v1');
  const dr = (subsetName: string) =>
    encodeResource(protos, {
      kind: 'DestinationRule',
      namespace: 'ns',
      name: 'dr',
      version: subsetName === '' ? '2' : '1',
      spec: { host: 'svc', subsets: [{ name: subsetName, labels: { version: 'v1' } }] },
    });

  it('an invalid DestinationRule keeps its valid version in the store; without one it holds its host', () => {
    const store = new ConfigStore({ rootNamespace: 'istio-system' });
    const state = new McpState(protos, store, parseConfigObject, '', [DR]);
    state.applyResponse(DR, [dr('v1')]);
    const valid = store.get('DestinationRule', 'ns', 'dr');
    assert.equal(valid?.spec.subsets[0]?.name, 'v1');
    state.applyResponse(DR, [dr('')]);
    assert.equal(store.get('DestinationRule', 'ns', 'dr'), valid, 'the valid version is kept');
    assert.deepEqual(
      store.rejected().map((r) => r.ref.name),
      ['dr'],
    );
    assert.deepEqual(store.heldHosts(), []);

    const restarted = new ConfigStore({ rootNamespace: 'istio-system' });
    new McpState(protos, restarted, parseConfigObject, '', [DR]).applyResponse(DR, [dr('')]);
    assert.deepEqual(
      restarted.heldHosts().map((h) => h.host),
      ['svc.ns.svc.cluster.local'],
    );
    state.applyResponse(DR, []);
    assert.equal(store.get('DestinationRule', 'ns', 'dr'), undefined, 'deleted at the source: gone');
  });
});

describe('McpState: writes what changed', () => {
  /** A ConfigStore that records how it is written to. */
  function tracked(): { store: ConfigStore; writes: string[]; sink: McpStoreSink } {
    const store = new ConfigStore({ rootNamespace: 'istio-system' });
    const writes: string[] = [];
    const sink: McpStoreSink = {
      replaceKind: (kind, objects, rejected) => {
        writes.push(`full ${objects.length + rejected.length}`);
        store.replaceKind(kind, objects, rejected);
      },
      applyKindChanges: (kind, changes) => {
        writes.push(`keyed ${changes.map((c) => c.type).join(',')}`);
        store.applyKindChanges(kind, changes);
      },
      releases: (kind) => store.releases(kind),
    };
    return { store, writes, sink };
  }

  it('writes the first answer in full, then only the keys whose union entry changed', () => {
    const { store, writes, sink } = tracked();
    const state = new McpState(protos, sink, parseConfigObject, '', subscribedTypeUrls('auto'));
    state.applyResponse(V1, [res('a', '1'), res('b', '1'), res('c', '1')]);
    state.applyResponse(V1, [res('a', '1'), res('b', '1'), res('c', '1')]);
    state.applyResponse(V1, [res('a', '2', 'moved.example.com'), res('c', '1'), res('d', '1')]);
    // v1 holds b no longer, v1alpha3 gives it back; its c is shadowed by v1's: nothing to write for that.
    state.applyResponse(V1A3, [res('b', '5'), res('c', '9')]);
    assert.deepEqual(writes, ['full 3', 'keyed absent,valid,valid', 'keyed valid']);
    state.applyResponse(V1A3, [res('b', '5'), res('c', '10')]);
    state.applyResponse(V1, [res('a', '2', 'moved.example.com'), res('d', '1')]);
    assert.deepEqual(writes.slice(3), ['keyed valid'], 'c falls back to its v1alpha3 version');
    assert.deepEqual(
      store
        .list('ServiceEntry')
        .map((o) => `${o.apiVersion} ${o.metadata.name} ${o.metadata.resourceVersion}`),
      [
        'networking.istio.io/v1 a 2',
        'networking.istio.io/v1alpha3 b 5',
        'networking.istio.io/v1alpha3 c 10',
        'networking.istio.io/v1 d 1',
      ],
    );
    assert.deepEqual(state.counts(V1.url), { valid: 2, invalid: 0 });
    assert.deepEqual(state.counts(V1A3.url), { valid: 2, invalid: 0 });
  });

  it('writes the kind in full after a new stream, a released owned key, or a store write that threw', () => {
    const { store, writes, sink } = tracked();
    const state = new McpState(protos, sink, parseConfigObject, '', [V1]);
    const answer = [res('a', '1'), res('reg', '1')];
    state.applyResponse(V1, answer);
    state.resync();
    state.applyResponse(V1, answer);
    assert.deepEqual(writes, ['full 2', 'full 2']);

    // A registry bridge owns reg, then removes it: only a full write brings back the version istiod serves.
    store.applyOwned('registry', [serviceEntry('ns', 'reg', { hosts: ['reg.example'] })], []);
    store.applyOwned('registry', [], [{ kind: 'ServiceEntry', namespace: 'ns', name: 'reg' }]);
    state.applyResponse(V1, answer);
    assert.equal(store.get('ServiceEntry', 'ns', 'reg')?.spec.hosts[0], 'reg.example.com');
    assert.deepEqual(writes.slice(2), ['full 2']);

    let failing = true;
    store.subscribe((e) => {
      if (failing && e.type === 'added') throw new Error(`listener failed on ${e.name}`);
    });
    assert.throws(() => state.applyResponse(V1, [...answer, res('b', '1'), res('c', '1')]), /failed on b/);
    assert.equal(store.get('ServiceEntry', 'ns', 'c'), undefined, 'the write stopped midway');
    failing = false;
    state.applyResponse(V1, [...answer, res('b', '1'), res('c', '1')]);
    assert.equal(store.get('ServiceEntry', 'ns', 'c')?.metadata.name, 'c', 'written in full: c too');
    assert.deepEqual(writes.slice(3), ['keyed valid,valid', 'full 4']);
  });
});
