import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigStore } from '../../src/controller/store.ts';
import { DEFAULT_MESH_CONFIG } from '../../src/model/mesh.ts';
import type { ApplicationProtocol } from '../../src/model/objects.ts';
import {
  destinationRule,
  dubboAuthorizationPolicy,
  gateway,
  meta,
  metaRouter,
  recordingStore,
  serviceEntry,
  virtualService,
} from '../support/builders.ts';
import { POLICIES_BY_NAMESPACE } from '../../src/plugins/dubbo/context.ts';
import { kindIndex } from '../../src/model/kinds.ts';

function appProtocol(
  name: string,
  protocol: string,
  codec: string,
  ts = '2026-01-01T00:00:00Z',
): ApplicationProtocol {
  return {
    apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
    kind: 'ApplicationProtocol',
    metadata: meta('', name, { creationTimestamp: ts }),
    spec: { protocol, codec },
  };
}

describe('ConfigStore', () => {
  it('lists by namespace then name (code-unit order), get by namespace/name', () => {
    const { store } = recordingStore();
    for (const [ns, name] of [
      ['b', 'x'],
      ['a-b', 'z'],
      ['a', 'y'],
      ['a', 'b'],
    ] as const) {
      store.upsert(serviceEntry(ns, name, {}));
    }
    assert.deepEqual(
      store.serviceEntries().map((s) => `${s.metadata.namespace}/${s.metadata.name}`),
      ['a/b', 'a/y', 'a-b/z', 'b/x'],
    );
    assert.equal(store.get('ServiceEntry', 'a', 'y')?.metadata.name, 'y');
    assert.equal(store.get('ServiceEntry', 'a', 'nope'), undefined);
    assert.equal(store.list('VirtualService').length, 0);
  });

  it('emits added / updated (with old) / deleted, synchronously; nothing for an identical upsert', () => {
    const { store, events } = recordingStore();
    const v1 = serviceEntry('ns', 'se', { hosts: ['a.example.com'] });
    const v1copy = serviceEntry('ns', 'se', { hosts: ['a.example.com'] });
    const v2 = serviceEntry('ns', 'se', { hosts: ['b.example.com'] });
    assert.equal(store.upsert(v1), true);
    assert.equal(events.length, 1, 'synchronous');
    assert.equal(store.upsert(v1copy), false);
    assert.equal(store.upsert(v2), true);
    assert.equal(store.delete('ServiceEntry', 'ns', 'se'), true);
    assert.equal(store.delete('ServiceEntry', 'ns', 'se'), false);
    assert.deepEqual(events, [
      { type: 'added', kind: 'ServiceEntry', namespace: 'ns', name: 'se', object: v1 },
      { type: 'updated', kind: 'ServiceEntry', namespace: 'ns', name: 'se', old: v1, object: v2 },
      { type: 'deleted', kind: 'ServiceEntry', namespace: 'ns', name: 'se', old: v2 },
    ]);
  });

  it('a new resourceVersion with the same content (a status write seen by the watch) is no change', () => {
    const { store, events } = recordingStore();
    const at = (rv: string, hosts = ['a.example.com']) => {
      const m = metaRouter('ns', 'r', { hosts });
      return { ...m, metadata: { ...m.metadata, resourceVersion: rv } };
    };
    const v1 = at('10');
    assert.equal(store.upsert(v1), true);
    assert.equal(store.upsert(at('11')), false, 'only the version moved');
    assert.equal(store.get('MetaRouter', 'ns', 'r'), v1, 'the stored object keeps its last content change');
    const v3 = at('12', ['b.example.com']);
    assert.equal(store.upsert(v3), true);
    assert.deepEqual(
      events.map((e) => {
        const o = e.object && 'metadata' in e.object ? e.object : undefined;
        return `${e.type} ${o?.metadata.resourceVersion ?? ''}`;
      }),
      ['added 10', 'updated 12'],
    );
  });

  it('unsubscribe stops events', () => {
    const store = new ConfigStore({ rootNamespace: 'istio-system' });
    let n = 0;
    const off = store.subscribe(() => n++);
    store.upsert(serviceEntry('ns', 'a', {}));
    off();
    store.upsert(serviceEntry('ns', 'b', {}));
    assert.equal(n, 1);
  });

  it('replaceKind deletes absent objects and emits only real changes', () => {
    const { store, events } = recordingStore();
    const a = serviceEntry('ns', 'a', {});
    const b = serviceEntry('ns', 'b', {});
    const b2 = serviceEntry('ns', 'b', { hosts: ['b2'] });
    const c = serviceEntry('ns', 'c', {});
    store.upsert(a);
    store.upsert(b);
    store.upsert(virtualService('ns', 'vs', {}));
    events.length = 0;
    store.replaceKind('ServiceEntry', [b2, c]);
    assert.deepEqual(
      events.map((e) => `${e.type} ${e.name}`),
      ['deleted a', 'updated b', 'added c'],
    );
    assert.equal(store.list('VirtualService').length, 1, 'other kinds untouched');
    events.length = 0;
    store.replaceKind('ServiceEntry', [
      serviceEntry('ns', 'b', { hosts: ['b2'] }),
      serviceEntry('ns', 'c', {}),
    ]);
    assert.deepEqual(events, [], 'equal copies change nothing');
  });

  it('applyOwned: a source of its own keeps its keys against every other source until it removes them', () => {
    const { store, events } = recordingStore();
    const mine = serviceEntry('ns', 'reg', { hosts: ['reg.example'] });
    const echo = serviceEntry('ns', 'reg', { hosts: ['stale.example'] });
    store.upsert(echo); // seen first through another source: taken over
    store.applyOwned('registry/zk', [mine], []);
    assert.equal(store.get('ServiceEntry', 'ns', 'reg'), mine);
    events.length = 0;
    assert.equal(store.upsert(echo), false);
    assert.equal(store.delete('ServiceEntry', 'ns', 'reg'), false);
    store.reject({ kind: 'ServiceEntry', namespace: 'ns', name: 'reg' }, []);
    store.replaceKind('ServiceEntry', [serviceEntry('ns', 'other', {})]);
    assert.deepEqual(
      events.map((e) => `${e.type} ${e.name}`),
      ['added other'],
    );
    assert.equal(store.get('ServiceEntry', 'ns', 'reg'), mine);
    assert.deepEqual(store.rejected(), []);
    // Another owned source cannot take the key either.
    store.applyOwned('registry/nacos', [echo], [{ kind: 'ServiceEntry', namespace: 'ns', name: 'reg' }]);
    assert.equal(store.get('ServiceEntry', 'ns', 'reg'), mine);
    // Removed by its owner: gone, and free for the others again.
    store.applyOwned('registry/zk', [], [{ kind: 'ServiceEntry', namespace: 'ns', name: 'reg' }]);
    assert.equal(store.get('ServiceEntry', 'ns', 'reg'), undefined);
    assert.equal(store.upsert(echo), true);
  });

  it('indexes hosts after FQDN normalisation (D6) and keeps them current on update and delete', () => {
    const { store } = recordingStore();
    store.upsert(virtualService('shop', 'vs', { hosts: ['catalog'] }));
    store.upsert(destinationRule('shop', 'dr', { host: 'catalog.shop.svc.cluster.local' }));
    store.upsert(metaRouter('other', 'mr', { hosts: ['catalog'] }));
    const vs = (host: string, ns: string) => store.configForHost(host, ns).virtualService?.metadata.name;
    const mr = (host: string, ns: string) => store.configForHost(host, ns).metaRouter?.metadata.name;
    assert.equal(vs('catalog.shop.svc.cluster.local', 'shop'), 'vs');
    assert.equal(vs('catalog', 'shop'), 'vs');
    assert.equal(vs('catalog', 'other'), undefined);
    assert.equal(store.configForHost('catalog', 'shop').destinationRule?.metadata.name, 'dr');
    assert.equal(mr('catalog.shop.svc.cluster.local', 'shop'), undefined);
    assert.equal(mr('catalog.other.svc.cluster.local', 'shop'), 'mr');
    store.upsert(virtualService('shop', 'vs', { hosts: ['web'] }));
    assert.equal(vs('catalog', 'shop'), undefined);
    assert.equal(vs('web', 'shop'), 'vs');
    store.delete('VirtualService', 'shop', 'vs');
    assert.equal(vs('web', 'shop'), undefined);
  });

  it('configForHost finds the VirtualService, DestinationRule and MetaRouter of a host, through updates and deletes', () => {
    const { store } = recordingStore();
    const found = (host: string, ns: string) => {
      const c = store.configForHost(host, ns);
      return [c.virtualService, c.destinationRule, c.metaRouter].map((o) => o?.metadata.name);
    };
    const old = { creationTimestamp: '2024-01-01T00:00:00Z' };
    store.upsert(virtualService('shop', 'vs', { hosts: ['catalog', 'catalog.shop.svc.cluster.local'] }));
    store.upsert(destinationRule('shop', 'dr', { host: 'catalog' }));
    store.upsert(metaRouter('other', 'mr', { hosts: ['catalog.shop.svc.cluster.local'] }));
    store.upsert(metaRouter('z', 'mr-old', { hosts: ['catalog.shop.svc.cluster.local'] }, old));
    assert.deepEqual(found('catalog', 'shop'), ['vs', 'dr', 'mr-old'], 'D6: the oldest MetaRouter');
    assert.deepEqual(
      found('catalog', 'other'),
      [undefined, undefined, undefined],
      'nothing in another namespace for a short name',
    );
    store.delete('MetaRouter', 'z', 'mr-old');
    assert.deepEqual(found('catalog', 'shop'), ['vs', 'dr', 'mr']);
    store.upsert(destinationRule('shop', 'dr', { host: 'web' }));
    assert.deepEqual(found('catalog', 'shop'), ['vs', undefined, 'mr'], 'after the DestinationRule moved');
    assert.deepEqual(found('web', 'shop'), [undefined, 'dr', undefined], 'the moved DestinationRule');
    store.delete('VirtualService', 'shop', 'vs');
    store.delete('MetaRouter', 'other', 'mr');
    assert.deepEqual(store.configForHost('catalog', 'shop'), {
      virtualService: undefined,
      destinationRule: undefined,
      metaRouter: undefined,
    });
  });

  it('D6 tie-break: oldest creationTimestamp, then namespace/name; unknown timestamps last', () => {
    const { store } = recordingStore();
    const host = 'svc.example.com';
    store.upsert(metaRouter('b', 'newer', { hosts: [host] }, { creationTimestamp: '2024-06-01T00:00:00Z' }));
    store.upsert(metaRouter('z', 'none', { hosts: [host] }, { creationTimestamp: '' }));
    store.upsert(metaRouter('b', 'older', { hosts: [host] }, { creationTimestamp: '2024-01-15T08:30:00Z' }));
    assert.equal(store.configForHost(host, 'x').metaRouter?.metadata.name, 'older');
    store.upsert(
      metaRouter('a', 'same-age', { hosts: [host] }, { creationTimestamp: '2024-01-15T08:30:00Z' }),
    );
    assert.equal(
      store.configForHost(host, 'x').metaRouter?.metadata.name,
      'same-age',
      'namespace/name breaks ties',
    );
    store.delete('MetaRouter', 'a', 'same-age');
    store.delete('MetaRouter', 'b', 'older');
    store.delete('MetaRouter', 'b', 'newer');
    assert.equal(store.configForHost(host, 'x').metaRouter?.metadata.name, 'none');
  });

  it('finds MetaRouters bound to a gateway (bare names qualified with the MetaRouter namespace)', () => {
    const { store } = recordingStore();
    store.upsert(metaRouter('apps', 'b', { gateways: ['istio-system/ingress'] }));
    store.upsert(metaRouter('istio-system', 'a', { gateways: ['ingress'] }));
    store.upsert(metaRouter('apps', 'c', { gateways: ['ingress'] }));
    store.upsert(gateway('istio-system', 'ingress', {}));
    assert.deepEqual(
      store
        .metaRoutersForGateway('istio-system', 'ingress')
        .map((m) => `${m.metadata.namespace}/${m.metadata.name}`),
      ['apps/b', 'istio-system/a'],
    );
    assert.deepEqual(
      store.metaRoutersForGateway('apps', 'ingress').map((m) => m.metadata.name),
      ['c'],
    );
    assert.equal(store.gateways().length, 1);
  });

  it('codecs: built in for dubbo and thrift, registered by ApplicationProtocols, unregistered on delete', () => {
    const { store } = recordingStore();
    assert.equal(store.codecFor('dubbo'), 'aeraki.meta_protocol.codec.dubbo');
    assert.equal(store.codecFor('thrift'), 'aeraki.meta_protocol.codec.thrift');
    assert.equal(store.codecFor('trpc'), undefined);
    store.upsert(appProtocol('trpc', 'trpc', 'codec.trpc'));
    assert.equal(store.codecFor('trpc'), 'codec.trpc');
    assert.equal(store.codecFor('TRPC'), undefined, 'exact case');
    assert.equal(store.codecFor('constructor'), undefined);
    store.upsert(appProtocol('trpc', 'trpc', 'codec.trpc.v2'));
    assert.equal(store.codecFor('trpc'), 'codec.trpc.v2');
    assert.equal(store.applicationProtocols().length, 1);
    store.delete('ApplicationProtocol', '', 'trpc');
    assert.equal(store.codecFor('trpc'), undefined);
  });

  it('builds a lookup index on first use over the objects stored, then keeps it and names its keys', () => {
    const store = new ConfigStore({ rootNamespace: 'istio-system' });
    store.upsert(serviceEntry('ns', 'b', { hosts: ['x.example', 'y.example'] }));
    store.upsert(serviceEntry('ns', 'a', { hosts: ['x.example'] }));
    const a = store.get('ServiceEntry', 'ns', 'a');
    assert.ok(a);
    assert.deepEqual(store.indexKeysOf(a), [], 'no index asked for yet');
    const byHost = kindIndex({ name: 'test/by-host', kind: 'ServiceEntry', keysOf: (o) => o.spec.hosts });
    const names = (host: string) => store.indexed(byHost, host).map((o) => o.metadata.name);
    assert.deepEqual(names('x.example'), ['a', 'b']);
    assert.deepEqual(names('y.example'), ['b']);
    store.upsert(serviceEntry('ns', 'a', { hosts: ['y.example'] }));
    store.delete('ServiceEntry', 'ns', 'b');
    assert.deepEqual(names('x.example'), []);
    assert.deepEqual(names('y.example'), ['a']);
    const now = store.get('ServiceEntry', 'ns', 'a');
    assert.ok(now);
    assert.deepEqual(store.indexKeysOf(now), [['test/by-host', 'y.example']]);
  });

  it('indexes DubboAuthorizationPolicies by namespace (by name within it), through updates and deletes', () => {
    const { store, events } = recordingStore();
    const names = (ns: string) => store.indexed(POLICIES_BY_NAMESPACE, ns).map((p) => p.metadata.name);
    assert.deepEqual(names('rpc'), []);
    store.upsert(dubboAuthorizationPolicy('rpc', 'b', {}));
    store.upsert(dubboAuthorizationPolicy('rpc', 'a', {}));
    store.upsert(dubboAuthorizationPolicy('web', 'c', {}));
    assert.deepEqual(names('rpc'), ['a', 'b']);
    assert.deepEqual(names('web'), ['c']);
    store.upsert(dubboAuthorizationPolicy('rpc', 'a', { action: 'DENY' }));
    assert.deepEqual(
      store.indexed(POLICIES_BY_NAMESPACE, 'rpc').map((p) => `${p.metadata.name}:${p.spec.action}`),
      ['a:DENY', 'b:ALLOW'],
    );
    store.delete('DubboAuthorizationPolicy', 'rpc', 'b');
    assert.deepEqual(names('rpc'), ['a']);
    assert.deepEqual(
      events.map((e) => `${e.type} ${e.kind} ${e.namespace}/${e.name}`),
      [
        'added DubboAuthorizationPolicy rpc/b',
        'added DubboAuthorizationPolicy rpc/a',
        'added DubboAuthorizationPolicy web/c',
        'updated DubboAuthorizationPolicy rpc/a',
        'deleted DubboAuthorizationPolicy rpc/b',
      ],
    );
  });

  it('setMesh emits a MeshConfig update only when it changed', () => {
    const { store, events } = recordingStore();
    assert.deepEqual(store.mesh(), DEFAULT_MESH_CONFIG);
    store.setMesh({ ...DEFAULT_MESH_CONFIG });
    assert.equal(events.length, 0);
    const next = { ...DEFAULT_MESH_CONFIG, accessLogFile: '/dev/stdout' };
    store.setMesh(next);
    assert.deepEqual(events, [
      {
        type: 'updated',
        kind: 'MeshConfig',
        namespace: 'istio-system',
        name: 'istio',
        old: DEFAULT_MESH_CONFIG,
        object: next,
      },
    ]);
    assert.equal(store.mesh(), next);
  });

  it('records rejected objects until a valid upsert or a delete', () => {
    const { store, events } = recordingStore();
    const ref = { kind: 'ServiceEntry', namespace: 'ns', name: 'bad' };
    const issues = [{ ref, path: 'spec.hosts', message: 'expected a list' }];
    store.reject(ref, issues);
    store.reject({ kind: 'MetaRouter', namespace: 'a', name: 'm' }, []);
    assert.deepEqual(
      store.rejected().map((r) => r.ref.kind),
      ['MetaRouter', 'ServiceEntry'],
    );
    assert.deepEqual(events, [], 'rejections emit no events');
    store.upsert(serviceEntry('ns', 'bad', {}));
    assert.deepEqual(
      store.rejected().map((r) => r.ref.kind),
      ['MetaRouter'],
    );
    store.delete('MetaRouter', 'a', 'm');
    assert.deepEqual(store.rejected(), []);
    store.reject(ref, issues);
    store.replaceKind('ServiceEntry', [], []);
    assert.deepEqual(store.rejected(), [], 'replaceKind with rejections replaces them');
  });

  it('list results are cached and stay valid across later changes', () => {
    const { store } = recordingStore();
    store.upsert(serviceEntry('ns', 'a', {}));
    const first = store.serviceEntries();
    assert.equal(store.serviceEntries(), first, 'cached');
    store.upsert(serviceEntry('ns', 'b', {}));
    assert.equal(first.length, 1);
    assert.equal(store.serviceEntries().length, 2);
  });
});
