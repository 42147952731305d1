// `aeraki serve --config-source kube` on clusters that differ from the fake's defaults: without the Redis and Dubbo
// CRDs (ready, filters and routes served, the Redis CRD installed later picked up, a CRD deleted read as empty),
// with a kind forbidden by RBAC (nothing written, /readyz names the rule, one log line however many retries), and
// with discovery failing transiently (nothing emptied).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServe, type RunningServe } from '../../src/app/serve.ts';
import { SOURCE_ANNOTATION } from '../../src/model/constants.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import {
  startFakeKubeApiServer,
  type FakeKubeApiServer,
  type KubeObject,
} from '../fakes/kube-apiserver/index.ts';
import { recordingLogger, type LogRecord } from '../support/recording-logger.ts';
import { serveOptions } from './options.ts';
import { GATEWAY_API_NOT_SERVED, httpGet, waitFor } from './support.ts';

const EF = 'envoyfilters.networking.istio.io';
const RS = 'redisservices.redis.aeraki.io';
const MR = 'metarouters.metaprotocol.aeraki.io';
const NOT_INSTALLED = [
  RS,
  'redisdestinations.redis.aeraki.io',
  'dubboauthorizationpolicies.dubbo.aeraki.io',
  // A cluster older than Kubernetes 1.21: no discovery.k8s.io/v1.
  'endpointslices.discovery.k8s.io',
];
const BACKOFF = { initialMs: 50, maxMs: 200 };
const ORDERS = 'orders.shop.svc.cluster.local';
const REDIS = 'cache.shop.svc.cluster.local';

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

const metaRouter: KubeObject = {
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
};

const redisService: KubeObject = {
  apiVersion: 'redis.aeraki.io/v1alpha1',
  kind: 'RedisService',
  metadata: { namespace: 'shop', name: 'cache' },
  spec: {
    host: [REDIS],
    redis: [{ match: { key: { prefix: 'b:' } }, route: { host: 'backup.example.com' } }],
  },
};

const filtersOf = (api: FakeKubeApiServer, source: string) =>
  api.list(EF).filter((o) => o.metadata.annotations?.[SOURCE_ANNOTATION] === source);

interface Readyz {
  ready: boolean;
  checks: { name: string; ready: boolean; reason?: string; details?: string[] }[];
}

async function readyz(running: RunningServe): Promise<{ status: number; config: Readyz['checks'][number] }> {
  const r = await httpGet(`http://${running.adminAddress}/readyz`);
  const config = (JSON.parse(r.body) as Readyz).checks.find((c) => c.name === 'config')!;
  return { status: r.status, config };
}

function routeJson(running: RunningServe): string {
  const name = [...running.cache.snapshot().resources.keys()].find((n) => n.startsWith(ORDERS));
  return name === undefined ? '' : JSON.stringify(running.cache.snapshot().resources.get(name)?.json);
}

const kubeServe = () =>
  serveOptions({ configSource: 'kube', rdsInsecure: true, leaderElect: false, namespaceBootstrap: false });

