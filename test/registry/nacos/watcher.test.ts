// The Nacos watcher against the fake Nacos: sync, change detection, paging, namespaces and groups, health flags,
// API choice, errors and recovery.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { FakeNacos } from '../../fakes/nacos/server.ts';
import { BACKOFF_MS, POLL_MS, startHarness, type Harness } from './harness.ts';

const DEMO = 'org.apache.dubbo.samples.DemoService';
const GREET = 'org.apache.dubbo.samples.GreetingService';
const DEMO_V1 = `providers:${DEMO}:1.0.0:`;
const DEMO_V2 = `providers:${DEMO}:2.0.0:blue`;

function registerDemo(fake: FakeNacos, ns = 'public', group = 'DEFAULT_GROUP'): void {
  fake.store.register(ns, group, DEMO_V1, {
    ip: '10.0.0.1',
    port: 20880,
    metadata: { side: 'provider', interface: DEMO, version: '1.0.0', application: 'demo' },
  });
  fake.store.register(ns, group, DEMO_V2, {
    ip: '10.0.0.2',
    port: 20880,
    metadata: { version: '2.0.0', group: 'blue' },
  });
  fake.store.register(ns, group, `consumers:${DEMO}:1.0.0:`, { ip: '10.9.9.9', port: 0 });
}

