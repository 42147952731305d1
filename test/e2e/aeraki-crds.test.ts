// `aeraki serve --config-source kube` on a cluster migrating from Aeraki: Aeraki 1.4.1's own CRDs installed instead
// of ours (test/fixtures/aeraki-crds/). Its Helm chart serves ApplicationProtocol namespaced, its k8s/crd.yaml
// cluster-scoped (ours); both must work: every kind read, every status written where the CRD puts it, no 404 and no
// stack trace. A CRD without the status subresource gets no status, said once at info.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadAll } from 'js-yaml';
import { startServe, type RunningServe } from '../../src/app/serve.ts';
import type { ConfigKind } from '../../src/model/objects.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import {
  startFakeKubeApiServer,
  type FakeKubeApiServer,
  type KubeObject,
} from '../fakes/kube-apiserver/index.ts';
import { manifestRoles, ungrantedCalls } from '../security/rbac-calls.ts';
import { recordingLogger, type LogRecord } from '../support/recording-logger.ts';
import { serveOptions } from './options.ts';
import { httpGet, waitFor } from './support.ts';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/aeraki-crds');
const OURS = [
  'metarouters.metaprotocol.aeraki.io',
  'applicationprotocols.metaprotocol.aeraki.io',
  'redisservices.redis.aeraki.io',
  'redisdestinations.redis.aeraki.io',
  'dubboauthorizationpolicies.dubbo.aeraki.io',
];
const ORDERS = 'orders.shop.svc.cluster.local';
const REDIS = 'cache.shop.svc.cluster.local';

function aerakiCrds(file: string): KubeObject[] {
  return loadAll(readFileSync(path.join(FIXTURES, file), 'utf8')).filter(
    (d): d is KubeObject => typeof d === 'object' && d !== null,
  );
}

/** The CRD of `plural` without its status subresource (as a hand-trimmed CRD would be). */
function withoutStatus(crds: KubeObject[], plural: string): KubeObject[] {
  return crds.map((c) => {
    if (c.metadata.name !== `${plural}.${String(c['spec'] && (c['spec'] as { group: string }).group)}`)
      return c;
    const copy = structuredClone(c) as KubeObject & { spec: { versions: Record<string, unknown>[] } };
    for (const v of copy.spec.versions) delete v['subresources'];
    return copy;
  });
}

const serviceEntry = (name: string, host: string, port: number, portName: string): KubeObject => ({
  apiVersion: 'networking.istio.io/v1',
  kind: 'ServiceEntry',
  metadata: { namespace: 'shop', name },
  spec: {
    hosts: [host],
    addresses: [`240.240.0.${port % 200}`],
    ports: [{ number: port, name: portName, protocol: 'TCP' }],
    resolution: 'STATIC',
  },
});

interface Seeded {
  readonly kind: ConfigKind;
  readonly plural: string;
  readonly namespace: string;
  readonly name: string;
}

/** One object of every Aeraki kind; the ApplicationProtocol in istio-system when its CRD is namespaced. */
function aerakiObjects(apNamespace: string | undefined): KubeObject[] {
  return [
    {
      apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
      kind: 'MetaRouter',
      metadata: { namespace: 'shop', name: 'orders' },
      spec: {
        hosts: [ORDERS],
        routes: [
          {
            name: 'canary',
            match: { attributes: { 'x-canary': { exact: 'true' } } },
            route: [{ destination: { host: ORDERS, port: { number: 20880 } } }],
          },
        ],
      },
    },
    {
      apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
      kind: 'ApplicationProtocol',
      metadata: { name: 'trpc', ...(apNamespace ? { namespace: apNamespace } : {}) },
      spec: { protocol: 'trpc', codec: 'aeraki.meta_protocol.codec.trpc' },
    },
    {
      apiVersion: 'redis.aeraki.io/v1alpha1',
      kind: 'RedisService',
      metadata: { namespace: 'shop', name: 'cache' },
      spec: {
        host: [REDIS],
        redis: [{ match: { key: { prefix: 'b:' } }, route: { host: 'backup.example.com' } }],
      },
    },
    {
      apiVersion: 'redis.aeraki.io/v1alpha1',
      kind: 'RedisDestination',
      metadata: { namespace: 'shop', name: 'cache' },
      spec: { host: REDIS, trafficPolicy: { connectionPool: { tcp: { maxConnections: 10 } } } },
    },
    {
      apiVersion: 'dubbo.aeraki.io/v1alpha1',
      kind: 'DubboAuthorizationPolicy',
      metadata: { namespace: 'shop', name: 'orders' },
      spec: { action: 'ALLOW', rules: [{ from: [{ source: { namespaces: ['shop'] } }] }] },
    },
  ];
}

