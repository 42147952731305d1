import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, describe, it } from 'node:test';
import { silentLogger } from '../../src/util/logger.ts';
import { AddressError, parseListenAddress } from '../../src/util/address.ts';
import { AdminServer, type AdminServerOptions } from '../../src/ops/admin-server.ts';
import { AerakiMetrics } from '../../src/ops/metrics.ts';

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

function call(port: number, path: string, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString(),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const servers: AdminServer[] = [];
async function start(
  options: Partial<AdminServerOptions> = {},
): Promise<{ server: AdminServer; port: number }> {
  const server = new AdminServer({
    address: { host: '127.0.0.1', port: 0 },
    logger: silentLogger,
    ...options,
  });
  servers.push(server);
  const { port } = await server.start();
  assert.ok(port > 0);
  return { server, port };
}

after(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

describe('ops/admin-server', () => {
  it('/healthz answers 200 while serving, 503 when live() is false', async () => {
    let live = true;
    const { port } = await start({ live: () => live });
    const ok = await call(port, '/healthz');
    assert.equal(ok.status, 200);
    assert.equal(ok.body, 'ok\n');
    live = false;
    assert.equal((await call(port, '/healthz')).status, 503);
  });

  it('/readyz is 200 iff every check passes and names the failing ones', async () => {
    let synced = false;
    const { server, port } = await start({
      readiness: {
        'sources-synced': () => (synced ? true : { ready: false, reason: 'mcp: waiting for ServiceEntry' }),
        'rds-listening': () => true,
      },
    });
    let r = await call(port, '/readyz');
    assert.equal(r.status, 503);
    assert.match(String(r.headers['content-type']), /^application\/json/);
    const body = JSON.parse(r.body);
    assert.equal(body.ready, false);
    assert.deepEqual(body.failing, ['sources-synced']);
    assert.deepEqual(body.checks, [
      { name: 'rds-listening', ready: true },
      { name: 'sources-synced', ready: false, reason: 'mcp: waiting for ServiceEntry' },
    ]);

    synced = true;
    r = await call(port, '/readyz');
    assert.equal(r.status, 200);
    assert.equal(JSON.parse(r.body).ready, true);

    const remove = server.addReadinessCheck('async-one', () => Promise.reject(new Error('lease unreadable')));
    r = await call(port, '/readyz');
    assert.equal(r.status, 503);
    assert.deepEqual(JSON.parse(r.body).checks[0], {
      name: 'async-one',
      ready: false,
      reason: 'lease unreadable',
    });
    remove();
    assert.equal((await call(port, '/readyz')).status, 200);

    server.beginShutdown();
    r = await call(port, '/readyz');
    assert.equal(r.status, 503);
    assert.deepEqual(JSON.parse(r.body).failing, ['shutdown']);
    assert.equal((await call(port, '/healthz')).status, 200);
  });

  it('a check that never answers fails after the timeout', async () => {
    const { port } = await start({
      checkTimeoutMs: 20,
      readiness: { hang: () => new Promise<boolean>(() => {}) },
    });
    const r = await call(port, '/readyz');
    assert.equal(r.status, 503);
    assert.match(JSON.parse(r.body).checks[0].reason, /no answer within 20 ms/);
  });

  it('/metrics serves the Prometheus text of the registry', async () => {
    const metrics = new AerakiMetrics({ defaultMetrics: false });
    metrics.reconcileRuns.inc({ result: 'success' });
    const { port } = await start({ metrics });
    const r = await call(port, '/metrics');
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    assert.match(r.body, /^aeraki_reconcile_runs_total\{result="success"\} 1$/m);
  });

  it('/debug/* serve JSON from injected (async) providers; a throwing provider gives 500', async () => {
    const { server, port } = await start({
      debug: {
        config: () => ({ serviceEntries: 2 }),
        envoyfilters: () => Promise.resolve({ desired: [], diff: { creates: [] } }),
        routes: () => {
          throw new Error('snapshot not built yet');
        },
      },
    });
    const c = await call(port, '/debug/config?pretty=1');
    assert.equal(c.status, 200);
    assert.deepEqual(JSON.parse(c.body), { serviceEntries: 2 });
    assert.deepEqual(JSON.parse((await call(port, '/debug/envoyfilters')).body), {
      desired: [],
      diff: { creates: [] },
    });
    const failed = await call(port, '/debug/routes');
    assert.equal(failed.status, 500);
    assert.deepEqual(JSON.parse(failed.body), { error: 'snapshot not built yet' });

    server.setDebugProvider('routes', () => Promise.reject(new Error('rejected')));
    assert.equal((await call(port, '/debug/routes')).status, 500);
    server.setDebugProvider('routes', () => {
      const cyclic: Record<string, unknown> = {};
      cyclic['self'] = cyclic;
      return cyclic;
    });
    const cyc = await call(port, '/debug/routes');
    assert.equal(cyc.status, 500);
    assert.match(JSON.parse(cyc.body).error, /circular/i);
    // still serving after all of that
    assert.equal((await call(port, '/healthz')).status, 200);
  });

  it('404 for unknown paths and missing providers, 405 for other methods, HEAD without a body', async () => {
    const { port } = await start();
    assert.equal((await call(port, '/nope')).status, 404);
    assert.equal((await call(port, '/debug/secrets')).status, 404);
    assert.equal((await call(port, '/debug/config')).status, 404);
    assert.equal((await call(port, '/metrics')).status, 404);
    const post = await call(port, '/healthz', 'POST');
    assert.equal(post.status, 405);
    assert.equal(post.headers['allow'], 'GET, HEAD');
    assert.equal((await call(port, '/readyz', 'DELETE')).status, 405);
    const head = await call(port, '/healthz', 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
  });

  it('stop() closes kept-alive connections and frees the port; a busy port rejects start()', async () => {
    const server = new AdminServer({ address: { host: '127.0.0.1', port: 0 }, logger: silentLogger });
    const { port } = await server.start();
    const busy = new AdminServer({ address: { host: '127.0.0.1', port }, logger: silentLogger });
    await assert.rejects(busy.start(), /cannot listen on 127\.0\.0\.1:\d+/);
    const res = await fetch(`http://127.0.0.1:${port}/healthz`); // keep-alive agent
    assert.equal(res.status, 200);
    await res.text();
    await server.stop();
    await assert.rejects(fetch(`http://127.0.0.1:${port}/healthz`));
    await server.stop(); // idempotent
  });
});

describe('util/address', () => {
  it('parses host:port forms', () => {
    assert.deepEqual(parseListenAddress('0.0.0.0:8080'), { host: '0.0.0.0', port: 8080 });
    assert.deepEqual(parseListenAddress(':8080'), { host: '', port: 8080 });
    assert.deepEqual(parseListenAddress('[::1]:0'), { host: '::1', port: 0 });
    assert.deepEqual(parseListenAddress('localhost:15010'), { host: 'localhost', port: 15010 });
  });

  it('refuses bad addresses with a message naming the text and the expected form', () => {
    assert.throws(() => parseListenAddress('localhost'), /invalid address "localhost": missing port/);
    for (const bad of [
      '8080',
      'host:',
      'host:65536',
      'host:-1',
      '::1:80',
      '[::1]80',
      'a b:80',
      '[host]:80',
    ]) {
      assert.throws(() => parseListenAddress(bad), AddressError, bad);
    }
  });
});