describe('NacosWatcher', () => {
  const harnesses: Harness[] = [];
  const start = async (...args: Parameters<typeof startHarness>) => {
    const h = await startHarness(...args);
    harnesses.push(h);
    return h;
  };
  after(async () => {
    for (const h of harnesses) await h.close();
  });

  it('syncs interface-level providers of every version and group, skipping consumers', async () => {
    const h = await start({}, {}, (f) => registerDemo(f));
    assert.deepEqual(await h.poll(), [
      { type: 'connected' },
      { type: 'services', keys: [DEMO] },
      { type: 'synced' },
    ]);
    assert.deepEqual(h.watcher.services(), [DEMO]);
    assert.deepEqual(
      h.watcher.providers(DEMO).map((p) => [p.address, p.port, p.level, p.version, p.group, p.origin]),
      [
        ['10.0.0.1', 20880, 'interface', '1.0.0', '', `nacos public/DEFAULT_GROUP/${DEMO_V1}`],
        ['10.0.0.2', 20880, 'interface', '2.0.0', 'blue', `nacos public/DEFAULT_GROUP/${DEMO_V2}`],
      ],
    );
    assert.equal(h.watcher.providers(DEMO)[0]!.params['application'], 'demo');
    assert.deepEqual(h.watcher.status(), { connected: true, synced: true });
    assert.equal(h.nextDelay(), POLL_MS);
    // v1 reads name the service in the grouped form, as the official clients do.
    assert.deepEqual(
      h.fake
        .requestsTo('/v1/ns/instance/list')
        .map((r) => r.query['serviceName'])
        .sort(),
      [`DEFAULT_GROUP@@${DEMO_V1}`, `DEFAULT_GROUP@@${DEMO_V2}`],
    );
    // Consumers are never read.
    assert.equal(h.fake.requests.filter((r) => r.query['serviceName']?.includes('consumers:')).length, 0);
  });

  it('reports only the services whose providers changed, and a service whose last provider left', async () => {
    const h = await start({}, {}, (f) => {
      registerDemo(f);
      f.store.register('public', 'DEFAULT_GROUP', `providers:${GREET}::`, { ip: '10.1.0.1', port: 20881 });
    });
    await h.poll();
    assert.deepEqual(await h.poll(), [], 'nothing changed');
    h.fake.store.register('public', 'DEFAULT_GROUP', `providers:${GREET}::`, { ip: '10.1.0.2', port: 20881 });
    assert.deepEqual(await h.poll(), [{ type: 'services', keys: [GREET] }]);
    assert.deepEqual(
      h.watcher.providers(GREET).map((p) => p.address),
      ['10.1.0.1', '10.1.0.2'],
    );
    // A metadata change is a change too.
    h.fake.store.patch('public', 'DEFAULT_GROUP', DEMO_V1, '10.0.0.1', {
      metadata: { version: '1.0.0', weight: '50' },
    });
    assert.deepEqual(await h.poll(), [{ type: 'services', keys: [DEMO] }]);
    h.fake.store.deregister('public', 'DEFAULT_GROUP', `providers:${GREET}::`, '10.1.0.1', 20881);
    h.fake.store.deregister('public', 'DEFAULT_GROUP', `providers:${GREET}::`, '10.1.0.2', 20881);
    assert.deepEqual(await h.poll(), [{ type: 'services', keys: [GREET] }]);
    assert.deepEqual(h.watcher.providers(GREET), []);
    assert.deepEqual(h.watcher.services(), [DEMO]);
  });

  it('leaves out unhealthy and disabled instances, and reports when one turns unhealthy', async () => {
    const h = await start({}, {}, (f) => {
      f.listDisabled = true;
      f.store.register('public', 'DEFAULT_GROUP', DEMO_V1, { ip: '10.0.0.1', port: 20880 });
      f.store.register('public', 'DEFAULT_GROUP', DEMO_V1, { ip: '10.0.0.2', port: 20880, healthy: false });
      f.store.register('public', 'DEFAULT_GROUP', DEMO_V1, { ip: '10.0.0.3', port: 20880, enabled: false });
    });
    await h.poll();
    assert.deepEqual(
      h.watcher.providers(DEMO).map((p) => p.address),
      ['10.0.0.1'],
    );
    h.fake.store.patch('public', 'DEFAULT_GROUP', DEMO_V1, '10.0.0.1', { healthy: false });
    assert.deepEqual(await h.poll(), [{ type: 'services', keys: [DEMO] }]);
    assert.deepEqual(h.watcher.providers(DEMO), []);
  });

  it('maps plain services whose instances carry Dubbo metadata to application level, others to nothing', async () => {
    const h = await start({}, {}, (f) => {
      f.store.register('public', 'DEFAULT_GROUP', 'shop-app', {
        ip: '10.2.0.1',
        port: 20880,
        metadata: { 'dubbo.metadata.revision': 'abc', 'dubbo.metadata.storage-type': 'local' },
      });
      f.store.register('public', 'DEFAULT_GROUP', 'web-frontend', { ip: '10.3.0.1', port: 8080 });
    });
    await h.poll();
    assert.deepEqual(h.watcher.services(), ['shop-app']);
    const [p] = h.watcher.providers('shop-app');
    assert.deepEqual(
      [p!.level, p!.service, p!.address, p!.params['dubbo.metadata.revision']],
      ['application', 'shop-app', '10.2.0.1', 'abc'],
    );
  });

  it('pages through the service list', async () => {
    const h = await start({ pageSize: '2' }, {}, (f) => {
      for (let i = 0; i < 5; i++)
        f.store.register('public', 'DEFAULT_GROUP', `providers:svc.S${i}:1.0.0:`, {
          ip: `10.4.0.${i + 1}`,
          port: 20880,
        });
    });
    await h.poll();
    assert.deepEqual(h.watcher.services(), ['svc.S0', 'svc.S1', 'svc.S2', 'svc.S3', 'svc.S4']);
    assert.deepEqual(
      h.fake.requestsTo('/v1/ns/service/list').map((r) => [r.query['pageNo'], r.query['pageSize']]),
      [
        ['1', '2'],
        ['2', '2'],
        ['3', '2'],
      ],
    );
  });

  it('reads only the namespaces and groups of the URL', async () => {
    const h = await start({ namespace: 'prod,dev', groups: 'DUBBO,RPC' }, {}, (f) => {
      f.store.register('prod', 'DUBBO', DEMO_V1, { ip: '10.5.0.1', port: 20880 });
      f.store.register('dev', 'RPC', DEMO_V1, { ip: '10.5.0.2', port: 20880 });
      f.store.register('prod', 'DEFAULT_GROUP', `providers:${GREET}::`, { ip: '10.5.0.3', port: 20880 });
      f.store.register('public', 'DUBBO', `providers:${GREET}::`, { ip: '10.5.0.4', port: 20880 });
    });
    await h.poll();
    assert.deepEqual(h.watcher.services(), [DEMO]);
    assert.deepEqual(
      h.watcher.providers(DEMO).map((p) => p.origin),
      [`nacos dev/RPC/${DEMO_V1}`, `nacos prod/DUBBO/${DEMO_V1}`],
    );
  });

  it('turns an error body into a disconnected error, backs off, never syncs on a partial read, and recovers', async () => {
    const h = await start({}, {}, (f) => registerDemo(f));
    await h.poll();
    // A 403 with a text body on the service list.
    h.fake.fail({ status: 403, body: 'user not found!', times: 1 });
    const down = await h.poll();
    assert.equal(down.length, 1);
    assert.equal(down[0]!.type, 'disconnected');
    const error = (down[0] as { error: string }).error;
    assert.match(error, /service\/list: HTTP 403: user not found!/);
    assert.deepEqual(h.watcher.status(), { connected: false, synced: false, lastError: error });
    assert.equal(h.nextDelay(), BACKOFF_MS);
    // A 500 with a JSON body on one instance list after the service list succeeded: the poll is discarded.
    h.fake.store.register('public', 'DEFAULT_GROUP', DEMO_V1, { ip: '10.0.0.9', port: 20880 });
    h.fake.fail({
      status: 500,
      contentType: 'application/json',
      body: JSON.stringify({ status: 500, error: 'Internal Server Error', message: 'distro not ready' }),
      match: (r) => r.query['serviceName']?.endsWith(DEMO_V2) === true,
      times: 1,
    });
    assert.deepEqual(await h.poll(), [], 'still down: no second disconnected, no services, no synced');
    assert.match(h.watcher.status().lastError ?? '', /HTTP 500: distro not ready: Internal Server Error/);
    assert.equal(h.nextDelay(), BACKOFF_MS * 1.5);
    assert.deepEqual(
      h.watcher.providers(DEMO).map((p) => p.address),
      ['10.0.0.1', '10.0.0.2'],
      'the last complete read stays',
    );
    // Recovery: connected, the changes since the last complete read, synced; the normal period again.
    assert.deepEqual(await h.poll(), [
      { type: 'connected' },
      { type: 'services', keys: [DEMO] },
      { type: 'synced' },
    ]);
    // Ordered by origin (the 1.0.0 service first), then address.
    assert.deepEqual(
      h.watcher.providers(DEMO).map((p) => p.address),
      ['10.0.0.1', '10.0.0.9', '10.0.0.2'],
    );
    assert.equal(h.nextDelay(), POLL_MS);
  });

  it('reports a dropped connection and a non-JSON answer as errors', async () => {
    const h = await start({}, {}, (f) => registerDemo(f));
    h.fake.fail({ status: 0, times: 1 });
    const [down] = await h.poll();
    assert.equal(down?.type, 'disconnected');
    h.fake.fail({ status: 200, body: '<html>proxy login</html>', times: 1 });
    await h.poll();
    assert.match(h.watcher.status().lastError ?? '', /not JSON: <html>proxy login<\/html>/);
    assert.deepEqual(
      (await h.poll()).map((c) => c.type),
      ['connected', 'services', 'synced'],
    );
  });

  it('uses the Nacos 3 API when the server offers it, probing once', async () => {
    const h = await start({}, { v1: false, v3: true }, (f) => {
      registerDemo(f);
      f.store.register('public', 'DEFAULT_GROUP', DEMO_V1, { ip: '10.0.0.3', port: 20880, healthy: false });
    });
    await h.poll();
    await h.poll();
    assert.deepEqual(
      h.watcher.providers(DEMO).map((p) => p.address),
      ['10.0.0.1', '10.0.0.2'],
    );
    assert.equal(h.fake.requests.filter((r) => r.path.includes('/v1/')).length, 0);
    // The probe (page size 1) happened once.
    assert.equal(
      h.fake.requestsTo('/v3/admin/ns/service/list').filter((r) => r.query['pageSize'] === '1').length,
      1,
    );
    assert.ok(h.fake.requestsTo('/v3/client/ns/instance/list').length >= 4);
  });

  it('falls back to v1 when the Nacos 3 API is not found, and reports a v3 error result', async () => {
    const v1 = await start({}, {}, (f) => registerDemo(f));
    await v1.poll();
    await v1.poll();
    assert.deepEqual(v1.watcher.services(), [DEMO]);
    assert.equal(v1.fake.requestsTo('/v3/admin/ns/service/list').length, 1);
    const v3 = await start({ api: 'v3' }, { v3: true }, (f) => registerDemo(f));
    v3.fake.fail({
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({ code: 30000, message: 'server error', data: 'naming not ready' }),
      times: 1,
    });
    const [down] = await v3.poll();
    assert.equal(down?.type, 'disconnected');
    assert.match((down as { error: string }).error, /code 30000: server error: naming not ready/);
  });

  it('reports nothing after stop', async () => {
    const h = await start({}, {}, (f) => registerDemo(f));
    await h.watcher.stop();
    h.clock.runAll();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(h.changes, []);
    assert.equal(h.fake.requests.length, 0);
  });
});

