// The admin server's exposure and limits: which paths a listener serves (`paths`), no request bodies, slow and
// oversized clients dropped, no stack traces in error answers.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { after, describe, it } from 'node:test';
import { silentLogger } from '../../src/util/logger.ts';
import { AdminServer, type AdminServerOptions } from '../../src/ops/admin-server.ts';

const servers: AdminServer[] = [];
async function start(options: Partial<AdminServerOptions>): Promise<number> {
  const server = new AdminServer({
    address: { host: '127.0.0.1', port: 0 },
    logger: silentLogger,
    ...options,
  });
  servers.push(server);
  return (await server.start()).port;
}

after(() => Promise.all(servers.map((s) => s.stop())));

function call(
  port: number,
  path: string,
  opts: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: string; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers: opts.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString(),
            connection: res.headers.connection,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** Opens a TCP connection, writes `text`, and resolves with what the server wrote before it closed. */
function rawUntilClosed(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let got = '';
    socket.on('data', (d: Buffer) => (got += d.toString()));
    socket.on('close', () => resolve(got));
    socket.on('error', reject);
  });
}

const debug = { routes: () => ({ routes: [] }) };

describe('ops/admin-server exposure and limits', () => {
  it("'ops' serves health, readiness and metrics but no /debug/*; 'debug' serves only /debug/*", async () => {
    const ops = await start({ paths: 'ops', debug });
    assert.equal((await call(ops, '/healthz')).status, 200);
    assert.equal((await call(ops, '/debug/routes')).status, 404);
    const dbg = await start({ paths: 'debug', debug });
    assert.equal((await call(dbg, '/debug/routes')).status, 200);
    assert.equal((await call(dbg, '/healthz')).status, 404);
    assert.equal((await call(dbg, '/readyz')).status, 404);
  });

  it('answers a request with a body 413 and closes the connection', async () => {
    const port = await start({});
    const body = 'x'.repeat(1000);
    const r = await call(port, '/healthz', { body, headers: { 'content-length': String(body.length) } });
    assert.equal(r.status, 413);
    assert.equal(r.connection, 'close');
    assert.match(r.body, /take no body/);
  });

  it('drops a client that does not finish its headers in time', async () => {
    const port = await start({ limits: { headersTimeoutMs: 200, requestTimeoutMs: 400 } });
    const got = await rawUntilClosed(port, 'GET /healthz HTTP/1.1\r\nHost: admin\r\n');
    assert.ok(got === '' || got.startsWith('HTTP/1.1 408'), got);
  });

  it('refuses headers over the size limit with 431', async () => {
    const port = await start({ limits: { maxHeaderBytes: 4096 } });
    const r = await call(port, '/healthz', { headers: { 'x-big': 'y'.repeat(8192) } });
    assert.equal(r.status, 431);
  });

  it('answers a failing provider 500 with its message, never a stack trace', async () => {
    const port = await start({
      debug: {
        routes: () => {
          throw new Error('routes unavailable');
        },
      },
    });
    const r = await call(port, '/debug/routes');
    assert.equal(r.status, 500);
    assert.deepEqual(JSON.parse(r.body), { error: 'routes unavailable' });
    assert.doesNotMatch(r.body, /\bat .*\.ts:\d+/);
  });
});
