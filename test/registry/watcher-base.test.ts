// What the ZooKeeper and etcd watchers share, without a server: the provider table, and a client that refuses
// its configuration.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DubboProvider, RegistrySpec } from '../../src/model/registry-bridge.ts';
import { EtcdWatcher } from '../../src/registry/etcd/watcher.ts';
import { ProviderTable } from '../../src/registry/provider-table.ts';
import { dubboRoot } from '../../src/registry/watcher-base.ts';
import { ZooKeeperWatcher } from '../../src/registry/zookeeper/watcher.ts';
import { Recorder } from './watcher-recorder.ts';

function provider(service: string, address: string, origin: string): DubboProvider {
  return { service, level: 'interface', group: '', version: '', address, port: 20880, params: {}, origin };
}

function spec(type: 'zookeeper' | 'etcd', root: string, servers: string[] = []): RegistrySpec {
  return {
    name: 'r',
    type,
    servers,
    root,
    params: {},
    namespace: undefined,
    allow: [],
    deny: [],
    keepStaleWhenEmpty: false,
    debounceMs: 500,
  };
}

describe('ProviderTable', () => {
  it('reports a change only when a key’s providers change, merges sources, and forgets empty keys', () => {
    const t = new ProviderTable();
    const a = provider('a.S', '10.0.0.1', '/p/1');
    const b = provider('a.S', '10.0.0.2', '/p/2');
    assert.equal(t.replace('a.S', '/dubbo/a.S/providers', [b, a]), true);
    assert.equal(t.replace('a.S', '/dubbo/a.S/providers', [a, { ...b }]), false, 'same set, other order');
    assert.equal(t.replace('a.S', '/services/x/i', [provider('a.S', '10.0.0.3', '/q')]), true);
    assert.deepEqual(
      t.providers('a.S').map((p) => p.origin),
      ['/p/1', '/p/2', '/q'],
    );
    assert.equal(
      t.replace('a.S', '/dubbo/a.S/providers', [{ ...a, params: { weight: '2' } }]),
      true,
      'a param',
    );
    assert.equal(t.replace('a.S', '/dubbo/a.S/providers', []), true);
    assert.equal(t.replace('a.S', '/services/x/i', []), true);
    assert.deepEqual(t.keys(), []);
    assert.deepEqual(t.providers('a.S'), []);
    assert.equal(t.replace('b.S', '/nothing', []), false);
  });
});

describe('dubboRoot', () => {
  for (const [root, want] of [
    ['', '/dubbo'],
    ['/dubbo', '/dubbo'],
    ['/dubbo/', '/dubbo'],
    ['/', '/'],
    ['custom', '/custom'],
  ] as const) {
    it(`${JSON.stringify(root)} -> ${want}`, () => assert.equal(dubboRoot(spec('zookeeper', root)), want));
  }
});

describe('a watcher whose client refuses its configuration', () => {
  for (const Watcher of [ZooKeeperWatcher, EtcdWatcher]) {
    it(`${Watcher.name}: start does not throw; the status says why`, async () => {
      const rec = new Recorder();
      const w = new Watcher(spec(Watcher === EtcdWatcher ? 'etcd' : 'zookeeper', '/dubbo'), {
        logger: rec.logger,
      });
      w.start(rec.onChange);
      assert.equal(w.status().connected, false);
      assert.equal(w.status().synced, false);
      assert.match(w.status().lastError ?? '', /^cannot open the (zookeeper|etcd) client: /);
      assert.deepEqual(w.services(), []);
      await w.stop();
    });
  }
});