describe('NacosWatcher reads', () => {
  it('restarts a paged listing when the total moves between pages', async () => {
    const h = await startHarness({ pageSize: '2' }, {}, (f) => {
      for (let i = 0; i < 5; i++)
        f.store.register('public', 'DEFAULT_GROUP', `providers:svc.S${i}:1.0.0:`, {
          ip: '10.4.0.1',
          port: 20880,
        });
    });
    try {
      let added = false;
      h.fake.beforeAnswer = (r) => {
        if (added || r.query['pageNo'] !== '2') return;
        added = true;
        h.fake.store.register('public', 'DEFAULT_GROUP', 'providers:svc.A:1.0.0:', {
          ip: '10.4.0.9',
          port: 20880,
        });
      };
      await h.poll();
      assert.deepEqual(h.watcher.services(), ['svc.A', 'svc.S0', 'svc.S1', 'svc.S2', 'svc.S3', 'svc.S4']);
      assert.deepEqual(
        h.fake.requestsTo('/v1/ns/service/list').map((r) => r.query['pageNo']),
        ['1', '2', '1', '2', '3'],
      );
    } finally {
      await h.close();
    }
  });

  it('goes on to the next server of the URL when one refuses connections', async () => {
    const refusing = await new Promise<string>((resolve) => {
      const srv = createServer();
      srv.listen(0, '127.0.0.1', () => {
        const { port } = srv.address() as AddressInfo;
        srv.close(() => resolve(`127.0.0.1:${port}`));
      });
    });
    const h = await startHarness({ api: 'v1' }, {}, (f) => registerDemo(f), [refusing]);
    try {
      assert.deepEqual(
        (await h.poll()).map((c) => c.type),
        ['connected', 'services', 'synced'],
      );
      assert.deepEqual(h.watcher.services(), [DEMO]);
    } finally {
      await h.close();
    }
  });

  it('stops in the middle of a poll without reporting it', async () => {
    const h = await startHarness({}, {}, (f) =>
      f.store.register('public', 'DEFAULT_GROUP', `providers:${DEMO}::`, { ip: '10.0.0.1', port: 20880 }),
    );
    try {
      let stopping: Promise<void> | undefined;
      h.fake.beforeAnswer = () => {
        stopping ??= h.watcher.stop();
      };
      h.clock.advance(0);
      while (stopping === undefined) await new Promise((r) => setImmediate(r));
      await stopping;
      assert.deepEqual(h.changes, []);
      assert.equal(h.clock.pending(), 0, 'no further poll is scheduled');
      assert.deepEqual(h.watcher.services(), []);
    } finally {
      await h.close();
    }
  });
});