describe('aeraki serve: kinds the API server does not serve', () => {
  let api: FakeKubeApiServer;
  let running: RunningServe;
  const records: LogRecord[] = [];

  before(async () => {
    api = await startFakeKubeApiServer({ omitResources: NOT_INSTALLED });
    api.seed([
      serviceEntry('orders', ORDERS, 20880, 'tcp-metaprotocol-dubbo'),
      serviceEntry('cache', REDIS, 6379, 'tcp-redis'),
      metaRouter,
    ]);
    running = await startServe(kubeServe(), {
      logger: recordingLogger(records),
      kubeConfig: fakeKubeConfig(api),
      backoff: BACKOFF,
      discovery: { rediscoverMs: 100 },
    });
  });
  after(async () => {
    await running.stop();
    await api.close();
  });

  it('is ready without the Redis and Dubbo CRDs, writes filters, serves routes and says what is missing', async () => {
    await running.synced;
    await waitFor(() => filtersOf(api, 'ServiceEntry/shop/orders').length > 0, 'filters of shop/orders');
    await waitFor(() => filtersOf(api, 'ServiceEntry/shop/cache').length > 0, 'filters of shop/cache');
    assert.match(routeJson(running), /canary/);
    const r = await readyz(running);
    assert.equal(r.status, 200);
    assert.deepEqual(r.config.details, [
      'DubboAuthorizationPolicy not installed (CRD dubboauthorizationpolicies.dubbo.aeraki.io): read as empty',
      'RedisService not installed (CRD redisservices.redis.aeraki.io): read as empty',
      'RedisDestination not installed (CRD redisdestinations.redis.aeraki.io): read as empty',
      'EndpointSlice not served (endpointslices.discovery.k8s.io): read as empty',
      ...GATEWAY_API_NOT_SERVED,
    ]);
    const metrics = (await httpGet(`http://${running.adminAddress}/metrics`)).body;
    assert.match(
      metrics,
      /^aeraki_config_kind_unavailable\{kind="RedisService",reason="not_installed"\} 1$/m,
    );
    // Said once per kind at warn, however many rediscoveries ran.
    await waitFor(() => discoveries(api, 'redis.aeraki.io') >= 4, 'several rediscoveries');
    const warned = records.filter((l) => l.level === 'warn' && /not installed/.test(l.message));
    assert.deepEqual(warned.map((l) => l.message.split(' ')[0]).sort(), [
      'DubboAuthorizationPolicy',
      'RedisDestination',
      'RedisService',
      // The waypoints' endpoints read WorkloadEntries too (src/controller/endpoints-view.ts).
      'WorkloadEntry',
    ]);
  });

  it('picks up a CRD installed later and uses its objects', async () => {
    const before = JSON.stringify(filtersOf(api, 'ServiceEntry/shop/cache'));
    assert.doesNotMatch(before, /backup\.example\.com/);
    api.installCrd(RS);
    api.seed(redisService);
    await waitFor(
      () => /backup\.example\.com/.test(JSON.stringify(filtersOf(api, 'ServiceEntry/shop/cache'))),
      'the RedisService in the Redis filter',
    );
    const r = await readyz(running);
    assert.ok(!r.config.details?.some((d) => d.startsWith('RedisService ')), JSON.stringify(r.config));
    assert.equal(records.filter((l) => /^RedisService is served now/.test(l.message)).length, 1);
  });

  it('reads a kind whose CRD was deleted as empty, and stays ready', async () => {
    api.uninstallCrd(MR);
    await waitFor(() => !/canary/.test(routeJson(running)), 'the MetaRouter route gone');
    await waitFor(
      async () => (await readyz(running)).config.details?.some((d) => d.startsWith('MetaRouter ')) === true,
      'MetaRouter listed as not installed',
    );
    assert.equal((await readyz(running)).status, 200);
    api.installCrd(MR);
    api.seed(metaRouter);
    await waitFor(() => /canary/.test(routeJson(running)), 'the MetaRouter route back');
  });
});

describe('aeraki serve: a kind forbidden by RBAC', () => {
  it('writes nothing, names the rule in /readyz and one log line, and recovers when granted', async () => {
    const api = await startFakeKubeApiServer();
    api.seed([serviceEntry('orders', ORDERS, 20880, 'tcp-metaprotocol-dubbo'), metaRouter]);
    const denied = api.forbid({ verb: ['list', 'watch'], resource: 'metarouters' });
    const records: LogRecord[] = [];
    const running = await startServe(kubeServe(), {
      logger: recordingLogger(records),
      kubeConfig: fakeKubeConfig(api, { token: 'aeraki' }),
      backoff: BACKOFF,
      discovery: { rediscoverMs: 100, forbiddenBackoff: { initialMs: 20, maxMs: 40 } },
    });
    try {
      await waitFor(() => denied.hits >= 6, 'several retries of the forbidden list');
      const rule =
        'forbidden: list metarouters.metaprotocol.aeraki.io (grant verbs list, watch on group ' +
        'metaprotocol.aeraki.io resource metarouters)';
      const r = await readyz(running);
      assert.equal(r.status, 503);
      assert.equal(r.config.reason, `waiting for kubernetes: MetaRouter ${rule}`);
      assert.deepEqual(r.config.details, [`MetaRouter ${rule}`, ...GATEWAY_API_NOT_SERVED]);
      await running.reconciler.runNow();
      assert.equal(api.writes({ resource: 'envoyfilters' }).length, 0);
      const metrics = (await httpGet(`http://${running.adminAddress}/metrics`)).body;
      assert.match(metrics, /^aeraki_config_kind_unavailable\{kind="MetaRouter",reason="forbidden"\} 1$/m);
      const lines = records.filter((l) => l.level !== 'debug' && l.message.includes('metarouters'));
      assert.deepEqual(
        lines.map((l) => `${l.level} ${l.message}`),
        [`warn ${rule}`],
      );

      denied.remove();
      await waitFor(() => filtersOf(api, 'ServiceEntry/shop/orders').length > 0, 'filters once granted');
      await waitFor(() => /canary/.test(routeJson(running)), 'the MetaRouter route once granted');
      assert.equal((await readyz(running)).status, 200);
      assert.equal(records.filter((l) => /^access to metarouters/.test(l.message)).length, 1);
    } finally {
      await running.stop();
      await api.close();
    }
  });
});

