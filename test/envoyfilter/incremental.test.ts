// Scoped regeneration (issue 18's deferred part, issue 22): a change to an object regenerates exactly the sources
// whose hosts it binds, or whose other inputs it is; a mesh config change regenerates everything; the output
// stays the full desired set (generateAll's).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateAll } from '../../src/envoyfilter/generate-all.ts';
import { IncrementalGenerator } from '../../src/envoyfilter/incremental.ts';
import { DEFAULT_MESH_CONFIG } from '../../src/model/mesh.ts';
import { createGenerators } from '../../src/plugins/registry.ts';
import { stableStringify } from '../../src/util/json.ts';
import {
  destinationRule,
  dubboAuthorizationPolicy,
  metaRouter,
  serviceEntry,
  storeOf,
  virtualService,
} from '../support/builders.ts';

const host = (name: string, ns: string) => `${name}.${ns}.svc.cluster.local`;
const meta = (ns: string, name: string) =>
  serviceEntry(ns, name, {
    hosts: [host(name, ns)],
    addresses: ['240.240.0.1'],
    ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo' }],
  });
const dubbo = (ns: string, name: string) =>
  serviceEntry(
    ns,
    name,
    { hosts: [host(name, ns)], addresses: ['240.240.0.2'], ports: [{ number: 20881, name: 'tcp-dubbo' }] },
    { annotations: { interface: 'org.example.Api' } },
  );
const router = (subset: string) =>
  metaRouter('a', 'mr', {
    hosts: [host('s0', 'a')],
    routes: [
      {
        name: 'r',
        route: [{ destination: { host: host('s0', 'a'), subset } }],
        requestMutation: [],
        responseMutation: [],
      },
    ],
  });
const vs = (subset: string) =>
  virtualService('a', 'vs', {
    hosts: [host('s1', 'a')],
    tcp: [{ match: [], route: [{ destination: { host: host('s1', 'a'), subset } }] }],
  });

function world() {
  const store = storeOf([
    meta('a', 's0'),
    dubbo('a', 's1'),
    meta('b', 's2'),
    dubbo('b', 's3'),
    router('v1'),
    vs('v1'),
    destinationRule('b', 'dr', { host: 's2', subsets: [{ name: 'v1', labels: { version: 'v1' } }] }),
  ]);
  const generators = createGenerators();
  const options = { namespaceScope: false };
  const inc = new IncrementalGenerator(store, generators, options);
  const check = () => {
    const out = inc.update();
    assert.equal(
      stableStringify(out.objects),
      stableStringify(generateAll(store, generators, options).objects),
    );
    return inc.lastRegenerated();
  };
  return { store, inc, check };
}

describe('IncrementalGenerator', () => {
  it('generates every source first, then only those a change touches', () => {
    const { store, inc, check } = world();
    assert.deepEqual(check(), [
      'ServiceEntry/a/s0',
      'ServiceEntry/a/s1',
      'ServiceEntry/b/s2',
      'ServiceEntry/b/s3',
    ]);
    assert.deepEqual(check(), [], 'nothing changed');
    store.upsert(router('v2'));
    assert.deepEqual(check(), ['ServiceEntry/a/s0'], 'a MetaRouter: the service of its host');
    assert.ok(inc.lastChangedObjects().length > 0);
    assert.ok(inc.lastChangedObjects().every((k) => k.startsWith('EnvoyFilter istio-system/')));
    store.upsert(vs('v2'));
    assert.deepEqual(check(), ['ServiceEntry/a/s1'], 'a VirtualService: the service of its host');
    store.upsert(destinationRule('b', 'dr', { host: 's2', subsets: [] }));
    assert.deepEqual(check(), ['ServiceEntry/b/s2'], 'a DestinationRule: the service of its (short) host');
    store.upsert(dubboAuthorizationPolicy('b', 'deny', { action: 'DENY' }));
    assert.deepEqual(
      check(),
      ['ServiceEntry/b/s3'],
      'a Dubbo policy: the native Dubbo services of its namespace',
    );
    store.upsert(dubboAuthorizationPolicy('istio-system', 'mesh', { action: 'DENY' }));
    assert.deepEqual(
      check(),
      ['ServiceEntry/a/s1', 'ServiceEntry/b/s3'],
      'in the root namespace: all of them',
    );
    store.upsert(meta('b', 's2'));
    assert.deepEqual(check(), [], 'an identical object is no change');
    store.upsert(serviceEntry('b', 's2', { hosts: [host('s2', 'b')], ports: [] }));
    assert.deepEqual(check(), ['ServiceEntry/b/s2'], 'a ServiceEntry: itself');
    store.delete('ServiceEntry', 'a', 's0');
    assert.deepEqual(check(), [], 'a deletion regenerates nothing (its output goes)');
    store.setMesh({ ...DEFAULT_MESH_CONFIG, rootNamespace: 'istio-system', accessLogFile: '/dev/stdout' });
    assert.deepEqual(
      check(),
      ['ServiceEntry/a/s1', 'ServiceEntry/b/s2', 'ServiceEntry/b/s3'],
      'the mesh config: everything',
    );
  });

  it('regenerates a service whose host becomes held, and keeps its output out of the set', () => {
    const { store, inc, check } = world();
    check();
    // One of another namespace holds nothing (the ServiceEntry is looked at again, and rendered).
    store.reject({ kind: 'VirtualService', namespace: 'a', name: 'bad' }, [], [host('s2', 'b')]);
    check();
    assert.deepEqual([...inc.update().failedSources], []);
    store.delete('VirtualService', 'a', 'bad');
    check();
    const ref = { kind: 'VirtualService', namespace: 'b', name: 'bad' };
    store.reject(ref, [], [host('s2', 'b')]);
    assert.deepEqual(check(), ['ServiceEntry/b/s2']);
    assert.deepEqual([...inc.update().failedSources], ['ServiceEntry/b/s2']);
    store.delete('VirtualService', 'b', 'bad');
    assert.deepEqual(check(), ['ServiceEntry/b/s2'], 'released');
    assert.deepEqual([...inc.update().failedSources], []);
  });

  it('regenerates everything after reset', () => {
    const { inc, check } = world();
    check();
    inc.reset();
    assert.equal(check().length, 4);
  });

  it('names the sources an update changed, and materialises the full set only when it is read', () => {
    const { store, inc } = world();
    const first = inc.update();
    assert.equal(first.changes.from, -1, 'a full regeneration');
    assert.equal(first.changes.sources.length, 4);
    store.upsert(router('v2'));
    const out = inc.update();
    assert.equal(out.changes.from, first.changes.to);
    assert.deepEqual(out.changes.sources, ['ServiceEntry/a/s0']);
    const objects = out.changes.objectsOf('ServiceEntry/a/s0');
    assert.ok(objects.length > 0);
    for (const o of objects) {
      assert.equal(out.changes.get(o.kind, o.metadata.namespace, o.metadata.name), o);
      assert.ok(out.objects.includes(o));
    }
    assert.equal(out.objects, out.objects, 'materialised once');
    const unread = inc.update();
    inc.update();
    assert.throws(() => unread.objects, /after a later update/);
    assert.throws(() => unread.changes.objectsOf('ServiceEntry/a/s0'), /after a later update/);
  });
});
