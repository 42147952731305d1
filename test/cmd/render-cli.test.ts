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
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { EnvoyFilterSpec } from '../../src/model/objects.ts';
import { fixturesDir, peripheryDir, repoRoot } from '../app/fixture-cases.ts';
import { issueLine, severityOf } from '../../src/model/result.ts';
import { DEFAULT_META_PROTOCOL_IMAGES } from '../../src/model/proxy-images.ts';

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
      clusterDomain: 'cluster.local',
      maxFileBytes: 64 * 1024 * 1024,
      maxFileDocuments: 100_000,
      maxYamlAliasNodes: 100_000,
      namespaceScope: false,
      waypointFilters: false,
      metaProtocolImages: DEFAULT_META_PROTOCOL_IMAGES,
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
        '--max-file-size',
        '1Mi',
        '--max-file-documents',
        '10',
        '--max-yaml-alias-nodes',
        '0',
      ],
      { AERAKI_NAMESPACE: 'from-env', AERAKI_ENABLE_ENVOY_FILTER_NS_SCOPE: 'false' },
    );
    assert.deepEqual(c, {
      files: ['a', 'b'],
      output: 'json',
      routes: true,
      rootNamespace: 'mesh-root',
      clusterDomain: 'cluster.local',
      maxFileBytes: 1024 * 1024,
      maxFileDocuments: 10,
      maxYamlAliasNodes: 0,
      namespaceScope: true,
      waypointFilters: false,
      metaProtocolImages: DEFAULT_META_PROTOCOL_IMAGES,
    });
    assert.equal(configOf(['-f', 'a', '--cluster-domain', 'corp.example']).clusterDomain, 'corp.example');
    assert.equal(configOf(['-f', 'a'], { AERAKI_CLUSTER_DOMAIN: 'from.env' }).clusterDomain, 'from.env');
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
    assert.throws(() => configOf(['-f', 'a', '--cluster-domain', 'Bad..domain']), /not a valid DNS domain/);
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

  it('warnings only: stderr lines `warning: <Kind> <ns>/<name>: <path>: ...`, exit 0', async () => {
    const r = await cli(['render', '-f', path.join(peripheryDir, '44-kafka-and-zookeeper/input.yaml')]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /^warning: ServiceEntry kafka\/kafka-broker: spec\.ports\[0\]\.name: envoy\.filters\.network\.kafka_broker is an Envoy contrib extension/m,
    );
    assert.doesNotMatch(r.stderr, /^error:/m);
    const both = await cli([
      'render',
      '-f',
      path.join(peripheryDir, '44-kafka-and-zookeeper/input.yaml'),
      '-f',
      case25,
    ]);
    assert.equal(both.code, 1, 'an error among warnings still fails');
    assert.match(both.stderr, /^warning: /m);
    assert.match(both.stderr, /^error: /m);
  });

  it('warns for each port nothing handles (mongo, mysql, tcp-<unknown>), never for ordinary names', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-render-ports-'));
    try {
      const names = [
        'http-web',
        'HTTP',
        'grpc',
        'grpc-api',
        'tcp',
        'tcp-dubbo',
        'tcp-mongo',
        'tcp-mysql',
        'tcp-web',
        'redis',
      ];
      const file = path.join(dir, 'ports.yaml');
      writeFileSync(
        file,
        JSON.stringify({
          apiVersion: 'networking.istio.io/v1',
          kind: 'ServiceEntry',
          metadata: { namespace: 'db', name: 'mixed' },
          spec: {
            hosts: ['mixed.db.svc.cluster.local'],
            addresses: ['10.1.2.3'],
            ports: names.map((name, i) => ({ number: 1000 + i, name, protocol: 'TCP' })),
          },
        }),
      );
      const r = render({
        files: [file],
        output: 'json',
        routes: false,
        rootNamespace: 'istio-system',
        namespaceScope: false,
      });
      assert.ok(r.issues.every((i) => severityOf(i) === 'warning'));
      assert.deepEqual(
        r.issues.map((i) => issueLine(i).split(': ').slice(0, 3).join(': ')),
        [
          'warning: ServiceEntry db/mixed: spec.ports[6].name',
          'warning: ServiceEntry db/mixed: spec.ports[7].name',
          'warning: ServiceEntry db/mixed: spec.ports[8].name',
        ],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('bad flags exit 2 with one error line and where the help is', async () => {
    const r = await cli(['render', '-f', case01, '-o', 'xml']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /expected yaml or json/);
    const none = await cli(['render']);
    assert.equal(none.code, 2);
    assert.equal(
      none.stderr,
      "error: at least one -f <file-or-dir> is required\nRun 'aeraki render --help' for usage.\n",
    );
  });
});

describe('examples/', () => {
  const base = {
    files: [path.join(repoRoot, 'examples')],
    output: 'json' as const,
    rootNamespace: 'istio-system',
    namespaceScope: false,
  };

  it('renders without errors (npm start exits 0); the one warning is the Kafka contrib extension', () => {
    const r = render({ ...base, routes: false });
    assert.deepEqual(
      r.issues.map((i) => issueLine(i).split(': ').slice(0, 3).join(': ')),
      ['warning: ServiceEntry kafka/kafka: spec.ports[0].name'],
    );
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
    for (const name of [
      'aeraki-outbound-my-cluster-kafka-bootstrap.kafka.svc.cluster.local-240.240.0.6-9092',
      'aeraki-inbound-my-cluster-kafka-bootstrap.kafka.svc.cluster.local-9092',
      'aeraki-outbound-zookeeper.kafka.svc.cluster.local-240.240.0.7-2181',
      'aeraki-inbound-zookeeper.kafka.svc.cluster.local-2181',
    ]) {
      assert.ok(names.includes(`istio-system/${name}`), name);
    }
  });

  it('puts the DubboAuthorizationPolicies on the inbound dubbo_proxy (DENY, ALLOW, router)', () => {
    const r = render({ ...base, routes: false });
    const inbound = (
      JSON.parse(r.stdout) as { items: { metadata: { name: string }; spec: EnvoyFilterSpec }[] }
    ).items.find(
      (i) => i.metadata.name === 'aeraki-inbound-org.apache.dubbo.samples.basic.api.secondservice-20880',
    );
    const value = inbound?.spec.configPatches[0]?.patch.value as {
      typed_config: {
        value: { dubboFilters: { name: string; config?: { rules: Record<string, unknown> } }[] };
      };
    };
    const filters = value.typed_config.value.dubboFilters;
    assert.deepEqual(
      filters.map((f) => [f.name, f.config?.rules['action'], Object.keys(f.config?.rules['policies'] ?? {})]),
      [
        ['envoy.filters.dubbo.rbac', 'DENY', ['ns[dubbo]-policy[deny-test-namespaces]-rule[0]']],
        [
          'envoy.filters.dubbo.rbac',
          undefined,
          [
            'ns[dubbo]-policy[allow-second-service]-rule[0]',
            'ns[dubbo]-policy[allow-second-service]-rule[1]',
          ],
        ],
        ['envoy.filters.dubbo.router', undefined, []],
      ],
    );
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
