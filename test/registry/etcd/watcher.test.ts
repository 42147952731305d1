// The etcd watcher against a real etcd server: keys written as Dubbo's etcd registry writes them (lease-bound,
// the value being the lease id) and with the URL as the value, application-level instances, a malformed key,
// compaction while the watch was down, a server restart.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Etcd3 } from 'etcd3';
import type { RegistrySpec } from '../../../src/model/registry-bridge.ts';
import { EtcdWatcher } from '../../../src/registry/etcd/watcher.ts';
import { encodeNode, providerUrl, type ProviderSpec } from '../../support/dubbo-zookeeper.ts';
import { EtcdServer } from '../../support/etcd-server.ts';
import { TcpRelay } from '../../support/tcp-relay.ts';
import { waitFor } from '../../e2e/support.ts';
import { endpoints, Recorder } from '../watcher-recorder.ts';

function spec(root: string, servers: string[]): RegistrySpec {
  return {
    name: 'etcd',
    type: 'etcd',
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

const providerKey = (root: string, p: ProviderSpec) =>
  `${root}/${p.iface}/providers/${encodeNode(providerUrl(p))}`;

describe('EtcdWatcher against a real etcd', () => {
  let server: EtcdServer;
  let etcd: Etcd3;
  const watchers: EtcdWatcher[] = [];

  function watch(root: string, servers = [server.address]) {
    const rec = new Recorder();
    const watcher = new EtcdWatcher(spec(root, servers), {
      logger: rec.logger,
      backoff: { initialMs: 50, maxMs: 500 },
    });
    watchers.push(watcher);
    watcher.start(rec.onChange);
    return { rec, watcher };
  }

  before(async () => {
    server = await EtcdServer.start();
    etcd = new Etcd3({ hosts: `http://${server.address}` });
  });

  after(async () => {
    await Promise.all(watchers.map((w) => w.stop()));
    etcd?.close();
    await server?.stop();
  });

  it('reads lease-bound keys, URL values, application instances; skips consumers and warns about a bad key', async () => {
    const root = '/dubbo-read';
    const lease = etcd.lease(30);
    const id = await lease.grant();
    const a1 = { iface: 'org.demo.A', ip: '10.5.0.1', port: 20880, version: '1' };
    await lease.put(providerKey(root, a1)).value(id);
    await etcd
      .put(`${root}/org.demo.B/providers/node-1`)
      .value(providerUrl({ iface: 'org.demo.B', ip: '10.5.0.2', port: 20881 }));
    await etcd.put(`${root}/org.demo.B/providers/garbage`).value('42');
    await etcd.put(`${root}/org.demo.B/consumers/${encodeNode('consumer://10.9.9.9/org.demo.B')}`).value('1');
    await etcd.put(`${root}/config/dubbo/providers/x`).value('1');
    await etcd
      .put('/services/shop/10.5.0.3:20880')
      .value(JSON.stringify({ host: '10.5.0.3', port: 20880, metadata: { version: '7' } }));

    const { rec, watcher } = watch(root);
    await rec.next('synced', 0, 'first read');
    assert.deepEqual(watcher.services(), ['org.demo.A', 'org.demo.B', 'shop']);
    assert.deepEqual(endpoints(watcher, 'org.demo.A'), ['10.5.0.1:20880@1']);
    assert.deepEqual(endpoints(watcher, 'org.demo.B'), ['10.5.0.2:20881@']);
    assert.deepEqual(endpoints(watcher, 'shop'), ['10.5.0.3:20880@7']);
    assert.equal(watcher.providers('shop')[0]?.level, 'application');
    assert.deepEqual(
      rec.warnings.map((w) => w.fields['origin']),
      [`${root}/org.demo.B/providers/garbage`],
    );

    // The lease ends (the provider's session is gone): its key goes, and so does the interface.
    const mark = rec.changes.length;
    await lease.revoke();
    await waitFor(() => !watcher.services().includes('org.demo.A'), 'the lease-bound provider leaves');
    assert.deepEqual(rec.keysSince(mark), ['org.demo.A']);
    await etcd.delete().key('/services/shop/10.5.0.3:20880');
    await waitFor(() => !watcher.services().includes('shop'), 'the instance leaves');
  });

  it('follows puts and deletes', async () => {
    const root = '/dubbo-live';
    const { rec, watcher } = watch(root);
    await rec.next('synced', 0, 'first read of an empty prefix');
    assert.deepEqual(watcher.services(), []);
    const c1 = { iface: 'org.demo.C', ip: '10.6.0.1', port: 20880 };
    const c2 = { iface: 'org.demo.C', ip: '10.6.0.2', port: 20880 };
    await etcd.put(providerKey(root, c1)).value('1');
    await etcd.put(providerKey(root, c2)).value('1');
    await waitFor(() => watcher.providers('org.demo.C').length === 2, 'two providers');
    await etcd.delete().key(providerKey(root, c1));
    await waitFor(() => watcher.providers('org.demo.C').length === 1, 'one left');
    assert.deepEqual(endpoints(watcher, 'org.demo.C'), ['10.6.0.2:20880@']);
  });

  it('after the watch was down across a compaction: disconnected, a full re-read, then synced', async () => {
    const root = '/dubbo-compact';
    const d1 = { iface: 'org.demo.D', ip: '10.7.0.1', port: 20880 };
    const d2 = { iface: 'org.demo.D', ip: '10.7.0.2', port: 20880 };
    const e1 = { iface: 'org.demo.E', ip: '10.7.0.3', port: 20880 };
    await etcd.put(providerKey(root, d1)).value('1');
    await etcd.put(providerKey(root, d2)).value('1');
    const relay = new TcpRelay('127.0.0.1', server.port);
    await relay.start();
    try {
      const { rec, watcher } = watch(root, [`127.0.0.1:${relay.port}`]);
      const first = await rec.next('synced', 0, 'first read');
      relay.cut();
      const down = await rec.next('disconnected', first, 'relay cut');
      await etcd.delete().key(providerKey(root, d2));
      await etcd.put(providerKey(root, e1)).value('1');
      const put = await etcd.put('/unrelated').value('x');
      await etcd.kv.compact({ revision: put.header.revision, physical: true });
      assert.deepEqual(
        endpoints(watcher, 'org.demo.D'),
        ['10.7.0.1:20880@', '10.7.0.2:20880@'],
        'stale while down',
      );
      relay.restore();

      await rec.next('synced', down, 'full re-read after reconnecting');
      assert.deepEqual(endpoints(watcher, 'org.demo.D'), ['10.7.0.1:20880@']);
      assert.deepEqual(endpoints(watcher, 'org.demo.E'), ['10.7.0.3:20880@']);
      assert.deepEqual(rec.keysSince(down), ['org.demo.D', 'org.demo.E']);

      // The new watch works.
      const resynced = rec.changes.length;
      await etcd.delete().key(providerKey(root, d1));
      await waitFor(
        () => rec.keysSince(resynced).includes('org.demo.D') && !watcher.services().includes('org.demo.D'),
        'a delete after the re-read',
      );
      assert.ok(
        rec.warnings.some((w) => w.message === 'etcd watch cancelled; reading the prefix again'),
        'the watch resumed from a compacted revision was cancelled by etcd and started anew',
      );
    } finally {
      await relay.stop();
    }
  });

  it('survives a server restart: disconnected, then synced with the same keys, and watches again', async () => {
    const root = '/dubbo-restart';
    const r1 = { iface: 'org.demo.R', ip: '10.8.0.1', port: 20880 };
    await etcd.put(providerKey(root, r1)).value('1');
    const { rec, watcher } = watch(root);
    const first = await rec.next('synced', 0, 'first read');
    await server.restart();
    const down = await rec.next('disconnected', first, 'server killed');
    await rec.next('synced', down, 'read after the restart');
    assert.deepEqual(endpoints(watcher, 'org.demo.R'), ['10.8.0.1:20880@']);
    await etcd.put(providerKey(root, { ...r1, ip: '10.8.0.2' })).value('1');
    await waitFor(() => watcher.providers('org.demo.R').length === 2, 'a provider added after the restart');
  });
});
