// `aeraki serve --config-source kube` when RBAC refuses a request for a while after start, as it does for a moment
// when a ClusterRole is re-applied: a watch refused with 403 after the first list (the kind is forbidden while
// refused and read again as soon as the watch opens: /readyz back to 200, a later MetaRouter change on RDS, no restart
// and no periodic resync), and EnvoyFilter writes refused with 403 (retried with backoff, counted, named in /readyz
// while the replica stays ready, written once access returns). The periodic resync is off (serveOptions).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
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
const ORDERS = 'orders.shop.svc.cluster.local';
const BACKOFF = { initialMs: 50, maxMs: 200 };

const serviceEntry: KubeObject = {
  apiVersion: 'networking.istio.io/v1',
  kind: 'ServiceEntry',
  metadata: { namespace: 'shop', name: 'orders' },
  spec: {
    hosts: [ORDERS],
    addresses: ['240.240.0.80'],
    ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP' }],
    resolution: 'STATIC',
  },
};

const metaRouter = (route: string): KubeObject => ({
  apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
  kind: 'MetaRouter',
  metadata: { namespace: 'shop', name: 'orders' },
  spec: {
    hosts: [ORDERS],
    routes: [
      {
        name: route,
        match: { attributes: { 'x-canary': { exact: 'true' } } },
        route: [{ destination: { host: ORDERS, port: { number: 20880 } } }],
      },
    ],
  },
});

interface Check {
  name: string;
  ready: boolean;
  reason?: string;
  details?: string[];
}

async function readyz(running: RunningServe): Promise<{ status: number; checks: Check[] }> {
  const r = await httpGet(`http://${running.adminAddress}/readyz`);
  return { status: r.status, checks: (JSON.parse(r.body) as { checks: Check[] }).checks };
}

function routeJson(running: RunningServe): string {
  const name = [...running.cache.snapshot().resources.keys()].find((n) => n.startsWith(ORDERS));
  return name === undefined ? '' : JSON.stringify(running.cache.snapshot().resources.get(name)?.json);
}

const filtersOf = (api: FakeKubeApiServer) =>
  api.list(EF).filter((o) => o.metadata.annotations?.[SOURCE_ANNOTATION] === 'ServiceEntry/shop/orders');

async function serve(api: FakeKubeApiServer, records: LogRecord[]): Promise<RunningServe> {
  return startServe(
    serveOptions({ configSource: 'kube', rdsInsecure: true, leaderElect: false, namespaceBootstrap: false }),
    {
      logger: recordingLogger(records),
      kubeConfig: fakeKubeConfig(api, { token: 'aeraki' }),
      backoff: BACKOFF,
      discovery: { rediscoverMs: 100, forbiddenBackoff: { initialMs: 20, maxMs: 40 } },
    },
  );
}

const said = (records: LogRecord[], pattern: RegExp) =>
  records.filter((l) => l.level !== 'debug' && pattern.test(l.message)).map((l) => `${l.level} ${l.message}`);

describe('aeraki serve: a watch refused with 403 after the first list', () => {
  it('is forbidden while refused, ready again once the watch opens, and a later MetaRouter change reaches RDS', async () => {
    const api = await startFakeKubeApiServer();
    api.seed([serviceEntry, metaRouter('canary')]);
    const records: LogRecord[] = [];
    const running = await serve(api, records);
    try {
      await running.synced;
      await waitFor(() => /canary/.test(routeJson(running)), 'the route at start');
      await waitFor(async () => (await readyz(running)).status === 200, 'ready at start');

      const denied = api.forbid({ verb: 'watch', resource: 'metarouters' });
      api.closeWatches();
      await waitFor(() => denied.hits >= 3, 'several refused re-watches');
      const rule =
        'forbidden: watch metarouters.metaprotocol.aeraki.io (grant verbs list, watch on group ' +
        'metaprotocol.aeraki.io resource metarouters)';
      const refused = await readyz(running);
      assert.equal(refused.status, 503);
      assert.equal(
        refused.checks.find((c) => c.name === 'config')?.reason,
        `waiting for kubernetes: MetaRouter ${rule}`,
      );

      denied.remove();
      await waitFor(async () => (await readyz(running)).status === 200, 'ready once the watch opens again');
      assert.deepEqual(
        (await readyz(running)).checks.find((c) => c.name === 'config')?.details,
        GATEWAY_API_NOT_SERVED,
      );
      api.seed(metaRouter('canary-v2'));
      await waitFor(() => /canary-v2/.test(routeJson(running)), 'the change after access returned on RDS');
      assert.deepEqual(said(records, /metarouters/), [
        `warn ${rule}`,
        'info access to metarouters.metaprotocol.aeraki.io granted: reading MetaRouter',
      ]);
    } finally {
      await running.stop();
      await api.close();
    }
  });
});

describe('aeraki serve: EnvoyFilter writes refused with 403', () => {
  it('retries with backoff, counts them, says so in /readyz while ready, and writes once access returns', async () => {
    const api = await startFakeKubeApiServer();
    api.seed([serviceEntry, metaRouter('canary')]);
    const denied = api.forbid({ verb: 'create', resource: 'envoyfilters' });
    const records: LogRecord[] = [];
    const running = await serve(api, records);
    let refusedRuns = 0;
    running.reconciler.onRun((run) => {
      if (run.failures.length > 0) refusedRuns++;
    });
    try {
      await running.synced;
      // Each run refuses every create; the retries come from the backoff (the resync is off, nothing changes).
      await waitFor(() => refusedRuns >= 3, 'three runs refused, one after the other');
      assert.equal(filtersOf(api).length, 0);
      assert.match(routeJson(running), /canary/, 'routes still served');
      const r = await readyz(running);
      assert.equal(r.status, 200);
      const output = r.checks.find((c) => c.name === 'output');
      assert.equal(output?.ready, true);
      assert.equal(output?.details?.length, 1);
      assert.match(
        output?.details?.[0] ?? '',
        /^create envoyfilters\.networking\.istio\.io refused \(HTTP 403\): grant verb create on group networking\.istio\.io resource envoyfilters \(\d+ EnvoyFilters|EnvoyFilter \S+\); retrying with backoff, routes still served$/,
      );
      const metrics = (await httpGet(`http://${running.adminAddress}/metrics`)).body;
      const counted =
        /^aeraki_write_refusals_total\{kind="EnvoyFilter",verb="create",code="403"\} (\d+)$/m.exec(metrics);
      assert.ok(
        counted && Number(counted[1]) >= 3,
        metrics
          .split('\n')
          .filter((l) => l.includes('refusals'))
          .join('\n'),
      );

      denied.remove();
      await waitFor(() => filtersOf(api).length > 0, 'filters written once access returns');
      await waitFor(
        async () => (await readyz(running)).checks.find((c) => c.name === 'output')?.details === undefined,
        'the detail cleared',
      );
      assert.deepEqual(said(records, /envoyfilters/), [
        'warn create envoyfilters.networking.istio.io refused (HTTP 403): grant verb create on group ' +
          'networking.istio.io resource envoyfilters; retrying with backoff',
        'info create envoyfilters.networking.istio.io accepted again (was refused with HTTP 403)',
      ]);
    } finally {
      await running.stop();
      await api.close();
    }
  });
});
