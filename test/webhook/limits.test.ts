// The webhook's limits against hostile clients: an announced or streamed body over 3 MiB is answered 413 and the
// connection closed without reading the rest; a client that never completes the TLS handshake or its headers is
// dropped; an internal failure answers a message, never a stack trace.
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/util/logger.ts';
import { WebhookServer } from '../../src/webhook/server.ts';
import { testCa, writeCertDir, type CertDir } from '../fakes/test-ca.ts';
import { META_ROUTER, reviewV1 } from './reviews.ts';
import { createPluginKinds } from '../../src/plugins/registry.ts';

function post(
  port: number,
  body: Buffer | string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/validate',
        method: 'POST',
        ca: testCa().ca,
        servername: 'localhost',
        headers: { 'content-type': 'application/json', ...headers },
        agent: false,
      },
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
    // The server may close while the body is still being written (that is the point).
    req.on('error', reject);
    req.end(body);
  });
}

describe('webhook limits', () => {
  let certs: CertDir;
  let server: WebhookServer;
  let port: number;
  let failValidation = false;

  before(async () => {
    certs = writeCertDir();
    server = new WebhookServer({
      address: { host: '127.0.0.1', port: 0 },
      kinds: createPluginKinds(),
      certFile: certs.certFile,
      keyFile: certs.keyFile,
      validate: () => {
        if (failValidation) throw new Error('validation exploded');
        return [];
      },
      logger: silentLogger,
      limits: { headersTimeoutMs: 300, requestTimeoutMs: 600 },
    });
    port = (await server.start()).port;
  });

  after(async () => {
    await server.stop();
    certs.remove();
  });

  it('answers a body announced over 3 MiB 413 at once and closes the connection', async () => {
    const r = await post(port, '{}', { 'content-length': String(4 << 20) }).catch((e: Error) => e);
    assert.ok(!(r instanceof Error), r instanceof Error ? r.message : '');
    assert.equal(r.status, 413);
    assert.equal(r.connection, 'close');
  });

  it('answers a streamed body over 3 MiB 413', async () => {
    const r = await post(port, Buffer.alloc(4 << 20, 0x20), { 'transfer-encoding': 'chunked' }).catch(
      (e: Error) => e,
    );
    if (r instanceof Error) assert.match(r.message, /EPIPE|ECONNRESET|socket hang up/);
    else assert.equal(r.status, 413);
  });

  it('drops a client that never starts the TLS handshake', async () => {
    const closed = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.on('close', () => resolve(true));
      s.on('error', () => {});
    });
    assert.equal(closed, true);
  });

  it('answers a failing validation 500 with a message, never a stack trace, and keeps serving', async () => {
    failValidation = true;
    const bad = await post(port, JSON.stringify(reviewV1(META_ROUTER, 'uid-1')));
    failValidation = false;
    assert.equal(bad.status, 500);
    assert.deepEqual(JSON.parse(bad.body), { error: 'internal error' });
    const good = await post(port, JSON.stringify(reviewV1(META_ROUTER, 'uid-1')));
    assert.equal(good.status, 200);
  });
});
