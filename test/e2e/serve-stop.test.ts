// `aeraki serve` as a process at its edges: a taken RDS or MCP port gives only the friendly error (no raw grpc-js
// log line before it), and SIGTERM ends an open RDS stream with UNAVAILABLE "server shutting down", then exits 0.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { RdsTestClient, sotwRequest } from '../fakes/rds-client.ts';
import { bannerPorts, repoRoot, runCli } from './support.ts';

const ROUTE = 'org.apache.dubbo.samples.basic.api.demoservice_20880';
/** grpc-js's own logger prefixes its lines with `E `, `I ` or `D `; its bind failure says this. */
const GRPC_LINE = /^[EID] |No address added/m;

/** A loopback port held by another listener. */
async function takenPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, server };
}

describe('aeraki serve as a process: taken ports and SIGTERM', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-stop-'));
  const config = path.join(dir, 'config');
  mkdirSync(config);
  copyFileSync(path.join(repoRoot, 'examples/dubbo-metaprotocol.yaml'), path.join(config, 'dubbo.yaml'));
  const cleanup: (() => unknown)[] = [];
  after(async () => {
    for (const c of cleanup.reverse()) await c();
    rmSync(dir, { recursive: true, force: true });
  });
  const base = [
    'serve',
    '--config-source=dir',
    `--config-dir=${config}`,
    '--output=dir',
    `--output-dir=${path.join(dir, 'out')}`,
    '--rds-insecure',
    '--http-address=127.0.0.1:0',
  ];

  it('a taken RDS port: only the friendly error, exit 1', async () => {
    const taken = await takenPort();
    cleanup.push(() => taken.server.close());
    const serve = runCli([...base, `--rds-address=127.0.0.1:${taken.port}`]);
    cleanup.push(() => serve.kill());
    assert.equal(await serve.exited, 1, serve.stderr);
    assert.match(
      serve.stderr,
      new RegExp(
        `^error: cannot serve RDS on 127\\.0\\.0\\.1:${taken.port}: listen EADDRINUSE: .* \\(choose another --rds-address\\)$`,
        'm',
      ),
    );
    assert.doesNotMatch(serve.stderr + serve.stdout, GRPC_LINE);
  });

  it('a taken MCP server port: only the friendly error, exit 1', async () => {
    const taken = await takenPort();
    cleanup.push(() => taken.server.close());
    const serve = runCli([
      ...base,
      '--rds-address=127.0.0.1:0',
      '--registry=zk=zookeeper://127.0.0.1:1/dubbo',
      '--registry-output=mcp',
      `--mcp-server-address=127.0.0.1:${taken.port}`,
    ]);
    cleanup.push(() => serve.kill());
    assert.equal(await serve.exited, 1, serve.stderr);
    assert.match(serve.stderr, /^error: cannot start the registries: listen EADDRINUSE: /m);
    assert.doesNotMatch(serve.stderr + serve.stdout, GRPC_LINE);
  });

  it('SIGTERM ends an open RDS stream with UNAVAILABLE "server shutting down" and exits 0', async () => {
    const serve = runCli([...base, '--rds-address=127.0.0.1:0']);
    cleanup.push(() => serve.kill());
    await serve.waitFor('config synced', 30_000);
    const ports = bannerPorts(serve.stdout);
    assert.ok(ports, serve.stdout);
    const client = new RdsTestClient(ports.rds, 'insecure', '127.0.0.1');
    cleanup.push(() => client.close());
    const stream = client.sotw();
    stream.send(sotwRequest([ROUTE]));
    assert.equal((await stream.next(15_000)).resources.length, 1);

    serve.child.kill('SIGTERM');
    const status = await stream.status;
    assert.equal(status.code, grpc.status.UNAVAILABLE, `${status.code} ${status.details}`);
    assert.equal(status.details, 'server shutting down');
    assert.equal(await serve.exited, 0, serve.stderr);
  });
});
