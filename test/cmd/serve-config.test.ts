// `aeraki serve` options: the row table (flag > env > default), `--name=value`, Aeraki's env names, validation,
// and the CLI's exit code 2 / --help listing env names.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Command } from 'commander';
import { parseDurationMs, parseLogLevel } from '../../cmd/parsers.ts';
import { addOptions, ConfigError } from '../../cmd/rows.ts';
import { SERVE_ROWS, serveConfig } from '../../cmd/serve-config.ts';
import type { ServeValues } from '../../cmd/serve-flags.ts';
import { serveOptionsOf } from '../../cmd/serve-rows.ts';
import { DEFAULT_META_PROTOCOL_IMAGES } from '../../src/model/proxy-images.ts';
import { cliArgs } from '../support/process.ts';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const EXISTING = path.join(repoRoot, 'package.json');
const TLS = ['--tls-cert-file', EXISTING, '--tls-key-file', EXISTING, '--client-ca-file', EXISTING];
const IN_CLUSTER = { KUBERNETES_SERVICE_HOST: '10.96.0.1' };

function configOf(argv: string[], env: Record<string, string> = {}) {
  const cmd = addOptions(new Command('serve').exitOverride(), SERVE_ROWS);
  cmd.configureOutput({ writeErr: () => {} });
  cmd.parse(argv, { from: 'user' });
  return serveConfig(cmd, { ...IN_CLUSTER, ...env }, '1.2.3');
}

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      cliArgs(args),
      { cwd: repoRoot, env: { ...process.env, ...env }, timeout: 30_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, out: stdout + stderr }),
    );
  });
}

