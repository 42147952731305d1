// The namespace bootstrap controller against the fake kube-apiserver over real HTTP with client-node.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import protobuf from 'protobufjs';
import {
  BOOTSTRAP_CONFIGMAP_NAME,
  BOOTSTRAP_KEY,
  buildBootstrapConfigMap,
  type BootstrapTarget,
} from '../../src/bootstrap/config.ts';
import { createKubeBootstrapPort } from '../../src/bootstrap/kube.ts';
import {
  NamespaceBootstrapController,
  namespaceInfoOf,
  type NamespaceBootstrapOptions,
  type NamespaceInfo,
} from '../../src/bootstrap/controller.ts';
import { CONTENT_HASH_ANNOTATION } from '../../src/model/constants.ts';
import { applyWrites } from '../../src/kit/apply.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { leaderLoopPart, Runtime } from '../../src/kit/runtime.ts';
import { FakeElector } from '../support/fake-elector.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';

const TARGET: BootstrapTarget = { address: 'aeraki.istio-system', port: 15010 };
const ns = (name: string, labels: Record<string, string> = {}): NamespaceInfo => ({ name, labels });
const NAMESPACES = [
  ns('app', { 'istio-injection': 'enabled' }),
  ns('canary', { 'istio.io/rev': '1-24' }),
  ns('plain'),
  ns('off', { 'istio-injection': 'disabled', 'istio.io/rev': '' }),
];

let api: FakeKubeApiServer;
let clock: ManualClock;
before(async () => {
  api = await startFakeKubeApiServer();
});
after(async () => {
  await api.close();
});
beforeEach(() => {
  clock = new ManualClock(0);
  for (const cm of api.list('configmaps'))
    api.delete('configmaps', cm.metadata.namespace ?? '', cm.metadata.name ?? '');
  api.clearRequests();
});

function controller(o: Partial<NamespaceBootstrapOptions> = {}): NamespaceBootstrapController {
  return new NamespaceBootstrapController({
    port: createKubeBootstrapPort(fakeKubeConfig(api)),
    apply: applyWrites,
    target: TARGET,
    logger: silentLogger,
    resyncMs: 0,
    clock,
    ...o,
  });
}

/** Fires the 0 ms trigger timer and awaits the run it starts (and anything that run caused). */
async function settle(c: NamespaceBootstrapController): Promise<void> {
  clock.advance(0);
  await c.idle();
}

const configMaps = () => api.list('configmaps').filter((c) => c.metadata.name === BOOTSTRAP_CONFIGMAP_NAME);
const cmWrites = () => api.writes({ resource: 'configmaps' });
function bootstrapOf(namespace: string): any {
  const cm = api.get('configmaps', namespace, BOOTSTRAP_CONFIGMAP_NAME) as any;
  assert.ok(cm, `ConfigMap in ${namespace}`);
  return JSON.parse(cm.data[BOOTSTRAP_KEY]);
}

/** Envoy's v3 protos (from @grpc/grpc-js-xds), field names as in JSON (snake_case). */
function envoyRoot(): protobuf.Root {
  const require = createRequire(import.meta.url);
  const deps = path.join(path.dirname(require.resolve('@grpc/grpc-js-xds/package.json')), 'deps');
  const dirs = ['envoy-api', 'xds', 'googleapis', 'protoc-gen-validate'].map((d) => path.join(deps, d));
  const root = new protobuf.Root();
  root.resolvePath = (origin, target) => {
    if (target in protobuf.common) return target;
    if (target === 'google/protobuf/descriptor.proto')
      return require.resolve('protobufjs/google/protobuf/descriptor.proto');
    const hit = dirs.map((d) => path.join(d, target)).find((f) => existsSync(f));
    return hit ?? protobuf.util.path.resolve(origin, target);
  };
  root.loadSync(
    [
      'envoy/config/bootstrap/v3/bootstrap.proto',
      'envoy/extensions/upstreams/http/v3/http_protocol_options.proto',
      'envoy/extensions/transport_sockets/tls/v3/tls.proto',
    ],
    { keepCase: true },
  );
  root.resolveAll();
  return root;
}

const SCALAR_WRAPPERS = /^\.google\.protobuf\.(U?Int(32|64)|Double|Float|Bool|String|Bytes)Value$/;

