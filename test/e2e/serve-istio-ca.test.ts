// `aeraki serve --cert-provider istiod` in process, with the fake Istio CA down at start: /readyz says why until
// the first certificate arrives, then serve becomes ready; the MCP client presents the certificate to an istiod
// that requires one; the bootstrap ConfigMap pins the controller's SPIFFE ID; the certificate metrics are exported.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServe, type RunningServe } from '../../src/app/serve.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { caFiles, IDENTITY, type CaFiles } from '../fakes/istio-ca/harness.ts';
import { FakeIstioCa } from '../fakes/istio-ca/server.ts';
import { FakeIstiod } from '../fakes/istiod/server.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';
import { testCa } from '../fakes/test-ca.ts';
import { serveOptions } from './options.ts';
import { httpGet, waitFor } from './support.ts';

interface Readyz {
  ready: boolean;
  checks: { name: string; ready: boolean; reason?: string }[];
}

describe('aeraki serve --cert-provider istiod', () => {
  let api: FakeKubeApiServer;
  let ca: FakeIstioCa;
  let istiod: FakeIstiod;
  let files: CaFiles;
  let running: RunningServe;
  const readyz = async () =>
    JSON.parse((await httpGet(`http://${running.adminAddress}/readyz`)).body) as Readyz;

  before(async () => {
    api = await startFakeKubeApiServer();
    api.seed({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'shop', labels: { 'istio-injection': 'enabled' } },
    });
    ca = await FakeIstioCa.start();
    ca.unavailable = true;
    files = caFiles(ca);
    const mesh = testCa();
    istiod = await FakeIstiod.start({
      serve: 'v1',
      tls: { key: Buffer.from(mesh.serverKey), cert: Buffer.from(mesh.serverCert) },
      clientCa: Buffer.from(mesh.ca),
    });
    running = await startServe(
      serveOptions({
        istiodAddress: istiod.address,
        istiodTls: true,
        istiodRootCertFile: files.rootFile,
        certProvider: 'istiod',
        caAddress: ca.address,
        caRootCertFile: files.rootFile,
        caTokenFile: files.tokenFile,
        caServerName: ca.serverName,
        leaderElect: false,
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
    ca.close();
    await api.close();
    files.remove();
  });

  it('is not ready while the CA is down, saying why; becomes ready once the certificate arrives', async () => {
    await waitFor(() => ca.requests.length >= 2, 'attempts against the unavailable CA');
    const waiting = await readyz();
    assert.equal(waiting.ready, false);
    const cert = waiting.checks.find((c) => c.name === 'certificate')!;
    assert.equal(cert.ready, false);
    assert.match(
      cert.reason ?? '',
      /waiting for the first certificate \(istiod\): 127\.0\.0\.1:\d+: .*unavailable/,
    );
    assert.equal(
      istiod.streams.filter((s) => s.open).length,
      0,
      'istiod refuses the MCP client without a certificate',
    );

    ca.unavailable = false;
    await waitFor(async () => (await readyz()).ready, '/readyz 200 once the certificate arrived');
    assert.ok(
      istiod.streams.some((s) => s.peer === IDENTITY),
      'the MCP client presented the certificate',
    );
  });

  it('pins the SPIFFE ID in the bootstrap ConfigMap and exports the certificate metrics', async () => {
    await waitFor(() => api.get('configmaps', 'shop', 'aeraki-bootstrap-config') !== undefined, 'bootstrap');
    const cm = api.get('configmaps', 'shop', 'aeraki-bootstrap-config') as unknown as {
      data: Record<string, string>;
    };
    const doc = JSON.parse(cm.data['custom_bootstrap.json']!);
    const ctx = doc.static_resources.clusters[0].transport_socket.typed_config.common_tls_context;
    assert.deepEqual(
      ctx.combined_validation_context.default_validation_context.match_typed_subject_alt_names,
      [{ san_type: 'URI', matcher: { exact: IDENTITY } }],
    );
    const metrics = (await httpGet(`http://${running.adminAddress}/metrics`)).body;
    const value = (line: string) => Number(new RegExp(`^${line} (\\S+)$`, 'm').exec(metrics)?.[1]);
    assert.ok(value('aeraki_cert_renewals_total\\{result="failure"\\}') >= 2);
    assert.equal(value('aeraki_cert_renewals_total\\{result="success"\\}'), 1);
    const issued = ca.requests.filter((r) => r.outcome === IDENTITY);
    assert.equal(issued.length, 1);
    const expiry = value('aeraki_cert_expiry_timestamp_seconds');
    assert.ok(Math.abs(expiry - (Date.now() / 1000 + 86_400)) < 600, String(expiry));
  });
});