describe('aeraki serve: without the EnvoyFilter CRD', () => {
  it('is not ready and says the CRD is required, then writes once it is installed', async () => {
    const api = await startFakeKubeApiServer({ omitResources: [EF] });
    api.seed([serviceEntry('orders', ORDERS, 20880, 'tcp-metaprotocol-dubbo'), metaRouter]);
    const records: LogRecord[] = [];
    const running = await startServe(kubeServe(), {
      logger: recordingLogger(records),
      kubeConfig: fakeKubeConfig(api),
      backoff: BACKOFF,
      discovery: { rediscoverMs: 100 },
    });
    try {
      await running.synced;
      const message =
        "EnvoyFilter not installed (CRD envoyfilters.networking.istio.io): required, nothing can be written until Istio's CRDs are installed";
      await waitFor(
        async () => (await readyzOutput(running)).reason === message,
        'the output check naming the CRD',
      );
      assert.equal((await httpGet(`http://${running.adminAddress}/readyz`)).status, 503);
      assert.equal(
        records.filter((l) => l.level === 'error' && l.message.startsWith('EnvoyFilter not installed'))
          .length,
        1,
      );
      api.installCrd(EF);
      await waitFor(
        () => filtersOf(api, 'ServiceEntry/shop/orders').length > 0,
        'filters once the CRD is installed',
      );
      await waitFor(async () => (await readyzOutput(running)).ready, 'ready once the CRD is installed');
    } finally {
      await running.stop();
      await api.close();
    }
  });
});

async function readyzOutput(running: RunningServe): Promise<{ ready: boolean; reason?: string }> {
  const r = await httpGet(`http://${running.adminAddress}/readyz`);
  return (JSON.parse(r.body) as Readyz).checks.find((c) => c.name === 'output')!;
}

describe('aeraki serve: API discovery failing transiently', () => {
  it('never reads a served kind as empty because discovery failed', async () => {
    const api = await startFakeKubeApiServer();
    api.seed([serviceEntry('orders', ORDERS, 20880, 'tcp-metaprotocol-dubbo'), metaRouter]);
    // A stale 404 for the MetaRouter group, then three 503s for the Redis group, at start.
    api.faults.inject({ path: /^\/apis\/metaprotocol\.aeraki\.io\/v1alpha1$/, status: 404 });
    api.faults.inject({ path: /^\/apis\/redis\.aeraki\.io\/v1alpha1$/, status: 503, times: 3 });
    const running = await startServe(kubeServe(), {
      logger: recordingLogger(),
      kubeConfig: fakeKubeConfig(api),
      backoff: BACKOFF,
      discovery: { rediscoverMs: 100 },
    });
    let metaRouterDeletes = 0;
    running.store.subscribe((e) => {
      if (e.kind === 'MetaRouter' && e.type === 'deleted') metaRouterDeletes++;
    });
    try {
      await running.synced;
      assert.match(routeJson(running), /canary/);
      assert.deepEqual(
        (await readyz(running)).config.details,
        GATEWAY_API_NOT_SERVED,
        'every other kind is served',
      );
      // While running, lists answer 404 and discovery still serves the group: asked, not emptied.
      const listed = api.faults.inject({
        verb: 'list',
        resource: 'metarouters',
        status: 404,
        times: Infinity,
      });
      const lists = () => api.requests.filter((q) => q.verb === 'list' && q.resource === 'metarouters');
      const asked = discoveries(api, 'metaprotocol.aeraki.io');
      forceRelist(api);
      await waitFor(() => discoveries(api, 'metaprotocol.aeraki.io') > asked, 'discovery asked after a 404');
      listed.remove();
      await waitFor(() => lists().at(-1)?.status === 200, 'the informer listing again');
      // Discovery answers 404 for the group while the API server serves it: the informer relists fine.
      const staleDiscovery = api.faults.inject({
        path: /^\/apis\/metaprotocol\.aeraki\.io\/v1alpha1$/,
        status: 404,
        times: Infinity,
      });
      const before = lists().length;
      forceRelist(api);
      await waitFor(() => lists().length > before, 'another list');
      staleDiscovery.remove();
      assert.equal(metaRouterDeletes, 0);
      assert.match(routeJson(running), /canary/);
      assert.deepEqual((await readyz(running)).config.details, GATEWAY_API_NOT_SERVED);
    } finally {
      await running.stop();
      await api.close();
    }
  });
});

/** Watches resume from a resourceVersion the server forgot (410 Expired), so informers list again. */
function forceRelist(api: FakeKubeApiServer): void {
  api.seed({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace: 'other', name: `bump-${Date.now()}` },
  });
  api.compact();
  api.closeWatches();
}

/** Discovery requests for a group so far. */
function discoveries(api: FakeKubeApiServer, group: string): number {
  return api.requests.filter((r) => r.path.startsWith(`/apis/${group}/`) && r.resource === undefined).length;
}