/** Every key must be a field of the proto message, not deprecated; enums by name; Any by its @type. */
function protoProblems(root: protobuf.Root, type: protobuf.Type, value: any, at: string): string[] {
  const name = type.fullName;
  if (name === '.google.protobuf.Any') {
    const { ['@type']: url, ...rest } = value;
    return protoProblems(root, root.lookupType(String(url).split('/').pop()!), rest, at);
  }
  if (name === '.google.protobuf.Duration')
    return /^\d+(\.\d+)?s$/.test(value) ? [] : [`${at}: bad duration`];
  if (SCALAR_WRAPPERS.test(name)) return typeof value === 'object' ? [`${at}: wrapper expects a scalar`] : [];
  const out: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    const f = type.fields[key];
    if (!f) {
      out.push(`${at}.${key}: no such field in ${name}`);
      continue;
    }
    if (f.options?.['deprecated']) out.push(`${at}.${key}: deprecated`);
    const one = (item: any, p: string): string[] => {
      const t = f.resolvedType;
      if (t instanceof protobuf.Type) return protoProblems(root, t, item, p);
      if (t instanceof protobuf.Enum)
        return item in t.values ? [] : [`${p}: ${String(item)} not in ${t.name}`];
      return [];
    };
    if (f.map) for (const [k, x] of Object.entries(v as object)) out.push(...one(x, `${at}.${key}[${k}]`));
    else if (f.repeated) (v as any[]).forEach((x, i) => out.push(...one(x, `${at}.${key}[${i}]`)));
    else out.push(...one(v, `${at}.${key}`));
  }
  return out;
}