function seededOf(apNamespace: string | undefined): Seeded[] {
  return [
    { kind: 'MetaRouter', plural: 'metarouters', namespace: 'shop', name: 'orders' },
    {
      kind: 'ApplicationProtocol',
      plural: 'applicationprotocols',
      namespace: apNamespace ?? '',
      name: 'trpc',
    },
    { kind: 'RedisService', plural: 'redisservices', namespace: 'shop', name: 'cache' },
    { kind: 'RedisDestination', plural: 'redisdestinations', namespace: 'shop', name: 'cache' },
    {
      kind: 'DubboAuthorizationPolicy',
      plural: 'dubboauthorizationpolicies',
      namespace: 'shop',
      name: 'orders',
    },
  ];
}

const kubeServe = () =>
  serveOptions({
    configSource: 'kube',
    rdsInsecure: true,
    leaderElect: false,
    namespaceBootstrap: false,
    debugEndpoints: true,
  });

async function serveWith(crds: KubeObject[], apNamespace: string | undefined, records: LogRecord[]) {
  const api = await startFakeKubeApiServer({ omitResources: OURS });
  api.seed(crds);
  api.seed([
    serviceEntry('orders', ORDERS, 20880, 'tcp-metaprotocol-dubbo'),
    serviceEntry('cache', REDIS, 6379, 'tcp-redis'),
    ...aerakiObjects(apNamespace),
  ]);
  const running = await startServe(kubeServe(), {
    logger: recordingLogger(records),
    kubeConfig: fakeKubeConfig(api),
    backoff: { initialMs: 50, maxMs: 200 },
    discovery: { rediscoverMs: 100 },
  });
  return { api, running };
}

