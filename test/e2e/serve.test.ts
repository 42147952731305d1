// End to end, in process: `startServe` with the fake istiod (MCP), the fake kube-apiserver (CRDs, EnvoyFilters,
// Lease, namespaces) and an mTLS RDS client. A Service's synthetic ServiceEntry appears through MCP, its
// EnvoyFilters in the API server and its routes on the RDS stream; a MetaRouter created in the API server
// changes the routes pushed; losing the MCP stream changes nothing; deleting the Service removes its filters;
// /readyz and /metrics answer; stop() releases the lease.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServe, type RunningServe } from '../../src/app/serve.ts';
import { SOURCE_ANNOTATION } from '../../src/model/constants.ts';
import { silentLogger } from '../../src/util/logger.ts';
import type { SotwResponse } from '../../src/tools/rds-codec.ts';
import { se } from '../fakes/istiod/harness.ts';
import { FakeIstiod } from '../fakes/istiod/server.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';
import { ackOf, RdsTestClient, sotwRequest, type RdsTestStream } from '../fakes/rds-client.ts';
import { serveOptions } from './options.ts';
import { httpGet, waitFor } from './support.ts';

const ROOT = 'istio-system';
const EF = 'envoyfilters.networking.istio.io';
const LEASES = 'leases.coordination.k8s.io';
const HOST = 'orders.shop.svc.cluster.local';

const filtersOf = (api: FakeKubeApiServer, source: string) =>
  api.list(EF).filter((o) => o.metadata.annotations?.[SOURCE_ANNOTATION] === source);

describe('aeraki serve end to end (fake istiod + fake kube-apiserver + RDS client)', () => {
  let api: FakeKubeApiServer;
  let istiod: FakeIstiod;
  let running: RunningServe;
  let rds: RdsTestClient;
  const certs = mkdtempSync(path.join(tmpdir(), 'aeraki-e2e-certs-'));

  before(async () => {
    api = await startFakeKubeApiServer();
    istiod = await FakeIstiod.start({ serve: 'v1' });
    api.seed({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'shop', labels: { 'istio-injection': 'enabled' } },
    });
    istiod.set([se('orders')]);
    running = await startServe(
      serveOptions({ istiodAddress: istiod.address, devCertsDir: certs, debugEndpoints: true }),
      {
        logger: silentLogger,
        kubeConfig: fakeKubeConfig(api, { token: 'aeraki' }),
        backoff: { initialMs: 50, maxMs: 200 },
      },
    );
    const paths = running.devCerts!.paths;
    rds = new RdsTestClient(running.rdsPort, {
      ca: readFileSync(paths.ca),
      cert: readFileSync(paths.clientCert),
      key: readFileSync(paths.clientKey),
    });
  });

  after(async () => {
    rds.close();
    await running.stop();
    await istiod.close();
    await api.close();
    rmSync(certs, { recursive: true, force: true });
  });

  it('runs the whole flow', async () => {
    // 1. The Service (synthetic ServiceEntry over MCP) gets EnvoyFilters in the API server.
    await waitFor(() => filtersOf(api, 'ServiceEntry/shop/orders').length > 0, 'EnvoyFilters of shop/orders');
    const written = filtersOf(api, 'ServiceEntry/shop/orders')
      .map((o) => o.metadata.name)
      .sort();
    const lease = () =>
      (api.get(LEASES, ROOT, 'aeraki-controller')?.spec as { holderIdentity?: string } | undefined)
        ?.holderIdentity;
    assert.equal(lease(), 'aeraki-e2e-0');

    // 2. Its routes on an mTLS RDS stream.
    await running.synced;
    const routeName = [...running.cache.snapshot().resources.keys()].find((n) => n.startsWith(HOST));
    assert.ok(routeName, 'a route for the service');
    const stream: RdsTestStream<SotwResponse> = rds.sotw();
    stream.send(sotwRequest([routeName]));
    const first = await stream.next();
    assert.equal(first.resources.length, 1);
    assert.doesNotMatch(JSON.stringify(first.resources[0]?.json), /canary/);
    stream.send(ackOf(first, [routeName]));

    // 3. A MetaRouter created in the API server changes the routes pushed.
    api.seed({
      apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
      kind: 'MetaRouter',
      metadata: { namespace: 'shop', name: 'orders' },
      spec: {
        hosts: [HOST],
        routes: [
          {
            name: 'canary',
            match: { attributes: { 'x-canary': { exact: 'true' } } },
            route: [{ destination: { host: HOST, port: { number: 20880 } } }],
          },
        ],
      },
    });
    const pushed = await stream.next();
    assert.match(JSON.stringify(pushed.resources[0]?.json), /canary/);
    assert.notEqual(pushed.versionInfo, first.versionInfo);
    stream.send(ackOf(pushed, [routeName]));

    // 4. /readyz, /metrics, /debug.
    const admin = `http://${running.adminAddress}`;
    const ready = await httpGet(`${admin}/readyz`);
    assert.equal(ready.status, 200, ready.body);
    await running.reconciler.runNow();
    const metrics = (await httpGet(`${admin}/metrics`)).body;
    assert.match(metrics, /aeraki_reconcile_runs_total\{result="success"\} [1-9]/);
    assert.match(metrics, /aeraki_mcp_connection_state\{state="connected"\} 1/);
    assert.match(metrics, /aeraki_rds_streams 1/);
    assert.match(metrics, /aeraki_leader 1/);
    assert.match(metrics, /aeraki_config_objects\{kind="MetaRouter"\} 1/);
    assert.equal(
      (await httpGet(`${admin}/debug/envoyfilters`)).status,
      404,
      '/debug/* is not on the admin port',
    );
    assert.ok(running.debugAddress?.startsWith('127.0.0.1:'), running.debugAddress);
    const debug = JSON.parse((await httpGet(`http://${running.debugAddress}/debug/envoyfilters`)).body) as {
      diff: { create: string[]; delete: string[]; unchanged: number };
    };
    assert.deepEqual([debug.diff.create, debug.diff.delete], [[], []]);
    assert.ok(debug.diff.unchanged >= written.length);

    // 5. Namespace bootstrap: the injected namespace got its ConfigMap.
    await waitFor(() => api.get('configmaps', 'shop', 'aeraki-bootstrap-config') !== undefined, 'bootstrap');

    // 6. Killing the MCP stream changes nothing: no EnvoyFilter write, no route push.
    const writesBefore = api.writes({ resource: 'envoyfilters' }).length;
    const streamsBefore = istiod.streams.length;
    istiod.refuseStreams = 2;
    istiod.dropStreams();
    await waitFor(
      () => istiod.streams.length > streamsBefore + 2 && istiod.allAnswered(),
      'the MCP client back on a new stream',
    );
    await running.reconciler.runNow();
    assert.equal(api.writes({ resource: 'envoyfilters' }).length, writesBefore);
    assert.deepEqual(
      filtersOf(api, 'ServiceEntry/shop/orders')
        .map((o) => o.metadata.name)
        .sort(),
      written,
    );
    assert.equal(stream.inbox.pending(), 0, 'no push after the reconnect');

    // 7. Deleting the Service removes its EnvoyFilters.
    istiod.remove('ServiceEntry', 'shop', 'orders');
    await waitFor(() => filtersOf(api, 'ServiceEntry/shop/orders').length === 0, 'filters deleted');
    stream.close();

    // 8. A graceful stop releases the lease.
    await running.stop();
    assert.equal(lease() ?? '', '');
    assert.equal((await httpGet(`${admin}/readyz`).catch(() => ({ status: 0 }))).status, 0, 'admin closed');
  });
});
