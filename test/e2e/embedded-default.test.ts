// The embedded default: `npm start`'s own command line (read from package.json), run on a temporary copy of
// examples/ with free ports and a short debounce; an edit of an example file changes the written EnvoyFilters
// and the routes served; `aeraki routes` watches them with the generated client certificate; SIGTERM exits 0.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { bannerPorts, httpGet, repoRoot, runCli, waitFor, type Child } from './support.ts';

/** `npm start`'s arguments after `node bin/aeraki.js`, with paths and ports moved into `dir`. */
function startArgs(dir: string): string[] {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const words = (pkg.scripts['start'] ?? '').split(/\s+/);
  assert.deepEqual(words.slice(0, 3), ['node', 'bin/aeraki.js', 'serve']);
  const replace: Record<string, string> = {
    'examples/': path.join(dir, 'examples'),
    '.aeraki/envoyfilters': path.join(dir, 'out'),
    '.aeraki/certs': path.join(dir, 'certs'),
    '127.0.0.1:15010': '127.0.0.1:0',
    '127.0.0.1:8080': '127.0.0.1:0',
    '127.0.0.1:15090': '127.0.0.1:0',
  };
  for (const w of words) if (w.startsWith('.aeraki') || w === 'examples/') assert.ok(replace[w], w);
  return [
    ...words.slice(2).map((w) => replace[w] ?? w),
    '--watch-debounce',
    '100ms',
    '--debounce-after',
    '100ms',
  ];
}

const filesUnder = (dir: string): string[] =>
  existsSync(dir) ? readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort() : [];

describe('npm start (the embedded default, directory mode)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-start-'));
  const children: Child[] = [];
  after(() => {
    for (const c of children) c.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves examples/, follows edits within a debounce, serves routes over mTLS, stops on SIGTERM', async () => {
    cpSync(path.join(repoRoot, 'examples'), path.join(dir, 'examples'), { recursive: true });
    const serve = runCli(startArgs(dir));
    children.push(serve);
    const out = path.join(dir, 'out');
    await waitFor(() => serve.stdout.includes('config synced'), `config synced\n${serve.stderr}`);
    const ports = bannerPorts(serve.stdout);
    assert.ok(ports, serve.stdout);
    assert.match(serve.stdout, new RegExp(`EnvoyFilters -> .*${path.basename(dir)}/out/`));
    assert.match(serve.stdout, /client cert .*client\.crt/);
    assert.match(
      serve.stdout,
      /watch routes: node bin\/aeraki\.js routes --rds-address 127\.0\.0\.1:\d+ --ca /,
    );
    const thrift = (port: number) =>
      `istio-system/envoyfilter-aeraki-outbound-thrift-sample-server.meta-thrift.svc.cluster.local-240.240.0.2-${port}.yaml`;
    await waitFor(() => filesUnder(out).includes(thrift(9090)), 'EnvoyFilters written');
    const kafka =
      'istio-system/envoyfilter-aeraki-outbound-my-cluster-kafka-bootstrap.kafka.svc.cluster.local-240.240.0.6-9092.yaml';
    const zookeeper = 'istio-system/envoyfilter-aeraki-inbound-zookeeper.kafka.svc.cluster.local-2181.yaml';
    await waitFor(
      () => filesUnder(out).includes(kafka) && filesUnder(out).includes(zookeeper),
      `Kafka and ZooKeeper filters written: ${filesUnder(out).join(', ')}`,
    );
    const ready = await httpGet(`http://127.0.0.1:${ports.admin}/readyz`);
    assert.equal(ready.status, 200, ready.body);
    const checks = (JSON.parse(ready.body) as { checks: { name: string; ready: boolean }[] }).checks;
    assert.deepEqual(
      checks.find((c) => c.name === 'certificate'),
      { name: 'certificate', ready: true },
      'the development certificate is in use',
    );
    assert.match(serve.stdout, /RDS \(gRPC, mTLS, certificate: dev\)/);
    // npm start serves /debug/* on its own loopback listener (never on the admin port).
    const debugPort = /debug on http:\/\/127\.0\.0\.1:(\d+)/.exec(serve.stdout)?.[1];
    assert.ok(debugPort, serve.stdout);
    const routes = await httpGet(`http://127.0.0.1:${debugPort}/debug/routes`);
    assert.equal(routes.status, 200, routes.body);
    assert.equal((await httpGet(`http://127.0.0.1:${ports.admin}/debug/routes`)).status, 404);
    const proxies = await httpGet(`http://127.0.0.1:${debugPort}/debug/proxies`);
    assert.equal(proxies.status, 200, proxies.body);
    assert.ok(Array.isArray((JSON.parse(proxies.body) as { proxies: unknown }).proxies), proxies.body);

    // Routes as a proxy sees them, through the real client command and the generated certificates.
    const certs = path.join(dir, 'certs');
    const tlsArgs = [
      '--ca',
      `${certs}/ca.crt`,
      '--cert',
      `${certs}/client.crt`,
      '--key',
      `${certs}/client.key`,
    ];
    const watch = (name: string) =>
      runCli(['routes', `--rds-address=127.0.0.1:${ports.rds}`, ...tlsArgs, '--count', '1', name]);
    const first = watch('thrift-sample-server.meta-thrift.svc.cluster.local_9090');
    children.push(first);
    assert.equal(await first.exited, 0, first.stderr);
    assert.match(first.stdout, /outbound\|9090\|\|thrift-sample-server\.meta-thrift\.svc\.cluster\.local/);

    // Edit an example: the port moves from 9090 to 9091.
    const file = path.join(dir, 'examples', 'thrift-metaprotocol.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('number: 9090', 'number: 9091'));
    await waitFor(
      () => filesUnder(out).includes(thrift(9091)) && !filesUnder(out).includes(thrift(9090)),
      `output follows the edit: ${filesUnder(out).join(', ')}`,
    );
    const second = watch('thrift-sample-server.meta-thrift.svc.cluster.local_9091');
    children.push(second);
    assert.equal(await second.exited, 0, second.stderr);
    assert.match(second.stdout, /outbound\|9091\|/);

    // Removing the file removes its filters (full replacement of the store on every re-read).
    rmSync(file);
    await waitFor(
      () => !filesUnder(out).some((f) => f.includes('thrift-sample-server')),
      'filters of the removed file deleted',
    );

    serve.child.kill('SIGTERM');
    assert.equal(await serve.exited, 0, serve.stderr);
    assert.match(serve.stderr, /shutting down/);
  });
});
