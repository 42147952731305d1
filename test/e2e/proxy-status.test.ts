// `aeraki serve --output kube` in process with proxy status on: the fake istiod (MCP over TLS, authenticated by the
// controller's token, which it maps to the root namespace) reports a proxy rejecting the listener an EnvoyFilter
// of the controller patches, in the form the newest istiod gives rejection details in (`istio.io/debug` + `syncz`:
// its /debug/syncz JSON with the NACK's message; its `istio.io/debug/syncz` says only "stale"); the Warning Event lands on the ServiceEntry in the (fake) API server, the metric on
// /metrics, the rejection in /debug/proxies and in `aeraki proxy-status`; once istiod reports the proxy SYNCED,
// the rejection clears.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServe, type RunningServe } from '../../src/app/serve.ts';
import { SOURCE_ANNOTATION } from '../../src/model/constants.ts';
import type { ProxiesDocument } from '../../src/tools/proxies-document.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { se } from '../fakes/istiod/harness.ts';
import { FakeIstiod } from '../fakes/istiod/server.ts';
import { proxyId } from '../fakes/istiod/syncz.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';
import { testCa } from '../fakes/test-ca.ts';
import { serveOptions } from './options.ts';
import { httpGet, runCli, waitFor } from './support.ts';

const EF = 'envoyfilters.networking.istio.io';
const EV = { group: 'events.k8s.io', resource: 'events' };
const SOURCE = 'ServiceEntry/shop/orders';
const PROXY = proxyId('web-1', 'web');

interface EventLike {
  reason?: string;
  type?: string;
  note?: string;
  regarding?: { kind?: string; namespace?: string; name?: string };
}

describe('aeraki serve: listener rejections istiod reports, end to end', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-e2e-pstatus-'));
  let api: FakeKubeApiServer;
  let istiod: FakeIstiod;
  let running: RunningServe;
  const metric = async (): Promise<number | undefined> => {
    const text = (await httpGet(`http://${running.adminAddress}/metrics`)).body;
    const m = /^aeraki_listener_rejecting_proxies\{reason="ProxyRejected"\} (\S+)$/m.exec(text);
    return m ? Number(m[1]) : undefined;
  };
  const proxiesDoc = async (): Promise<ProxiesDocument> =>
    JSON.parse((await httpGet(`http://${running.debugAddress}/debug/proxies`)).body) as ProxiesDocument;

  before(async () => {
    api = await startFakeKubeApiServer();
    api.seed({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'shop', labels: { 'istio-injection': 'enabled' } },
    });
    const mesh = testCa();
    writeFileSync(path.join(dir, 'root.pem'), mesh.ca);
    writeFileSync(path.join(dir, 'token'), 'aeraki-token');
    istiod = await FakeIstiod.start({
      serve: 'v1',
      tls: { key: Buffer.from(mesh.serverKey), cert: Buffer.from(mesh.serverCert) },
    });
    istiod.syncz.tokens.set('aeraki-token', 'istio-system');
    // The newest istiod: no ERROR in istio.io/debug/syncz; the NACK's message only in the detailed form.
    istiod.syncz.mode = 'newest';
    istiod.set([se('orders')]);
    running = await startServe(
      serveOptions({
        istiodAddress: `localhost:${istiod.port}`,
        istiodTls: true,
        istiodRootCertFile: path.join(dir, 'root.pem'),
        istiodTokenFile: path.join(dir, 'token'),
        devCertsDir: path.join(dir, 'certs'),
        leaderElect: false,
        debugEndpoints: true,
        proxyStatusIntervalMs: 200,
      }),
      {
        logger: silentLogger,
        kubeConfig: fakeKubeConfig(api, { token: 'aeraki' }),
        backoff: { initialMs: 50, maxMs: 200 },
      },
    );
  });

  after(async () => {
    await running.stop();
    await istiod.close();
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports the rejection on the ServiceEntry, in the metric and /debug/proxies, and clears it', async () => {
    // The listener the controller's EnvoyFilter for shop/orders patches.
    await waitFor(
      () => api.list(EF).some((o) => o.metadata.annotations?.[SOURCE_ANNOTATION] === SOURCE),
      'the EnvoyFilters of shop/orders',
    );
    const filters = JSON.stringify(api.list(EF).map((o) => o.spec));
    assert.match(filters, /10\.0\.0\.1_20880/);
    const error = 'Error adding/updating listener(s) 10.0.0.1_20880: proto constraint validation failed';
    istiod.syncz.proxies = [
      { id: PROXY, namespace: 'web', lds: 'ERROR', ldsError: error },
      { id: proxyId('web-2', 'web'), namespace: 'web', lds: 'SYNCED' },
      // A listener no EnvoyFilter of the controller patches: not its business.
      {
        id: proxyId('db-1', 'db'),
        namespace: 'db',
        lds: 'ERROR',
        ldsError: 'Error adding/updating listener(s) 10.9.9.9_5432: x',
      },
    ];

    const rejectedEvents = () =>
      (api.list(EV) as unknown as EventLike[]).filter((e) => e.reason === 'ProxyRejected');
    await waitFor(() => rejectedEvents().length === 1, 'the ProxyRejected Event');
    const [event] = rejectedEvents();
    assert.equal(event?.type, 'Warning');
    assert.deepEqual(
      [event?.regarding?.kind, event?.regarding?.namespace, event?.regarding?.name],
      ['ServiceEntry', 'shop', 'orders'],
    );
    assert.match(event?.note ?? '', /1 proxy in namespace web/);
    assert.ok(event?.note?.includes(`${PROXY}: ${error}`), event?.note);
    await waitFor(async () => (await metric()) === 1, 'aeraki_listener_rejecting_proxies 1');

    const doc = await proxiesDoc();
    assert.equal(doc.listenerRejections?.state, 'answering');
    assert.equal(doc.listenerRejections?.proxiesReported, 3);
    assert.deepEqual(doc.listenerRejections?.proxies, [
      {
        id: PROXY,
        namespace: 'web',
        reason: 'ProxyRejected',
        listeners: ['10.0.0.1_20880'],
        errorDetail: error,
        sources: [SOURCE],
      },
    ]);
    assert.deepEqual(
      doc.listenerRejections?.sources.map((s) => [s.source, s.proxies]),
      [[SOURCE, 1]],
    );
    const cli = runCli(['proxy-status', `--debug-address=${running.debugAddress ?? ''}`]);
    assert.equal(await cli.exited, 0, cli.stderr);
    assert.match(cli.stdout, /^ServiceEntry\/shop\/orders\s+\S+\s+\S+\s+0\s+1\s+web-1\.web: Error adding/m);

    // The proxy took the listener: SYNCED, and the rejection clears.
    istiod.syncz.proxies = [
      { id: PROXY, namespace: 'web', lds: 'SYNCED' },
      { id: proxyId('web-2', 'web'), namespace: 'web', lds: 'SYNCED' },
    ];
    await waitFor(async () => (await metric()) === 0, 'aeraki_listener_rejecting_proxies back to 0');
    const cleared = await proxiesDoc();
    assert.deepEqual(cleared.listenerRejections?.proxies, []);
    assert.deepEqual(cleared.listenerRejections?.sources, []);
    assert.equal(rejectedEvents().length, 1, 'no new Event');
    assert.equal(
      istiod.requests.filter((r) => r.kind === 'debug').length > 1,
      true,
      'asked periodically on its own stream',
    );
    assert.ok(
      istiod.requests.filter((r) => r.kind === 'debug').every((r) => r.typeUrl === 'istio.io/debug'),
      'every question in the detailed form',
    );
  });
});