const accepted = (o: KubeObject | undefined): string | undefined =>
  ((o?.['status'] as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).find(
    (c) => c.type === 'Accepted',
  )?.status;

/**
 * The optional kinds read whatever the CRDs installed (kit/kube/kind-informer.ts `optional`): WorkloadEntries for
 * our own waypoints' endpoints and the Gateway API kinds for waypoints; their list answering 404 is how a kind not
 * installed is found (read as empty, listed again later), not an error.
 */
const OPTIONAL_PATHS = new Set([
  '/apis/networking.istio.io/v1/workloadentries',
  '/apis/gateway.networking.k8s.io/v1/gateways',
  '/apis/gateway.networking.k8s.io/v1/gatewayclasses',
]);

/** No request answered 404 but discovery (a group not served) and the optional kinds' lists, and no log line carries a stack. */
function assertClean(api: FakeKubeApiServer, records: LogRecord[]): void {
  const notFound = api.requests.filter(
    (r) => r.status === 404 && r.resource !== undefined && !OPTIONAL_PATHS.has(r.path),
  );
  assert.deepEqual(
    notFound.map((r) => `${r.method} ${r.path}`),
    [],
  );
  const loud = records.filter(
    (l) => l.level !== 'debug' && (JSON.stringify(l.fields).includes('    at ') || /\b404\b/.test(l.message)),
  );
  assert.deepEqual(
    loud.map((l) => `${l.level} ${l.message}`),
    [],
  );
}

for (const variant of [
  {
    name: "Aeraki 1.4.1's Helm chart (ApplicationProtocol namespaced)",
    file: 'helm-chart.yaml',
    ns: 'istio-system',
  },
  {
    name: "Aeraki 1.4.1's k8s/crd.yaml (ApplicationProtocol cluster-scoped)",
    file: 'k8s-crd.yaml',
    ns: undefined,
  },
]) {
  describe(`aeraki serve on ${variant.name}`, () => {
    let api: FakeKubeApiServer;
    let running: RunningServe;
    const records: LogRecord[] = [];

    before(async () => {
      ({ api, running } = await serveWith(aerakiCrds(variant.file), variant.ns, records));
    });
    after(async () => {
      await running.stop();
      await api.close();
    });

    it('reads every kind and writes every status where the CRD puts it, with no 404 and no stack trace', async () => {
      await running.synced;
      const seeded = seededOf(variant.ns);
      for (const s of seeded) {
        assert.ok(running.store.get(s.kind, s.namespace, s.name), `${s.kind} ${s.namespace}/${s.name} read`);
      }
      await waitFor(
        () =>
          seeded.every(
            (s) => accepted(api.get(s.plural + '.' + groupOf(s.kind), s.namespace, s.name)) === 'True',
          ),
        'Accepted on every object',
      );
      const patches = api.requests.filter((r) => r.subresource === 'status' && r.verb === 'patch');
      const ap = patches.filter((r) => r.resource === 'applicationprotocols');
      assert.ok(ap.length > 0);
      for (const r of ap) assert.equal(r.namespace, variant.ns, `${r.method} ${r.path}`);
      // /debug/config shows the object as the API server holds it (namespaced or not).
      const debug = JSON.parse((await httpGet(`http://${running.debugAddress!}/debug/config`)).body) as {
        objects: Record<string, { metadata: { namespace: string; name: string } }[]>;
      };
      assert.deepEqual(
        debug.objects['ApplicationProtocol']?.map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
        [`${variant.ns ?? ''}/trpc`],
      );
      assertClean(api, records);
      // The ClusterRole of manifests/ grants the calls against Aeraki's CRDs too (a namespaced status patch
      // is the same rule as a cluster-scoped one: patch <plural>/status, bound cluster-wide).
      assert.deepEqual(ungrantedCalls(api.requests, manifestRoles()), []);
    });
  });
}

describe('aeraki serve on a CRD without the status subresource', () => {
  it('reads its objects, writes no status for them and says so once at info', async () => {
    const records: LogRecord[] = [];
    const crds = withoutStatus(aerakiCrds('helm-chart.yaml'), 'applicationprotocols');
    const { api, running } = await serveWith(crds, 'istio-system', records);
    try {
      await running.synced;
      assert.ok(running.store.get('ApplicationProtocol', 'istio-system', 'trpc'));
      await waitFor(
        () => accepted(api.get('metarouters.metaprotocol.aeraki.io', 'shop', 'orders')) === 'True',
        'the MetaRouter status',
      );
      // More status runs: a change of the MetaRouter's generation, and its status written again.
      const mr = api.get('metarouters.metaprotocol.aeraki.io', 'shop', 'orders')!;
      api.seed({
        ...mr,
        metadata: { ...mr.metadata, labels: { touched: 'yes' } },
        spec: { ...(mr['spec'] as object), hosts: [ORDERS] },
      });
      await running.reconciler.runNow();
      await waitFor(
        () => records.some((l) => l.message === 'wrote status' && l.fields['kind'] === 'MetaRouter'),
        'a status run',
      );
      const apPatches = api.requests.filter(
        (r) => r.resource === 'applicationprotocols' && r.subresource === 'status',
      );
      assert.deepEqual(apPatches, []);
      const said = records.filter((l) => /applicationprotocols/.test(l.message) && /status/.test(l.message));
      assert.deepEqual(
        said.map((l) => l.level),
        ['info'],
        JSON.stringify(said),
      );
      assertClean(api, records);
    } finally {
      await running.stop();
      await api.close();
    }
  });
});

describe('aeraki serve while our ApplicationProtocol CRD is replaced by the Helm chart of Aeraki', () => {
  it('reads the namespaced objects and writes their status at the namespaced path', async () => {
    const records: LogRecord[] = [];
    const api = await startFakeKubeApiServer();
    const AP = 'applicationprotocols.metaprotocol.aeraki.io';
    api.seed(aerakiObjects(undefined).filter((o) => o.kind === 'ApplicationProtocol'));
    const running = await startServe(kubeServe(), {
      logger: recordingLogger(records),
      kubeConfig: fakeKubeConfig(api),
      backoff: { initialMs: 50, maxMs: 200 },
      discovery: { rediscoverMs: 100 },
    });
    try {
      await running.synced;
      await waitFor(() => accepted(api.get(AP, undefined, 'trpc')) === 'True', 'the cluster-scoped status');
      api.uninstallCrd(AP);
      await waitFor(
        () => running.store.get('ApplicationProtocol', '', 'trpc') === undefined,
        'the object gone',
      );
      api.seed(aerakiCrds('helm-chart.yaml').filter((c) => c.metadata.name === AP));
      api.seed(aerakiObjects('istio-system').filter((o) => o.kind === 'ApplicationProtocol'));
      await waitFor(
        () => running.store.get('ApplicationProtocol', 'istio-system', 'trpc') !== undefined,
        'the namespaced object read',
      );
      await waitFor(() => accepted(api.get(AP, 'istio-system', 'trpc')) === 'True', 'the namespaced status');
      const patches = api.requests.filter((r) => r.resource === 'applicationprotocols' && r.verb === 'patch');
      assert.deepEqual(
        patches.map((r) => [r.namespace ?? '', r.status]),
        [
          ['', 200],
          ['istio-system', 200],
        ],
      );
    } finally {
      await running.stop();
      await api.close();
    }
  });
});

function groupOf(kind: ConfigKind): string {
  if (kind === 'RedisService' || kind === 'RedisDestination') return 'redis.aeraki.io';
  if (kind === 'DubboAuthorizationPolicy') return 'dubbo.aeraki.io';
  return 'metaprotocol.aeraki.io';
}
