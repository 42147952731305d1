// The registry bridge (src/registry/bridge.ts) driven by an in-memory watcher on a manual clock.
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { DubboProvider } from '../../src/model/registry-bridge.ts';
import { RegistryBridge, type BridgeDelta } from '../../src/registry/bridge.ts';
import { parseRegistrySpec } from '../../src/registry/spec.ts';
import { RegistryVips } from '../../src/registry/vips.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { FakeRegistryWatcher, provider } from '../fakes/registry/fake-watcher.ts';
import { recordingLogger } from '../support/recording-logger.ts';

const A = 'org.example.A';
const B = 'org.example.B';

let clock: ManualClock;
let watcher: FakeRegistryWatcher;
let deltas: BridgeDelta[];

beforeEach(() => {
  clock = new ManualClock(0);
  watcher = new FakeRegistryWatcher('zk');
  deltas = [];
});

function bridge(
  query = '',
  extra: Partial<{
    namespaceExists: (ns: string) => boolean;
    vips: RegistryVips;
    logger: typeof silentLogger;
  }> = {},
): RegistryBridge {
  const spec = parseRegistrySpec(`zk=zookeeper://zk:2181/dubbo${query}`);
  if (!spec.ok) throw new Error('bad spec');
  const b = new RegistryBridge({
    spec: spec.value,
    watcher,
    rootNamespace: 'istio-system',
    vips: extra.vips ?? new RegistryVips(),
    clock,
    logger: extra.logger ?? silentLogger,
    ...(extra.namespaceExists ? { namespaceExists: extra.namespaceExists } : {}),
  });
  b.onChange((d) => deltas.push(d));
  b.start();
  return b;
}

async function settle(b: RegistryBridge, ms = 500): Promise<void> {
  clock.advance(ms);
  await b.idle();
}

const hosts = (b: RegistryBridge) => b.entries().map((e) => e.spec.hosts[0]);

