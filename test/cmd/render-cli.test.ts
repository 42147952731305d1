import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { RENDER_ROWS, renderConfig } from '../../cmd/render-config.ts';
import { addOptions, ConfigError } from '../../cmd/rows.ts';
import { cliArgs } from '../support/process.ts';
import { render } from '../../src/app/render.ts';
import { fixturesDir, repoRoot } from '../app/fixture-cases.ts';

function configOf(argv: string[], env: Record<string, string> = {}) {
  const cmd = addOptions(new Command('render').exitOverride(), RENDER_ROWS);
  cmd.parse(argv, { from: 'user' });
  return renderConfig(cmd, env);
}

function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      cliArgs(args),
      { cwd: repoRoot, env: { ...process.env, ...env }, timeout: 60_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

const case01 = path.join(fixturesDir, '01-metaprotocol-dubbo-sidecar/input.yaml');
const case25 = path.join(fixturesDir, '25-d1-port-without-app-protocol/input.yaml');

describe('render configuration (cmd/render-config.ts)', () => {
  it('defaults', () => {
    assert.deepEqual(configOf(['-f', 'x.yaml']), {
      files: ['x.yaml'],
      output: 'yaml',
      routes: false,
      rootNamespace: 'istio-system',
      namespaceScope: false,
    });
  });

  it('flags, repeatable -f, and flag > env > default', () => {
    const c = configOf(
      [
        '-f',
        'a',
        '--filename',
        'b',
        '-o',
        'json',
        '--routes',
        '--root-namespace',
        'mesh-root',
        '--namespace-scope',
      ],
      { AERAKI_NAMESPACE: 'from-env', AERAKI_ENABLE_ENVOY_FILTER_NS_SCOPE: 'false' },
    );
    assert.deepEqual(c, {
      files: ['a', 'b'],
      output: 'json',
      routes: true,
      rootNamespace: 'mesh-root',
      namespaceScope: true,
    });
    const e = configOf(['-f', 'a'], {
      AERAKI_NAMESPACE: 'from-env',
      AERAKI_ENABLE_ENVOY_FILTER_NS_SCOPE: 'true',
    });
    assert.equal(e.rootNamespace, 'from-env');
    assert.equal(e.namespaceScope, true);
    assert.ok(Object.isFrozen(e));
  });

  it('rejects bad values', () => {
    assert.throws(() => configOf(['-f', 'a', '-o', 'xml']), /expected yaml or json/);
    assert.throws(() => configOf(['-f', 'a', '--root-namespace', 'Bad_NS']), /not a valid namespace/);
    assert.throws(() => configOf(['-f', 'a'], { AERAKI_ENABLE_ENVOY_FILTER_NS_SCOPE: 'maybe' }), ConfigError);
    assert.throws(() => configOf([]), /at least one -f/);
  });
});

describe('aeraki CLI', () => {
  it('render is deterministic: identical input gives byte-identical output (YAML and JSON agree)', () => {
    const opts = { files: [case01], routes: false, rootNamespace: 'istio-system', namespaceScope: false };
    const a = render({ ...opts, output: 'json' });
    const b = render({ ...opts, output: 'json' });
    assert.equal(a.stdout, b.stdout);
    assert.deepEqual(parseYaml(render({ ...opts, output: 'yaml' }).stdout), JSON.parse(a.stdout));
    const items = (JSON.parse(a.stdout) as { items: { metadata: { namespace: string; name: string } }[] })
      .items;
    const keys = items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`);
    assert.deepEqual(keys, [...keys].sort());
  });

  it('version prints the package version', async () => {
    const r = await cli(['version']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^aeraki \d+\.\d+\.\d+\n$/);
  });

  it('input errors: stderr lines `error: <Kind> <ns>/<name>: <path>: ...`, exit 1, valid objects still rendered', async () => {
    const r = await cli(['render', '-f', case25, '-f', case01]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^error: ServiceEntry metaprotocol\/broken-bare: spec\.ports\[0\]\.name: /m);
    const doc = parseYaml(r.stdout) as { kind: string; items: unknown[] };
    assert.equal(doc.kind, 'List');
    assert.ok(doc.items.length > 0);
  });

  it('bad flags exit 1 with a message', async () => {
    const r = await cli(['render', '-f', case01, '-o', 'xml']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /expected yaml or json/);
    const none = await cli(['render']);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /error: at least one -f/);
  });
});

describe('examples/', () => {
  const base = {
    files: [path.join(repoRoot, 'examples')],
    output: 'json' as const,
    rootNamespace: 'istio-system',
    namespaceScope: false,
  };

  it('renders without issues (npm start exits 0)', () => {
    const r = render({ ...base, routes: false });
    assert.deepEqual(r.issues, []);
    const names = (
      JSON.parse(r.stdout) as { items: { metadata: { namespace: string; name: string } }[] }
    ).items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`);
    assert.ok(
      names.includes(
        'istio-system/aeraki-outbound-org.apache.dubbo.samples.basic.api.demoservice-240.240.0.1-20880',
      ),
    );
    assert.ok(
      names.includes(
        'istio-system/aeraki-outbound-org.apache.dubbo.samples.basic.api.secondservice-240.240.0.4-20880',
      ),
    );
    assert.ok(
      names.includes('meta-trpc/aeraki-inbound-trpc-echo.meta-trpc.svc.cluster.local-8000'),
      'exportTo .',
    );
    assert.ok(
      names.includes('istio-system/aeraki-outbound-redis-client.redis.svc.cluster.local-10.96.50.10-6379'),
    );
    assert.ok(names.includes('istio-system/aeraki-inbound-redis-client.redis.svc.cluster.local-6379'));
  });

  it('renders the MetaProtocol routes without issues', () => {
    const r = render({ ...base, routes: true });
    assert.deepEqual(r.issues, []);
    const routes = (JSON.parse(r.stdout) as { items: { name: string }[] }).items.map((i) => i.name);
    assert.deepEqual(routes, [
      'org.apache.dubbo.samples.basic.api.demoservice_20880',
      'thrift-sample-server.meta-thrift.svc.cluster.local_9090',
      'trpc-echo.meta-trpc.svc.cluster.local_8000',
    ]);
  });
});