describe('envoyfilter/namespace-bootstrap: ConfigMap content', () => {
  it('is valid JSON defining the aeraki-xds cluster with mTLS through the sidecar SDS secrets', () => {
    const r = buildBootstrapConfigMap('app', TARGET);
    assert.ok(r.ok);
    const cm = r.value;
    assert.equal(cm.metadata.name, 'aeraki-bootstrap-config');
    assert.deepEqual(cm.metadata.labels, { manager: 'Aeraki' });
    assert.match(cm.metadata.annotations[CONTENT_HASH_ANNOTATION]!, /^[0-9a-f]{64}$/);
    const doc = JSON.parse(cm.data[BOOTSTRAP_KEY]!);
    const clusters = doc.static_resources.clusters;
    assert.equal(clusters.length, 1);
    const c = clusters[0];
    assert.equal(c.name, 'aeraki-xds');
    assert.equal(c.type, 'STRICT_DNS');
    assert.equal(c.connect_timeout, '1s');
    assert.deepEqual(c.load_assignment.endpoints[0].lb_endpoints[0].endpoint.address.socket_address, {
      address: 'aeraki.istio-system',
      port_value: 15010,
    });
    const http = c.typed_extension_protocol_options['envoy.extensions.upstreams.http.v3.HttpProtocolOptions'];
    assert.deepEqual(http.explicit_http_config, { http2_protocol_options: {} });
    assert.equal(http.common_http_protocol_options.max_requests_per_connection, 1);
    assert.equal(c.upstream_connection_options.tcp_keepalive.keepalive_time, 300);
    for (const t of c.circuit_breakers.thresholds) {
      assert.equal(t.max_connections, 100000);
      assert.equal(t.max_pending_requests, 100000);
      assert.equal(t.max_requests, 100000);
    }
    assert.deepEqual(
      c.circuit_breakers.thresholds.map((t: any) => t.priority ?? 'DEFAULT'),
      ['DEFAULT', 'HIGH'],
    );
    const tls = c.transport_socket.typed_config;
    assert.equal(
      tls['@type'],
      'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext',
    );
    assert.equal(tls.common_tls_context.tls_certificate_sds_secret_configs[0].name, 'default');
    assert.equal(tls.common_tls_context.validation_context_sds_secret_config.name, 'ROOTCA');
    for (const s of [
      tls.common_tls_context.tls_certificate_sds_secret_configs[0],
      tls.common_tls_context.validation_context_sds_secret_config,
    ]) {
      assert.equal(s.sds_config.api_config_source.grpc_services[0].envoy_grpc.cluster_name, 'sds-grpc');
    }
  });

  it('is a valid Envoy v3 Bootstrap: every field exists in the protos and none is deprecated', () => {
    const root = envoyRoot();
    const Bootstrap = root.lookupType('envoy.config.bootstrap.v3.Bootstrap');
    const r = buildBootstrapConfigMap('app', TARGET);
    assert.ok(r.ok);
    const doc = JSON.parse(r.value.data[BOOTSTRAP_KEY]!);
    assert.deepEqual(protoProblems(root, Bootstrap, doc, 'bootstrap'), []);
    // the checker catches what Aeraki's template used
    const aerakiStyle = {
      static_resources: { clusters: [{ name: 'x', http2_protocol_options: {}, typo: 1 }] },
    };
    assert.deepEqual(protoProblems(root, Bootstrap, aerakiStyle, 'b'), [
      'b.static_resources.clusters[0].http2_protocol_options: deprecated',
      'b.static_resources.clusters[0].typo: no such field in .envoy.config.cluster.v3.Cluster',
    ]);
  });

  it('with a server identity (--cert-provider istiod) also matches the SPIFFE URI SAN, and stays a valid Bootstrap', () => {
    const id = 'spiffe://cluster.local/ns/istio-system/sa/aeraki';
    const r = buildBootstrapConfigMap('app', { ...TARGET, serverIdentity: id });
    assert.ok(r.ok);
    const doc = JSON.parse(r.value.data[BOOTSTRAP_KEY]!);
    const ctx = doc.static_resources.clusters[0].transport_socket.typed_config.common_tls_context;
    assert.equal(ctx.validation_context_sds_secret_config, undefined);
    const combined = ctx.combined_validation_context;
    assert.deepEqual(combined.default_validation_context.match_typed_subject_alt_names, [
      { san_type: 'URI', matcher: { exact: id } },
    ]);
    assert.equal(combined.validation_context_sds_secret_config.name, 'ROOTCA');
    const root = envoyRoot();
    assert.deepEqual(
      protoProblems(root, root.lookupType('envoy.config.bootstrap.v3.Bootstrap'), doc, 'b'),
      [],
    );
    const plain = buildBootstrapConfigMap('app', TARGET);
    assert.ok(plain.ok);
    assert.notEqual(
      plain.value.metadata.annotations[CONTENT_HASH_ANNOTATION],
      r.value.metadata.annotations[CONTENT_HASH_ANNOTATION],
      'an identity change rewrites the ConfigMap',
    );
  });

  it('refuses an address with a port in it or a bad port, instead of writing broken JSON', () => {
    for (const bad of [
      { address: 'aeraki.istio-system:15010', port: 15010 },
      { address: '', port: 15010 },
      { address: 'aeraki', port: 0 },
      { address: 'aeraki', port: 70000 },
      { address: 'aeraki', port: 1.5 },
    ]) {
      const r = buildBootstrapConfigMap('app', bad);
      assert.equal(r.ok, false, JSON.stringify(bad));
      assert.ok(r.issues.length > 0);
    }
    const ipv6 = buildBootstrapConfigMap('app', { address: 'fd00::1', port: 15010 });
    assert.ok(ipv6.ok);
  });

  it('maps informer objects to namespaces', () => {
    assert.deepEqual(
      namespaceInfoOf({ metadata: { name: 'x', labels: { 'istio-injection': 'enabled', n: 1 } } }),
      {
        name: 'x',
        labels: { 'istio-injection': 'enabled' },
      },
    );
    assert.equal(namespaceInfoOf({ metadata: {} }), undefined);
    assert.equal(namespaceInfoOf(null), undefined);
  });
});

