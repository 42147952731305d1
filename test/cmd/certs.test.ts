// `aeraki certs --out DIR`: development certificates for the RDS server, usable by the TLS loader.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli } from '../e2e/support.ts';

describe('aeraki certs', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-certs-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the CA, server and client pairs (keys private) and prints their paths', async () => {
    const out = path.join(dir, 'certs');
    const run = runCli(['certs', '--out', out]);
    assert.equal(await run.exited, 0, run.stderr);
    for (const f of ['ca.crt', 'server.crt', 'server.key', 'client.crt', 'client.key']) {
      assert.ok(run.stdout.includes(path.join(out, f)), f);
    }
    assert.equal(statSync(path.join(out, 'server.key')).mode & 0o777, 0o600);
    assert.equal(statSync(path.join(out, 'client.key')).mode & 0o777, 0o600);
  });

  it('refuses to run without --out', async () => {
    const run = runCli(['certs']);
    assert.notEqual(await run.exited, 0);
    assert.match(run.stderr, /--out/);
  });
});
