// The ZooKeeper watcher against a real ZooKeeper 3.8 server: providers registered and removed as a Dubbo provider
// does, application-level instances, a malformed node, session expiry through a cut relay, a server restart.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type zookeeper from 'node-zookeeper-client';
import type { RegistrySpec } from '../../../src/model/registry-bridge.ts';
import { ZooKeeperWatcher } from '../../../src/registry/zookeeper/watcher.ts';
import {
  connect,
  createNode,
  encodeNode,
  registerProvider,
  removeNode,
  setData,
} from '../../support/dubbo-zookeeper.ts';
import { TcpRelay } from '../../support/tcp-relay.ts';
import { ZooKeeperServer } from '../../support/zookeeper-server.ts';
import { repoRoot, waitFor } from '../../e2e/support.ts';
import { start } from '../../support/process.ts';
import { endpoints, Recorder } from '../watcher-recorder.ts';

function spec(root: string, servers: string[], params: Record<string, string> = {}): RegistrySpec {
  return {
    name: 'zk',
    type: 'zookeeper',
    servers,
    root,
    params,
    namespace: undefined,
    allow: [],
    deny: [],
    keepStaleWhenEmpty: false,
    debounceMs: 500,
  };
}

const FAST = { initialMs: 50, maxMs: 500 };

