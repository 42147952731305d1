// `aeraki routes` as a script uses it: `--once NAME` (a plain switch), `--timeout` when nothing is served, and a
// server that speaks the other protocol (TLS against --insecure, plaintext against TLS), through the real CLI;
// the watcher reports the wrong protocol once while it keeps retrying.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { watchRoutes } from '../../src/tools/route-watcher.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { RdsServer } from '../../src/xds-rds/server.ts';
import { SnapshotCache } from '../../src/xds-rds/snapshot.ts';
import { writeCertDir, type CertDir } from '../fakes/test-ca.ts';
import { cliArgs, run } from '../support/process.ts';

const NOTHING = 'nothing.example_1';

describe('aeraki routes: exits instead of hanging', () => {
  const certs: CertDir = writeCertDir();
  const servers: RdsServer[] = [];
  after(async () => {
    for (const s of servers) await s.stop();
    certs.remove();
  });
  const serve = async (tls: 'tls' | 'plaintext'): Promise<number> => {
    const server = new RdsServer(
      {
        host: '127.0.0.1',
        port: 0,
        logger: silentLogger,
        tls: tls === 'tls' ? { ...certs, pollIntervalMs: 60_000 } : { insecure: true },
      },
      new SnapshotCache(),
    );
    servers.push(server);
    return server.start();
  };
  const routes = (port: number, ...args: string[]) =>
    run(process.execPath, cliArgs(['routes', `--rds-address=127.0.0.1:${port}`, ...args]), 60_000);
  const tlsFlags = ['--ca', certs.caFile, '--cert', certs.clientCertFile, '--key', certs.clientKeyFile];

  it('--once NAME exits 1 naming the route when it is not served within --timeout', async () => {
    const port = await serve('plaintext');
    const r = await routes(port, '--insecure', '--once', NOTHING, '--timeout', '300ms');
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(
      r.stderr,
      new RegExp(`^error: route ${NOTHING} is not served by 127\\.0\\.0\\.1:${port} within 300ms$`, 'm'),
    );
  });

  it('--count with several names: the error names them all', async () => {
    const port = await serve('plaintext');
    const r = await routes(
      port,
      '--insecure',
      '--count',
      '2',
      '--timeout',
      '200ms',
      NOTHING,
      'none.example_2',
    );
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(
        `error: none of ${NOTHING}, none\\.example_2 is served by 127\\.0\\.0\\.1:${port} within 200ms`,
      ),
    );
  });

  it('--insecure against a TLS server says the server speaks TLS and exits 1', async () => {
    const port = await serve('tls');
    const r = await routes(port, '--insecure', '--once', NOTHING);
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(
        `^error: 127\\.0\\.0\\.1:${port} speaks TLS, but this client is plaintext \\(--insecure\\)`,
        'm',
      ),
    );
  });

  it('TLS against a plaintext server says the server speaks plaintext and exits 1', async () => {
    const port = await serve('plaintext');
    const r = await routes(port, ...tlsFlags, '--once', NOTHING);
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(`^error: 127\\.0\\.0\\.1:${port} speaks plaintext .*use --insecure$`, 'm'),
    );
  });

  it('the watcher reports the wrong protocol once and keeps retrying', { timeout: 30_000 }, async () => {
    const port = await serve('tls');
    const wrong: string[] = [];
    let disconnects = 0;
    let reported!: () => void;
    const retriedAfterReport = new Promise<void>((resolve) => (reported = resolve));
    const w = watchRoutes({
      address: `127.0.0.1:${port}`,
      tls: 'insecure',
      names: [NOTHING],
      backoff: { initialMs: 20, maxMs: 20, jitter: 0 },
      onAnswer: () => assert.fail('no answer expected'),
      onWrongProtocol: (speaks) => wrong.push(speaks),
      onDisconnect: () => {
        disconnects++;
        if (wrong.length > 0 && disconnects >= 5) reported();
      },
    });
    try {
      await retriedAfterReport;
    } finally {
      w.close();
    }
    assert.deepEqual(wrong, ['tls']);
  });
});