describe('NacosWatcher with Nacos auth', () => {
  const harnesses: Harness[] = [];
  after(async () => {
    for (const h of harnesses) await h.close();
  });
  const auth = { username: 'aeraki', password: 's3cret' };

  for (const api of ['v1', 'v3'] as const) {
    it(`logs in (${api}), sends the token, logs in again when it is refused or near its TTL`, async () => {
      const h = await startHarness(auth, { auth, v1: api === 'v1', v3: api === 'v3' }, (f) =>
        registerDemo(f),
      );
      harnesses.push(h);
      assert.deepEqual(
        (await h.poll()).map((c) => c.type),
        ['connected', 'services', 'synced'],
      );
      assert.equal(h.fake.auth?.logins, 1);
      const reads = h.fake.requests.filter((r) => r.method === 'GET');
      assert.ok(
        reads.length > 0 && reads.every((r) => r.query['accessToken']),
        'every read carries the token',
      );
      assert.ok(h.fake.requests.every((r) => !('password' in r.query) || r.path.includes('/auth/')));
      // Refused (expired on the server): this poll fails with the 403, the next logs in again.
      h.fake.auth.expireTokens();
      const [down] = await h.poll();
      assert.match((down as { error: string }).error, /HTTP 403: user not found!: Forbidden/);
      assert.deepEqual(
        (await h.poll()).map((c) => c.type),
        ['connected', 'synced'],
      );
      assert.equal(h.fake.auth?.logins, 2);
      // 80 % of the TTL later the token is renewed before use.
      h.clock.advance(h.fake.auth.tokenTtl * 800);
      await h.poll();
      assert.equal(h.fake.auth?.logins, 3);
    });
  }

  it('reports wrong credentials as a login error', async () => {
    const h = await startHarness({ username: 'aeraki', password: 'wrong' }, { auth }, (f) => registerDemo(f));
    harnesses.push(h);
    const [down] = await h.poll();
    assert.equal(down?.type, 'disconnected');
    assert.match((down as { error: string }).error, /login as aeraki failed: .*HTTP 403: unknown user!/);
    assert.doesNotMatch((down as { error: string }).error, /wrong/, 'the password is not in the message');
  });
});