describe('ZooKeeperWatcher against a real ZooKeeper', () => {
  let server: ZooKeeperServer;
  let provider: zookeeper.Client;
  const watchers: ZooKeeperWatcher[] = [];

  function watch(root: string, servers = [server.address], params: Record<string, string> = {}) {
    const rec = new Recorder();
    const watcher = new ZooKeeperWatcher(spec(root, servers, params), { logger: rec.logger, backoff: FAST });
    watchers.push(watcher);
    watcher.start(rec.onChange);
    return { rec, watcher };
  }

  before(async () => {
    server = await ZooKeeperServer.start();
    provider = await connect(server.address);
  });

  after(async () => {
    await Promise.all(watchers.map((w) => w.stop()));
    provider?.close();
    await server?.stop();
  });

  it('reads interfaces and providers, skips config/mapping/metadata, warns about a malformed node by path', async () => {
    const root = '/dubbo-read';
    await registerProvider(provider, root, {
      iface: 'org.demo.Greeter',
      ip: '10.0.0.1',
      port: 20880,
      version: '1.0.0',
    });
    await registerProvider(provider, root, {
      iface: 'org.demo.Greeter',
      ip: '10.0.0.2',
      port: 20880,
      version: '2.0.0',
    });
    await registerProvider(provider, root, {
      iface: 'org.demo.Echo',
      ip: '10.0.0.3',
      port: 20881,
      group: 'g1',
    });
    await createNode(provider, `${root}/org.demo.Echo/providers/not-a-url`);
    await createNode(provider, `${root}/config/dubbo/providers/x`, '', false);
    await createNode(provider, `${root}/metadata/org.demo.Greeter/providers/x`, '', false);

    const { rec, watcher } = watch(root);
    await rec.next('synced', 0, 'first full read');
    assert.deepEqual(watcher.services(), ['org.demo.Echo', 'org.demo.Greeter']);
    assert.deepEqual(endpoints(watcher, 'org.demo.Greeter'), [
      '10.0.0.1:20880@1.0.0',
      '10.0.0.2:20880@2.0.0',
    ]);
    const [echo] = watcher.providers('org.demo.Echo');
    assert.equal(echo?.group, 'g1');
    assert.equal(echo?.level, 'interface');
    assert.equal(echo?.params['methods'], 'sayHello,sayGoodbye');
    assert.match(echo?.origin ?? '', /^\/dubbo-read\/org\.demo\.Echo\/providers\/dubbo%3A%2F%2F10\.0\.0\.3/);
    assert.deepEqual(
      rec.warnings.map((w) => [w.message, w.fields['origin']]),
      [['skipping malformed Dubbo provider URL', `${root}/org.demo.Echo/providers/not-a-url`]],
    );
    assert.deepEqual(rec.changes.map((c) => c.type).slice(0, 1), ['connected']);
    assert.deepEqual(watcher.status(), { connected: true, synced: true });
  });

  it('reports providers added and removed, a new interface, and the last provider leaving', async () => {
    const root = '/dubbo-live';
    const first = await registerProvider(provider, root, {
      iface: 'org.demo.A',
      ip: '10.1.0.1',
      port: 20880,
    });
    const { rec, watcher } = watch(root);
    const synced = await rec.next('synced', 0, 'first read');

    const second = await registerProvider(provider, root, {
      iface: 'org.demo.A',
      ip: '10.1.0.2',
      port: 20880,
    });
    await waitFor(() => watcher.providers('org.demo.A').length === 2, 'second provider of A');
    assert.deepEqual(rec.keysSince(synced), ['org.demo.A']);

    const mark = rec.changes.length;
    await registerProvider(provider, root, {
      iface: 'org.demo.B',
      ip: '10.1.0.3',
      port: 20990,
      version: '3',
    });
    await waitFor(() => watcher.services().includes('org.demo.B'), 'interface B appears');
    assert.deepEqual(endpoints(watcher, 'org.demo.B'), ['10.1.0.3:20990@3']);
    assert.deepEqual(rec.keysSince(mark), ['org.demo.B']);

    await removeNode(provider, first);
    await waitFor(() => watcher.providers('org.demo.A').length === 1, 'first provider of A leaves');
    await removeNode(provider, second);
    await waitFor(() => !watcher.services().includes('org.demo.A'), 'the last provider of A leaves');
    assert.deepEqual(watcher.providers('org.demo.A'), []);
    assert.equal(rec.indexOf('disconnected'), -1);
  });

  it('reads application-level instances under /services and follows their changes', async () => {
    const instance = (ip: string, version: string) =>
      JSON.stringify({
        name: 'shop',
        id: `${ip}:20880`,
        address: ip,
        port: 20880,
        payload: {
          '@class': 'ZookeeperInstance',
          id: `${ip}:20880`,
          name: 'shop',
          metadata: { version, zone: 'a' },
        },
      });
    await createNode(provider, '/services/shop/10.2.0.1:20880', instance('10.2.0.1', '1.0'));
    await createNode(provider, '/services/broken/x', '{not json');
    const { rec, watcher } = watch('/dubbo-apps');
    await rec.next('synced', 0, 'first read');
    assert.deepEqual(watcher.services(), ['shop']);
    const [shop] = watcher.providers('shop');
    assert.equal(shop?.level, 'application');
    assert.deepEqual(shop?.params, { version: '1.0', zone: 'a' });
    assert.deepEqual(
      rec.warnings.map((w) => w.fields['origin']),
      ['/services/broken/x'],
    );

    await setData(provider, '/services/shop/10.2.0.1:20880', instance('10.2.0.1', '1.1'));
    await waitFor(() => endpoints(watcher, 'shop')[0] === '10.2.0.1:20880@1.1', 'instance data change');
    const added = await createNode(provider, '/services/shop/10.2.0.2:20880', instance('10.2.0.2', '1.1'));
    await waitFor(() => watcher.providers('shop').length === 2, 'second instance');
    await removeNode(provider, added);
    await waitFor(() => watcher.providers('shop').length === 1, 'second instance leaves');
    await removeNode(provider, '/services/shop/10.2.0.1:20880');
    await waitFor(() => !watcher.services().includes('shop'), 'last instance leaves');
    await createNode(provider, '/services/shop/10.2.0.3:20880', instance('10.2.0.3', '2.0'));
    await waitFor(
      () => endpoints(watcher, 'shop')[0] === '10.2.0.3:20880@2.0',
      'an instance of an emptied app',
    );
  });

  it('after a session expiry (relay cut longer than the session) reports disconnected, re-reads, then synced', async () => {
    const root = '/dubbo-expiry';
    const keep = await registerProvider(provider, root, { iface: 'org.demo.E', ip: '10.3.0.1', port: 20880 });
    const leaving = await registerProvider(provider, root, {
      iface: 'org.demo.E',
      ip: '10.3.0.2',
      port: 20880,
    });
    const relay = new TcpRelay('127.0.0.1', server.port);
    await relay.start();
    try {
      const { rec, watcher } = watch(root, [`127.0.0.1:${relay.port}`], { session: '1000' });
      const first = await rec.next('synced', 0, 'first read');

      relay.cut();
      const down = await rec.next('disconnected', first, 'relay cut');
      assert.equal(watcher.status().synced, false);
      await removeNode(provider, leaving);
      await registerProvider(provider, root, { iface: 'org.demo.E', ip: '10.3.0.3', port: 20880 });
      await registerProvider(provider, root, { iface: 'org.demo.F', ip: '10.3.0.4', port: 20880 });
      // Stale, not emptied, while the registry is unreachable.
      assert.deepEqual(endpoints(watcher, 'org.demo.E'), ['10.3.0.1:20880@', '10.3.0.2:20880@']);
      await new Promise((r) => setTimeout(r, 2500)); // longer than the 1 s session: the server expires it
      relay.restore();

      const resynced = await rec.next('synced', down, 'full re-read in the new session');
      assert.ok(
        rec.changes.some((c) => c.type === 'disconnected' && c.error === 'ZooKeeper session expired'),
        'the expiry is reported',
      );
      assert.deepEqual(endpoints(watcher, 'org.demo.E'), ['10.3.0.1:20880@', '10.3.0.3:20880@']);
      assert.deepEqual(endpoints(watcher, 'org.demo.F'), ['10.3.0.4:20880@']);
      assert.deepEqual(rec.keysSince(down), ['org.demo.E', 'org.demo.F']);
      assert.ok(
        rec.changes.slice(down, resynced).some((c) => c.type === 'services'),
        'changes come before synced',
      );

      // The new session's watches work.
      await removeNode(provider, keep);
      await waitFor(() => endpoints(watcher, 'org.demo.E').length === 1, 'change after the new session');
    } finally {
      await relay.stop();
    }
  });

  it('reports an unreachable server as disconnected, then reads everything once it is reachable', async () => {
    const root = '/dubbo-late';
    await registerProvider(provider, root, { iface: 'org.demo.L', ip: '10.3.1.1', port: 20880 });
    const relay = new TcpRelay('127.0.0.1', server.port);
    await relay.start();
    try {
      relay.cut();
      const { rec, watcher } = watch(root, [`127.0.0.1:${relay.port}`], { session: '1000' });
      const down = await rec.next('disconnected', 0, 'nothing reachable');
      assert.deepEqual(rec.changes[down], {
        type: 'disconnected',
        error: `cannot connect to ZooKeeper 127.0.0.1:${relay.port}`,
      });
      assert.equal(watcher.status().synced, false);
      assert.deepEqual(watcher.services(), []);
      relay.restore();
      await rec.next('synced', down, 'first read once reachable');
      assert.deepEqual(endpoints(watcher, 'org.demo.L'), ['10.3.1.1:20880@']);
      assert.equal(watcher.status().connected, true);
      assert.equal(watcher.status().lastError, `cannot connect to ZooKeeper 127.0.0.1:${relay.port}`, 'kept');
    } finally {
      await relay.stop();
    }
  });

  it('sees the providers of examples/registry/register-provider.ts, and sees them go when it is killed', async () => {
    const root = '/dubbo-example';
    const { rec, watcher } = watch(root);
    await rec.next('synced', 0, 'first read');
    const script = start(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(repoRoot, 'examples/registry/register-provider.ts'),
        ...[
          '--zk',
          server.address,
          '--root',
          root,
          '--interface',
          'org.demo.Ex',
          '--interface',
          'org.demo.Ey',
        ],
        ...['--versions', '1.0.0,2.0.0', '--ips', '10.9.0.1,10.9.0.2', '--port', '20881'],
      ],
      60_000,
      process.env,
      repoRoot,
    );
    try {
      await script.waitFor('registered 8 provider(s)', 30_000);
      // Each interface's children are watched on their own: both must be in before anything is asserted.
      await waitFor(
        () => watcher.providers('org.demo.Ex').length === 4 && watcher.providers('org.demo.Ey').length === 4,
        'the script providers',
      );
      assert.deepEqual(endpoints(watcher, 'org.demo.Ex'), [
        '10.9.0.1:20881@1.0.0',
        '10.9.0.1:20881@2.0.0',
        '10.9.0.2:20881@1.0.0',
        '10.9.0.2:20881@2.0.0',
      ]);
      script.child.kill('SIGTERM');
      await script.exited;
      await waitFor(
        () => watcher.providers('org.demo.Ex').length + watcher.providers('org.demo.Ey').length === 0,
        'the providers go with the script',
      );
    } finally {
      script.kill();
    }
  });

  it('survives a server restart: disconnected, then synced with the same providers, and watches again', async () => {
    const root = '/dubbo-restart';
    const node = `${root}/org.demo.R/providers/${encodeNode('dubbo://10.4.0.1:20880/org.demo.R?side=provider')}`;
    await createNode(provider, node, '', false);
    // A short session: a client that reconnected while the server was starting may wait forever, and the
    // watcher replaces it after a session timeout.
    const { rec, watcher } = watch(root, [server.address], { session: '2000' });
    const first = await rec.next('synced', 0, 'first read');

    await server.restart();
    provider.close(); // the same can happen to this client
    provider = await connect(server.address);
    const down = await rec.next('disconnected', first, 'server killed');
    await rec.next('synced', down, 'read after the restart');
    assert.deepEqual(endpoints(watcher, 'org.demo.R'), ['10.4.0.1:20880@']);

    await createNode(
      provider,
      `${root}/org.demo.R/providers/${encodeNode('dubbo://10.4.0.2:20880/org.demo.R')}`,
    );
    await waitFor(() => watcher.providers('org.demo.R').length === 2, 'a provider added after the restart');
  });
});