describe('aeraki serve options (cmd/serve-config.ts)', () => {
  it('defaults: MCP source, kube sink with leader election, Aeraki-compatible addresses', () => {
    const c = configOf(TLS, { POD_NAME: 'aeraki-0' });
    assert.equal(c.source.kind, 'mcp');
    assert.equal(c.source.istiodAddress, 'istiod.istio-system:15010');
    assert.equal(c.source.istiodTls, 'auto');
    assert.equal(c.output.kind, 'kube');
    assert.equal(c.leader.elect, true);
    assert.equal(c.bootstrap.enabled, true);
    assert.deepEqual(c.rds.address, { host: '0.0.0.0', port: 15010 });
    assert.deepEqual(c.admin.address, { host: '0.0.0.0', port: 8080 });
    assert.equal(
      configOf(['--rds-insecure']).identity.clientCaFile,
      '',
      'RDS clients: the mesh root of --ca-root-cert-file',
    );
    assert.equal(c.mesh.rootNamespace, 'istio-system');
    assert.equal(c.mesh.clusterDomain, 'cluster.local');
    assert.equal(configOf(TLS, { AERAKI_CLUSTER_DOMAIN: 'corp.example' }).mesh.clusterDomain, 'corp.example');
    assert.equal(configOf([...TLS, '--cluster-domain=flag.example']).mesh.clusterDomain, 'flag.example');
    assert.equal(c.bootstrap.xdsServiceAddress, 'aeraki.istio-system');
    assert.equal(c.podName, 'aeraki-0');
    assert.equal(c.logging.format, 'json');
    assert.equal(c.reconcile.debounceAfterMs, 1000);
    assert.equal(c.reconcile.debounceMaxMs, 10_000);
    assert.equal(c.version, '1.2.3');
    assert.ok(Object.isFrozen(c));
    for (const [part, value] of Object.entries(c)) {
      if (typeof value === 'object') assert.ok(Object.isFrozen(value), `${part} is frozen too`);
    }
  });

  it('puts the directory state file beside --output-dir, else in the temporary directory; none turns it off', () => {
    const examples = path.join(repoRoot, 'examples');
    const dir = ['--config-source=dir', `--config-dir=${examples}`, '--rds-insecure'];
    const out = path.resolve('/tmp/out');
    assert.equal(
      configOf([...dir, '--output=dir', `--output-dir=${out}/`]).source.stateFile,
      `${out}.aeraki-dir-state`,
    );
    const kube = configOf(dir).source.stateFile ?? '';
    assert.match(path.basename(kube), /^aeraki-dir-state-[0-9a-f]{16}$/);
    assert.equal(configOf([...dir, '--dir-state-file=/var/x']).source.stateFile, '/var/x');
    assert.equal(
      configOf([...dir, '--output=dir', '--output-dir=/tmp/o', '--dir-state-file=none']).source.stateFile,
      undefined,
    );
    assert.equal(configOf(TLS).source.stateFile, undefined, 'not without --config-source dir');
  });

  it('nests every option into exactly one part of the options (the row files, serve-rows.ts)', () => {
    const values = Object.fromEntries([...Object.keys(SERVE_ROWS), 'version'].map((k, i) => [k, `v${i}`]));
    const nested = serveOptionsOf(values as unknown as ServeValues);
    const found = Object.values(nested).flatMap((part: unknown) =>
      typeof part === 'object' && part !== null ? Object.values(part) : [part],
    );
    assert.deepEqual(found.sort(), Object.values(values).sort());
  });

  it('waypoint filters: off by default, on by flag or AERAKI_WAYPOINT_ENVOYFILTERS; the known MetaProtocol images first', () => {
    const off = configOf(TLS);
    assert.equal(off.output.waypointFilters, false);
    assert.deepEqual(off.output.metaProtocolImages, DEFAULT_META_PROTOCOL_IMAGES);
    assert.equal(configOf([...TLS, '--waypoint-envoyfilters']).output.waypointFilters, true);
    const env = configOf(TLS, { AERAKI_WAYPOINT_ENVOYFILTERS: 'true' });
    assert.equal(env.output.waypointFilters, true);
    const images = configOf([...TLS, '--metaprotocol-images', 'reg.example/mp,reg.example/mp2:1.0']);
    assert.deepEqual(images.output.metaProtocolImages, [
      ...DEFAULT_META_PROTOCOL_IMAGES,
      'reg.example/mp',
      'reg.example/mp2:1.0',
    ]);
  });

  it("keeps Aeraki's environment names and lets flags win over them", () => {
    const env = {
      AERAKI_ISTIOD_ADDR: 'istiod.other:15012',
      AERAKI_NAMESPACE: 'mesh-root',
      AERAKI_XDS_PORT: ':15011',
      AERAKI_XDS_ADDR: 'aeraki.mesh-root.svc',
      AERAKI_LOG_LEVEL: 'all:debug',
      POD_NAME: 'pod-a',
    };
    const c = configOf(TLS, env);
    assert.equal(c.source.istiodAddress, 'istiod.other:15012');
    assert.equal(c.mesh.rootNamespace, 'mesh-root');
    assert.deepEqual(c.rds.address, { host: '0.0.0.0', port: 15011 });
    assert.equal(c.bootstrap.xdsServiceAddress, 'aeraki.mesh-root.svc');
    assert.equal(c.logging.level, 'debug');
    assert.equal(c.podName, 'pod-a');
    const f = configOf([...TLS, '--istiod-address=istiod.flag:15010', '--root-namespace', 'flag-ns'], env);
    assert.equal(f.source.istiodAddress, 'istiod.flag:15010');
    assert.equal(f.mesh.rootNamespace, 'flag-ns');
  });

  it('accepts --name=value for every kind of option, and [bool] switches with or without a value', () => {
    const c = configOf([
      '--config-source=dir',
      `--config-dir=${path.join(repoRoot, 'examples')}`,
      '--output=dir',
      '--output-dir=/tmp/out',
      '--rds-insecure',
      '--namespace-scope=true',
      '--debounce-after=250ms',
      '--debounce-max=2s',
      '--http-address=127.0.0.1:0',
      '--log-format=text',
    ]);
    assert.equal(c.source.kind, 'dir');
    assert.equal(c.output.kind, 'dir');
    assert.equal(c.rds.insecure, true);
    assert.equal(c.output.namespaceScope, true);
    assert.equal(c.reconcile.debounceAfterMs, 250);
    assert.equal(c.reconcile.debounceMaxMs, 2000);
    assert.equal(c.leader.elect, false, 'no leader election with the directory sink');
    assert.equal(c.bootstrap.enabled, false);
    assert.equal(configOf([...TLS, '--leader-elect=false']).leader.elect, false);
  });

  it('allocates VIPs by default with --output kube only; flag and AERAKI_ALLOCATE_VIPS switch it', () => {
    assert.equal(configOf(TLS).vip.allocate, true);
    assert.equal(configOf([...TLS, '--allocate-vips=false']).vip.allocate, false);
    assert.equal(configOf(TLS, { AERAKI_ALLOCATE_VIPS: 'false' }).vip.allocate, false);
    assert.equal(configOf([...TLS, '--allocate-vips'], { AERAKI_ALLOCATE_VIPS: 'false' }).vip.allocate, true);
    const dir = ['--rds-insecure', '--output', 'dir', '--output-dir', 'o', '--config-source', 'dir'];
    assert.equal(configOf([...dir, '--config-dir', '.']).vip.allocate, false);
    assert.throws(() => configOf(TLS, { AERAKI_ALLOCATE_VIPS: 'maybe' }), /AERAKI_ALLOCATE_VIPS/);
    assert.throws(
      () => configOf([...dir, '--config-dir', '.', '--allocate-vips=true']),
      /--allocate-vips needs --output kube/,
    );
  });

  it('the write limit: 50/100 by default, from AERAKI_KUBE_API_QPS/BURST or the flags; refuses 0', () => {
    assert.deepEqual([configOf(TLS).kube.apiQps, configOf(TLS).kube.apiBurst], [50, 100]);
    const env = { AERAKI_KUBE_API_QPS: '12.5', AERAKI_KUBE_API_BURST: '30' };
    assert.deepEqual([configOf(TLS, env).kube.apiQps, configOf(TLS, env).kube.apiBurst], [12.5, 30]);
    const flags = configOf([...TLS, '--kube-api-qps=200', '--kube-api-burst', '400'], env);
    assert.deepEqual([flags.kube.apiQps, flags.kube.apiBurst], [200, 400]);
    assert.throws(() => configOf([...TLS, '--kube-api-qps', '0']), /above 0/);
    assert.throws(() => configOf(TLS, { AERAKI_KUBE_API_BURST: '0' }), /AERAKI_KUBE_API_BURST/);
  });

  it('refuses bad values with a message naming the option or variable', () => {
    assert.throws(() => configOf(['--config-source', 'etcd']), /expected mcp \| kube \| dir/);
    assert.throws(() => configOf(['--http-address', 'nowhere']), /invalid address/);
    assert.throws(() => configOf([...TLS], { AERAKI_XDS_PORT: 'x' }), /AERAKI_XDS_PORT/);
    assert.throws(() => configOf([...TLS, '--debounce-after', 'soon']), /duration/);
    assert.throws(() => configOf([...TLS], { AERAKI_LEADER_ELECT: 'maybe' }), /AERAKI_LEADER_ELECT/);
    assert.throws(() => configOf([...TLS, '--root-namespace', 'Bad_NS']), /not a valid namespace/);
  });

  it('refuses inconsistent combinations', () => {
    assert.throws(() => configOf(['--rds-insecure', '--config-source', 'dir']), ConfigError);
    assert.throws(
      () => configOf(['--rds-insecure', '--config-source', 'dir', '--config-dir', '/nonexistent/dir']),
      /--config-dir \/nonexistent\/dir: no such file/,
    );
    assert.throws(
      () =>
        configOf(['--tls-cert-file', '/nope.crt', '--tls-key-file', EXISTING, '--client-ca-file', EXISTING]),
      /--tls-cert-file \/nope\.crt/,
    );
    assert.throws(() => configOf(TLS, { KUBERNETES_SERVICE_HOST: '' }), /pass --kubeconfig/);
    assert.throws(
      () => configOf(['--cert-provider', 'files']),
      /--cert-provider files needs --tls-cert-file/,
    );
    assert.throws(() => configOf(['--cert-provider', 'dev']), /--cert-provider dev needs --dev-certs/);
    assert.throws(
      () => configOf(['--rds-insecure', '--output', 'dir', '--output-dir', 'o', '--leader-elect']),
      /--leader-elect needs --output kube/,
    );
    assert.throws(
      () => configOf([...TLS, '--lease-duration', '5s', '--renew-deadline', '5s']),
      /--renew-deadline/,
    );
  });

  it('the webhook: off by default; an address with its files, or with --dev-certs', () => {
    assert.equal(configOf([...TLS], IN_CLUSTER).webhook.address, undefined);
    const files = ['--webhook-cert-file', EXISTING, '--webhook-key-file', EXISTING];
    const c = configOf([...TLS, '--webhook-address', ':15017', ...files], IN_CLUSTER);
    assert.deepEqual(c.webhook.address, { host: '0.0.0.0', port: 15017 });
    assert.deepEqual(
      configOf([...TLS], {
        ...IN_CLUSTER,
        AERAKI_WEBHOOK_ADDRESS: '127.0.0.1:9443',
        AERAKI_DEV_CERTS: '/tmp/c',
      }).webhook.address,
      { host: '127.0.0.1', port: 9443 },
    );
    assert.throws(() => configOf([...TLS, '--webhook-address', ':15017'], IN_CLUSTER), /--webhook-cert-file/);
    assert.throws(
      () =>
        configOf(
          [
            ...TLS,
            '--webhook-address',
            ':15017',
            '--webhook-cert-file',
            '/nope.crt',
            '--webhook-key-file',
            EXISTING,
          ],
          IN_CLUSTER,
        ),
      /--webhook-cert-file \/nope\.crt: no such file/,
    );
  });

  it('registries: repeatable --registry, AERAKI_REGISTRIES, --registry-output, and the API access kube output needs', () => {
    const none = configOf(TLS);
    assert.deepEqual(none.registries.specs, []);
    assert.equal(none.registries.output, 'kube');
    assert.deepEqual(none.registries.mcpServerAddress, { host: '0.0.0.0', port: 15011 });
    const flags = configOf([
      ...TLS,
      '--registry',
      'zk=zookeeper://zk-0:2181,zk-1:2181/dubbo',
      '--registry=nacos=nacos://nacos:8848?namespace=prod',
      '--registry-output',
      'mcp',
      '--mcp-server-address',
      '127.0.0.1:15099',
    ]);
    assert.deepEqual(
      flags.registries.specs.map((r) => [r.name, r.type, r.servers.join(',')]),
      [
        ['zk', 'zookeeper', 'zk-0:2181,zk-1:2181'],
        ['nacos', 'nacos', 'nacos:8848'],
      ],
    );
    assert.equal(flags.registries.output, 'mcp');
    assert.deepEqual(flags.registries.mcpServerAddress, { host: '127.0.0.1', port: 15099 });
    const env = configOf(TLS, {
      AERAKI_REGISTRIES: 'zk=zookeeper://zk-0:2181,zk-1:2181/dubbo?allow=a.*,b.*,etcd=etcd://etcd:2379',
    });
    assert.deepEqual(
      env.registries.specs.map((r) => [r.name, r.allow]),
      [
        ['zk', ['a.*', 'b.*']],
        ['etcd', []],
      ],
    );
    assert.throws(() => configOf([...TLS, '--registry', 'zk=consul://c']), /unknown registry type "consul"/);
    assert.throws(
      () => configOf([...TLS, '--registry', 'a=etcd://e', '--registry', 'a=etcd://f']),
      /registry a is given twice/,
    );
    // Writing registry ServiceEntries needs the API even when nothing else does.
    const local = [
      '--config-source',
      'dir',
      '--config-dir',
      repoRoot,
      '--output',
      'dir',
      '--output-dir',
      repoRoot,
    ];
    const noCluster = (argv: string[]) => {
      const cmd = addOptions(new Command('serve').exitOverride(), SERVE_ROWS);
      cmd.parse(argv, { from: 'user' });
      return serveConfig(cmd, {}, '1');
    };
    assert.throws(
      () => noCluster([...TLS, ...local, '--registry', 'zk=zookeeper://zk']),
      /--registry-output kube needs the Kubernetes API/,
    );
    assert.equal(
      noCluster([...TLS, ...local, '--registry', 'zk=zookeeper://zk', '--registry-output', 'mcp']).registries
        .output,
      'mcp',
    );
  });

  it('the certificate provider: istiod unless files or development certificates are given; its flags and variables', () => {
    const istiod = configOf([], { POD_NAME: 'aeraki-0' });
    assert.equal(istiod.identity.certProvider, 'istiod');
    assert.equal(istiod.identity.caAddress, 'istiod.istio-system:15012', 'the istiod host on port 15012');
    assert.equal(istiod.identity.caRootCertFile, '/var/run/secrets/istio/root-cert.pem');
    assert.equal(istiod.identity.caTokenFile, '/var/run/secrets/tokens/istio-token');
    assert.equal(istiod.identity.caServerName, 'istiod.istio-system.svc');
    assert.equal(istiod.identity.podNamespace, 'istio-system', 'the root namespace');
    assert.equal(istiod.identity.serviceAccount, 'aeraki');
    assert.equal(istiod.mesh.trustDomain, 'cluster.local');
    assert.equal(istiod.identity.certTtlMs, 86_400_000);
    assert.equal(configOf(TLS).identity.certProvider, 'files');
    assert.equal(configOf(['--dev-certs', '/tmp/certs']).identity.certProvider, 'dev');
    assert.equal(configOf(['--rds-insecure']).identity.certProvider, undefined);
    assert.equal(configOf(['--rds-insecure', '--cert-provider', 'istiod']).identity.certProvider, 'istiod');
    assert.equal(configOf(TLS, { AERAKI_CERT_PROVIDER: 'istiod' }).identity.certProvider, 'istiod');
    const env = configOf([], {
      POD_NAMESPACE: 'mesh-system',
      SERVICE_ACCOUNT: 'aeraki-sa',
      AERAKI_TRUST_DOMAIN: 'corp.example',
      AERAKI_CERT_TTL: '12h',
      AERAKI_CA_ADDRESS: 'ca.example:9443',
      AERAKI_CA_ROOT_CERT_FILE: '/r.pem',
      AERAKI_CA_TOKEN_FILE: '/t',
      AERAKI_CA_SERVER_NAME: 'istiod.mesh-system.svc',
      AERAKI_ISTIOD_ADDR: 'istiod.mesh-system.svc:15010',
    });
    assert.deepEqual(
      [
        env.identity.podNamespace,
        env.identity.serviceAccount,
        env.mesh.trustDomain,
        env.identity.certTtlMs,
        env.identity.caAddress,
      ],
      ['mesh-system', 'aeraki-sa', 'corp.example', 43_200_000, 'ca.example:9443'],
    );
    assert.deepEqual(
      [env.identity.caRootCertFile, env.identity.caTokenFile, env.identity.caServerName],
      ['/r.pem', '/t', 'istiod.mesh-system.svc'],
    );
    assert.equal(
      configOf(['--istiod-address', 'istiod.mesh.svc:15010']).identity.caAddress,
      'istiod.mesh.svc:15012',
    );
    assert.equal(configOf(['--cert-ttl', '10s']).identity.certTtlMs, 10_000);
    assert.throws(() => configOf(['--cert-ttl', '9s']), /at least 10s/);
    assert.throws(() => configOf([], { AERAKI_CERT_TTL: '5m0' }), /AERAKI_CERT_TTL/);
    assert.throws(() => configOf(['--cert-provider', 'vault']), /expected istiod \| files \| dev/);
    assert.throws(() => configOf([], { AERAKI_TRUST_DOMAIN: 'Not A Domain' }), /AERAKI_TRUST_DOMAIN/);
  });

  it('parses durations and Aeraki log levels', () => {
    assert.equal(parseDurationMs('1500ms'), 1500);
    assert.equal(parseDurationMs('2s'), 2000);
    assert.equal(parseDurationMs('1m'), 60_000);
    assert.equal(parseDurationMs('24h'), 86_400_000);
    assert.equal(parseDurationMs('1.5h'), 5_400_000);
    assert.equal(parseLogLevel('warn'), 'warn');
    assert.equal(parseLogLevel('ads:debug,all:error'), 'error');
    assert.equal(parseLogLevel('default:fatal'), 'error');
    assert.throws(() => parseLogLevel('loud'));
  });

  it('the CLI: a bad value exits 2 with a clear message; --help lists the environment names', async () => {
    const bad = await cli(['serve', '--rds-address=nowhere']);
    assert.equal(bad.code, 2);
    assert.match(bad.out, /--rds-address/);
    assert.match(bad.out, /invalid address/);
    const missing = await cli(['serve', '--config-source', 'dir']);
    assert.equal(missing.code, 2);
    assert.match(missing.out, /--config-dir/);
    const help = await cli(['serve', '--help']);
    assert.equal(help.code, 0);
    for (const env of [
      'AERAKI_ISTIOD_ADDR',
      'AERAKI_NAMESPACE',
      'AERAKI_XDS_PORT',
      'AERAKI_LOG_LEVEL',
      'POD_NAME',
    ]) {
      assert.match(help.out.replace(/\s+/g, ' '), new RegExp(`env: ${env}\\]`));
    }
  });
});
