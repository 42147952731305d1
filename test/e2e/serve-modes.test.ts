// startServe in its other configurations: `--config-source kube` (Istio kinds from the API server; a port nothing
// handles is counted in /metrics), not ready
// while istiod is unreachable (nothing written, /readyz 503 naming the source), and a taken port failing the
// start with a message that names the option.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startServe } from '../../src/app/serve.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';
import { serveOptions } from './options.ts';
import { httpGet, waitFor } from './support.ts';

const EF = 'envoyfilters.networking.istio.io';
const BACKOFF = { initialMs: 50, maxMs: 200 };

const serviceEntry = {
  apiVersion: 'networking.istio.io/v1',
  kind: 'ServiceEntry',
  metadata: { namespace: 'shop', name: 'pay' },
  spec: {
    hosts: ['pay.shop.svc.cluster.local'],
    addresses: ['240.240.0.9'],
    ports: [
      { number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP' },
      { number: 27017, name: 'tcp-mongo', protocol: 'TCP' },
    ],
    resolution: 'STATIC',
  },
};

describe('aeraki serve: other modes and start failures', () => {
  let api: FakeKubeApiServer;
  before(async () => {
    api = await startFakeKubeApiServer();
    api.seed(serviceEntry);
  });
  after(async () => {
    await api.close();
  });

  it('--config-source kube reads the Istio kinds from the API server', async () => {
    const running = await startServe(
      serveOptions({
        configSource: 'kube',
        rdsInsecure: true,
        leaderElect: false,
        namespaceBootstrap: false,
      }),
      { logger: silentLogger, kubeConfig: fakeKubeConfig(api), backoff: BACKOFF },
    );
    try {
      await waitFor(
        () => api.list(EF).some((o) => (o.metadata.name ?? '').includes('pay.shop.svc.cluster.local')),
        'filters of the ServiceEntry read from the API server',
      );
      assert.equal(running.isLeader(), true, 'without leader election the replica writes');
      // The port nothing handles is counted after each generation pass, not logged.
      await running.reconciler.runNow();
      assert.match(
        (await httpGet(`http://${running.adminAddress}/metrics`)).body,
        /^aeraki_unhandled_ports\{protocol="mongo"\} 1$/m,
      );
    } finally {
      await running.stop();
    }
  });

  it('is not ready and writes nothing while istiod cannot be reached', async () => {
    const before = api.writes({ resource: 'envoyfilters' }).length;
    const running = await startServe(
      serveOptions({ istiodAddress: '127.0.0.1:1', rdsInsecure: true, leaderElect: false }),
      { logger: silentLogger, kubeConfig: fakeKubeConfig(api), backoff: BACKOFF },
    );
    try {
      const admin = `http://${running.adminAddress}`;
      const ready = await httpGet(`${admin}/readyz`);
      assert.equal(ready.status, 503);
      assert.match(ready.body, /istiod \(MCP\)/);
      assert.equal((await httpGet(`${admin}/healthz`)).status, 200);
      await running.reconciler.runNow();
      assert.equal(api.writes({ resource: 'envoyfilters' }).length, before);
      assert.match(
        (await httpGet(`${admin}/metrics`)).body,
        /aeraki_reconcile_runs_total\{result="not_synced"\}/,
      );
    } finally {
      await running.stop();
    }
  });

  it('fails the start clearly when a port is taken', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const opts = { logger: silentLogger, kubeConfig: fakeKubeConfig(api), backoff: BACKOFF };
      await assert.rejects(
        startServe(
          serveOptions({ rdsAddress: { host: '127.0.0.1', port }, rdsInsecure: true, configSource: 'kube' }),
          opts,
        ),
        /cannot serve RDS on 127\.0\.0\.1:\d+.*--rds-address/,
      );
      await assert.rejects(
        startServe(
          serveOptions({ httpAddress: { host: '127.0.0.1', port }, rdsInsecure: true, configSource: 'kube' }),
          opts,
        ),
        /admin server: cannot listen on 127\.0\.0\.1:\d+.*--http-address/,
      );
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });
});