describe('envoyfilter/namespace-bootstrap: against the API server', () => {
  it('creates the ConfigMap in labelled namespaces only, and writes nothing when unchanged', async () => {
    const c = controller();
    const r = await c.reconcile(NAMESPACES);
    assert.equal(r.created, 2);
    assert.deepEqual(r.failures, []);
    assert.deepEqual(
      configMaps().map((x) => x.metadata.namespace),
      ['app', 'canary'],
    );
    assert.equal(bootstrapOf('app').static_resources.clusters[0].name, 'aeraki-xds');
    const created = cmWrites();
    assert.deepEqual(
      created.map((w) => [w.verb, w.namespace, w.fieldManager]),
      [
        ['create', 'app', 'aeraki'],
        ['create', 'canary', 'aeraki'],
      ],
    );

    const again = await c.reconcile(NAMESPACES);
    assert.equal(again.unchanged, 2);
    assert.equal(again.created + again.updated + again.deleted, 0);
    assert.equal(cmWrites().length, created.length);
  });

  it('updates every managed ConfigMap when the address or port changes, keeping foreign labels', async () => {
    await controller().reconcile(NAMESPACES);
    const before = api.get('configmaps', 'app', BOOTSTRAP_CONFIGMAP_NAME) as any;
    api.seed({
      ...before,
      metadata: { ...before.metadata, labels: { ...before.metadata.labels, team: 'x' } },
    });

    const moved = controller({ target: { address: 'aeraki.mesh-system', port: 15012 } });
    const r = await moved.reconcile(NAMESPACES);
    assert.equal(r.updated, 2);
    const addr =
      bootstrapOf('canary').static_resources.clusters[0].load_assignment.endpoints[0].lb_endpoints[0].endpoint
        .address.socket_address;
    assert.deepEqual(addr, { address: 'aeraki.mesh-system', port_value: 15012 });
    const after = api.get('configmaps', 'app', BOOTSTRAP_CONFIGMAP_NAME) as any;
    assert.equal(after.metadata.labels.team, 'x');
    assert.notEqual(
      after.metadata.annotations[CONTENT_HASH_ANNOTATION],
      before.metadata.annotations[CONTENT_HASH_ANNOTATION],
    );
    assert.deepEqual(
      cmWrites()
        .filter((w) => w.verb === 'update')
        .map((w) => w.namespace),
      ['app', 'canary'],
    );

    // setTarget at run time does the same through the event path
    moved.setTarget({ address: 'aeraki.mesh-system', port: 15013 });
    await settle(moved);
    assert.equal(
      bootstrapOf('app').static_resources.clusters[0].load_assignment.endpoints[0].lb_endpoints[0].endpoint
        .address.socket_address.port_value,
      15013,
    );
  });

  it('rewrites a hand-edited ConfigMap (content drift)', async () => {
    const c = controller();
    await c.reconcile(NAMESPACES);
    const cm = api.get('configmaps', 'app', BOOTSTRAP_CONFIGMAP_NAME) as any;
    api.seed({ ...cm, data: { [BOOTSTRAP_KEY]: '{}', extra: 'kept' } });
    const r = await c.reconcile(NAMESPACES);
    assert.equal(r.updated, 1);
    const now = api.get('configmaps', 'app', BOOTSTRAP_CONFIGMAP_NAME) as any;
    assert.equal(now.data.extra, 'kept');
    assert.equal(JSON.parse(now.data[BOOTSTRAP_KEY]).static_resources.clusters[0].name, 'aeraki-xds');
  });

  it('event mode: creates on label, deletes on unlabel, ignores unrelated label changes', async () => {
    const c = controller();
    for (const n of NAMESPACES) c.upsertNamespace(n);
    await settle(c);
    assert.equal(configMaps().length, 2);

    const writes = cmWrites().length;
    c.upsertNamespace(ns('app', { 'istio-injection': 'enabled', team: 'a' })); // still wanted
    c.upsertNamespace(ns('plain', { other: 'x' })); // still not wanted
    await settle(c);
    assert.equal(cmWrites().length, writes);

    c.upsertNamespace(ns('app', { team: 'a' }));
    await settle(c);
    assert.deepEqual(
      configMaps().map((x) => x.metadata.namespace),
      ['canary'],
    );
    assert.deepEqual(
      cmWrites()
        .slice(writes)
        .map((w) => [w.verb, w.namespace]),
      [['delete', 'app']],
    );

    c.upsertNamespace(ns('plain', { 'istio.io/rev': 'stable' }));
    await settle(c);
    assert.deepEqual(
      configMaps().map((x) => x.metadata.namespace),
      ['canary', 'plain'],
    );
    await c.stop();
  });

  it('never writes when not the leader, and stops writing when leadership is lost', async () => {
    const follower = controller();
    const runtime = new Runtime({ logger: silentLogger, elector: new FakeElector() });
    await runtime.start(leaderLoopPart('bootstrap', follower));
    for (const ns of NAMESPACES) follower.upsertNamespace(ns);
    follower.trigger();
    await settle(follower);
    assert.deepEqual(clock.pendingDelays(), [], 'a standby has no timer');
    assert.equal(api.requests.filter((q) => q.resource === 'configmaps').length, 0);
    await runtime.stop();

    let stopped: Promise<void> | undefined;
    const losing = controller({
      onWrite: () => {
        stopped ??= losing.stop(); // leadership lost after the first write
      },
    });
    const partial = await losing.reconcile(NAMESPACES);
    await stopped;
    assert.equal(partial.interrupted, true);
    assert.equal(partial.created, 1);
    assert.equal(cmWrites().length, 1);
  });

  it('does nothing before the namespace set is synced', async () => {
    let synced = false;
    const c = controller({ isSynced: () => synced });
    assert.equal((await c.reconcile(NAMESPACES)).skipped, 'not-synced');
    assert.equal(cmWrites().length, 0);
    synced = true;
    c.trigger();
    await settle(c);
    assert.equal(configMaps().length, 2);
  });

  it('leaves foreign ConfigMaps alone, adopts Aeraki-written ones, keeps those of unknown namespaces', async () => {
    api.seed({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: BOOTSTRAP_CONFIGMAP_NAME, namespace: 'app' },
      data: { [BOOTSTRAP_KEY]: '{"hand": "made"}' },
    });
    api.seed(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: BOOTSTRAP_CONFIGMAP_NAME, namespace: 'canary' },
        data: { [BOOTSTRAP_KEY]: '{"old": "aeraki"}' },
      },
      'Aeraki',
    );
    const stale = buildBootstrapConfigMap('gone', TARGET);
    assert.ok(stale.ok);
    api.seed(stale.value as any);
    api.clearRequests();

    const r = await controller().reconcile(NAMESPACES);
    assert.deepEqual(r.conflicts, ['app']);
    assert.equal(r.updated, 1);
    assert.equal(r.deleted, 0);
    assert.equal(
      (api.get('configmaps', 'app', BOOTSTRAP_CONFIGMAP_NAME) as any).data[BOOTSTRAP_KEY],
      '{"hand": "made"}',
    );
    const adopted = api.get('configmaps', 'canary', BOOTSTRAP_CONFIGMAP_NAME) as any;
    assert.equal(adopted.metadata.labels.manager, 'Aeraki');
    assert.equal(bootstrapOf('canary').static_resources.clusters[0].name, 'aeraki-xds');
    assert.ok(api.get('configmaps', 'gone', BOOTSTRAP_CONFIGMAP_NAME));
    // a managed ConfigMap in a known namespace that does not want it is deleted
    const r2 = await controller().reconcile([...NAMESPACES, ns('gone')]);
    assert.equal(r2.deleted, 1);
    assert.equal(api.get('configmaps', 'gone', BOOTSTRAP_CONFIGMAP_NAME), undefined);
  });

  it('retries transient failures with backoff; an invalid target writes nothing', async () => {
    const fault = api.faults.inject({ verb: 'create', resource: 'configmaps', status: 500, times: 1 });
    const c = controller({ retry: { initialMs: 5, maxMs: 20, jitter: 0 } });
    const r = await c.reconcile(NAMESPACES);
    assert.equal(r.failures.length, 1);
    assert.equal(r.failures[0]!.error.transient, true);
    assert.equal(fault.hits, 1);
    assert.equal(configMaps().length, 1);
    assert.deepEqual(clock.pendingDelays(), [5], 'a retry after the first backoff delay');
    clock.advance(5);
    await c.idle();
    assert.equal(configMaps().length, 2, 'the retry created the second ConfigMap');
    assert.equal(clock.pending(), 0, 'no retry after a successful run');
    await c.stop();

    api.clearRequests();
    const bad = controller({ target: { address: 'aeraki:15010', port: 15010 } });
    const rb = await bad.reconcile(NAMESPACES);
    assert.equal(rb.skipped, 'invalid-target');
    assert.match(rb.issues[0]!.message, /not a DNS name or IP address/);
    assert.equal(cmWrites().length, 0);
  });
});

describe('NamespaceBootstrapController refused writes', () => {
  it('retries a write refused with 403 with backoff, not at the next resync, and writes once access returns', async () => {
    const fault = api.faults.inject({ verb: 'create', resource: 'configmaps', forbid: true, times: 3 });
    const c = controller({ retry: { initialMs: 5, maxMs: 20, jitter: 0 } });
    const r = await c.reconcile(NAMESPACES);
    assert.equal(r.failures[0]!.error.code, 403);
    assert.deepEqual(clock.pendingDelays(), [5], 'a retry after the first backoff delay, no resync needed');
    let retries = 0;
    for (
      let [delay] = clock.pendingDelays();
      delay !== undefined && retries < 5;
      [delay] = clock.pendingDelays()
    ) {
      assert.ok(delay <= 20, `retry ${retries} after the capped backoff (${delay} ms)`);
      retries++;
      clock.advance(delay);
      await c.idle();
    }
    assert.ok(retries >= 1);
    assert.equal(fault.hits, 3);
    assert.equal(configMaps().length, 2, 'written once access returned');
    assert.equal(clock.pending(), 0, 'no retry after a successful run');
    await c.stop();
  });
});