describe('registry bridge', () => {
  it('recomputes after the debounce, at most 5 s after the first change of a burst', async () => {
    const b = bridge();
    await settle(b);
    watcher.set(A, [provider(A, '10.0.0.1')]);
    clock.advance(499);
    await Promise.resolve();
    assert.deepEqual(hosts(b), []);
    await settle(b, 1);
    assert.deepEqual(hosts(b), ['org.example.a']);
    // A change every 400 ms keeps the quiet period from ending; the 5 s ceiling still applies.
    let seenAt: number | undefined;
    b.onChange((d) => {
      if (d.upserted.some((e) => e.spec.hosts[0] === 'org.example.b')) seenAt ??= clock.now();
    });
    const firstChange = clock.now();
    for (let i = 0; i < 20; i++) {
      watcher.set(B, [provider(B, `10.0.1.${i + 1}`)]);
      clock.advance(400);
      await Promise.resolve();
    }
    assert.ok(seenAt !== undefined && seenAt <= firstChange + 5000, `first report at ${seenAt}`);
    await settle(b);
  });

  it('honours the debounce option', async () => {
    const b = bridge('?debounce=2s');
    watcher.set(A, [provider(A, '10.0.0.1')]);
    clock.advance(1999);
    await Promise.resolve();
    assert.deepEqual(hosts(b), []);
    await settle(b, 1);
    assert.deepEqual(hosts(b), ['org.example.a']);
  });

  it('re-reads only the services that changed', async () => {
    for (let i = 0; i < 200; i++) watcher.set(`svc.S${i}`, [provider(`svc.S${i}`, '10.0.0.1')], true);
    const b = bridge();
    watcher.sync();
    await settle(b);
    assert.equal(b.status().services, 200);
    const read: string[] = [];
    const original = watcher.providers.bind(watcher);
    watcher.providers = (key: string): readonly DubboProvider[] => {
      read.push(key);
      return original(key);
    };
    deltas = [];
    watcher.set('svc.S7', [provider('svc.S7', '10.0.0.1'), provider('svc.S7', '10.0.0.2')]);
    await settle(b);
    assert.deepEqual(read, ['svc.S7']);
    assert.equal(deltas.length, 1);
    assert.deepEqual(
      deltas[0]!.upserted.map((e) => e.metadata.name),
      ['zk-svc-s7'],
    );
    assert.equal(b.status().endpoints, 201);
  });

  it('reports nothing when a recompute changes nothing', async () => {
    const b = bridge();
    watcher.set(A, [provider(A, '10.0.0.1')]);
    await settle(b);
    deltas = [];
    watcher.set(A, [provider(A, '10.0.0.1')]);
    await settle(b);
    assert.deepEqual(deltas, []);
  });

  it('deletes nothing before the first sync', async () => {
    const b = bridge();
    watcher.set(A, [provider(A, '10.0.0.1')]);
    await settle(b);
    watcher.set(A, []);
    await settle(b);
    assert.deepEqual(hosts(b), ['org.example.a']);
    assert.equal(b.mayDelete(), false);
    watcher.sync(); // the full read no longer lists A
    await settle(b);
    assert.deepEqual(hosts(b), []);
    assert.deepEqual(deltas.at(-1)!.removed, [{ namespace: 'istio-system', name: 'zk-org-example-a' }]);
  });

  it('deletes nothing while disconnected, nor after a reconnect until the new session synced', async () => {
    watcher.set(A, [provider(A, '10.0.0.1')], true);
    watcher.set(B, [provider(B, '10.0.0.2')], true);
    const b = bridge();
    watcher.sync();
    await settle(b);
    assert.deepEqual(hosts(b), ['org.example.a', 'org.example.b']);

    watcher.disconnect('session expired');
    watcher.set(A, []); // reported while down (stale view)
    watcher.set(B, [], true); // gone unseen during the outage
    await settle(b);
    assert.deepEqual(hosts(b), ['org.example.a', 'org.example.b']);
    assert.equal(b.status().connected, false);
    assert.equal(b.status().lastError, 'session expired');
    assert.equal(b.status().syncErrors, 1);

    watcher.reconnect();
    watcher.set(A, []);
    await settle(b);
    assert.deepEqual(hosts(b), ['org.example.a', 'org.example.b']);

    watcher.sync();
    await settle(b);
    assert.deepEqual(hosts(b), []);
  });

  it('deletes a vanished service at once while connected and synced', async () => {
    const b = bridge();
    watcher.set(A, [provider(A, '10.0.0.1')], true);
    watcher.sync();
    await settle(b);
    watcher.set(A, []);
    await settle(b);
    assert.deepEqual(hosts(b), []);
    assert.equal(b.status().services, 0);
    assert.equal(b.status().endpoints, 0);
  });

  it('keeps the last entry of a service with no providers when keepStaleWhenEmpty is set', async () => {
    const b = bridge('?keepStaleWhenEmpty=true');
    watcher.set(A, [provider(A, '10.0.0.1')], true);
    watcher.sync();
    await settle(b);
    watcher.set(A, []);
    await settle(b);
    assert.deepEqual(
      b.entries()[0]!.spec.endpoints.map((e) => e.address),
      ['10.0.0.1'],
    );
    watcher.set(A, [provider(A, '10.0.0.5')]);
    await settle(b);
    assert.deepEqual(
      b.entries()[0]!.spec.endpoints.map((e) => e.address),
      ['10.0.0.5'],
    );
  });

  it('skips services the allow and deny lists exclude', async () => {
    const b = bridge('?allow=org.example.*&deny=*.B');
    watcher.set(A, [provider(A, '10.0.0.1')], true);
    watcher.set(B, [provider(B, '10.0.0.2')], true);
    watcher.set('com.other.C', [provider('com.other.C', '10.0.0.3')], true);
    watcher.sync();
    await settle(b);
    assert.deepEqual(hosts(b), ['org.example.a']);
  });

  it('holds back an entry whose namespace is missing, with a warning, until the namespace exists', async () => {
    const namespaces = new Set(['istio-system']);
    const logger = recordingLogger();
    const b = bridge('?targetNamespace=shop', { namespaceExists: (ns) => namespaces.has(ns), logger });
    watcher.set(A, [provider(A, '10.0.0.1')], true);
    watcher.sync();
    await settle(b);
    assert.deepEqual(hosts(b), []);
    assert.equal(b.status().skipped, 1);
    assert.ok(
      logger.records.some(
        (r) =>
          r.level === 'warn' &&
          /namespace does not exist/.test(r.message) &&
          r.fields['namespace'] === 'shop',
      ),
    );
    deltas = [];
    namespaces.add('shop');
    b.namespacesChanged();
    assert.deepEqual(hosts(b), ['org.example.a']);
    assert.equal(deltas[0]!.upserted[0]!.metadata.namespace, 'shop');
    assert.equal(b.status().services, 1);
    namespaces.delete('shop');
    b.namespacesChanged();
    assert.deepEqual(deltas.at(-1)!.removed, [{ namespace: 'shop', name: 'zk-org-example-a' }]);
    assert.equal(b.status().services, 0);
  });

  it('gives each host a VIP that survives a restart and stays while providers change', async () => {
    const b = bridge();
    watcher.set(A, [provider(A, '10.0.0.1')]);
    await settle(b);
    const vip = b.entries()[0]!.spec.addresses[0];
    assert.match(vip ?? '', /^241\./);
    watcher.set(A, [provider(A, '10.0.0.2')]);
    await settle(b);
    assert.equal(b.entries()[0]!.spec.addresses[0], vip);
    await b.stop();
    watcher = new FakeRegistryWatcher('zk');
    watcher.set(A, [provider(A, '10.0.0.3')], true);
    const again = bridge();
    await settle(again);
    assert.equal(again.entries()[0]!.spec.addresses[0], vip);
  });

  it('moves a service to the namespace its providers name, keeping its VIP', async () => {
    const vips = new RegistryVips();
    const b = bridge('', { vips });
    const ns = (n: string) => ({ params: { aeraki_meta_app_namespace: n } });
    watcher.set(A, [provider(A, '10.0.0.1', 20880, ns('shop'))], true);
    watcher.sync();
    await settle(b);
    const before = b.entries()[0]!;
    watcher.set(A, [provider(A, '10.0.0.1', 20880, ns('billing'))]);
    await settle(b);
    const after = b.entries();
    assert.deepEqual(
      after.map((e) => e.metadata.namespace),
      ['billing'],
    );
    assert.deepEqual(after[0]!.spec.addresses, before.spec.addresses);
    assert.deepEqual(deltas.at(-1)!.removed, [{ namespace: 'shop', name: before.metadata.name }]);
    assert.equal(vips.size, 1);
  });

  it('stops its watcher', async () => {
    const b = bridge();
    assert.equal(watcher.started, true);
    await b.stop();
    assert.equal(watcher.stopped, true);
  });
});
