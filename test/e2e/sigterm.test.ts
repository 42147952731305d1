// The real CLI as a child process against the fakes (HTTPS kube-apiserver through a kubeconfig file, istiod over
// plaintext MCP): it becomes leader, writes the EnvoyFilters, answers /readyz and /metrics, and on SIGTERM
// stops gracefully: exit code 0 and the Lease released.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { SOURCE_ANNOTATION } from '../../src/model/constants.ts';
import { se } from '../fakes/istiod/harness.ts';
import { FakeIstiod } from '../fakes/istiod/server.ts';
import { startFakeKubeApiServer, writeKubeconfig } from '../fakes/kube-apiserver/index.ts';
import { bannerPorts, httpGet, runCli, waitFor, type Child } from './support.ts';

const LEASES = 'leases.coordination.k8s.io';
const EF = 'envoyfilters.networking.istio.io';

describe('aeraki serve as a process: SIGTERM', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-sigterm-'));
  const cleanup: (() => unknown)[] = [];
  after(async () => {
    for (const c of cleanup.reverse()) await c();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exits 0 and releases the lease', async () => {
    const api = await startFakeKubeApiServer({ tls: true });
    cleanup.push(() => api.close());
    const istiod = await FakeIstiod.start({ serve: 'v1' });
    cleanup.push(() => istiod.close());
    istiod.set([se('orders')]);
    const kubeconfig = writeKubeconfig(api, dir, { token: 'aeraki' });
    const serve: Child = runCli(
      [
        'serve',
        `--kubeconfig=${kubeconfig}`,
        `--istiod-address=${istiod.address}`,
        '--istiod-tls=false',
        '--rds-insecure',
        '--rds-address=127.0.0.1:0',
        '--http-address=127.0.0.1:0',
        '--debounce-after=50ms',
        '--lease-duration=3s',
        '--renew-deadline=2s',
        '--retry-period=200ms',
      ],
      { POD_NAME: 'aeraki-proc-0', AERAKI_LOG_LEVEL: 'all:info' },
    );
    cleanup.push(() => serve.kill());
    const holder = () =>
      (api.get(LEASES, 'istio-system', 'aeraki-controller')?.spec as { holderIdentity?: string } | undefined)
        ?.holderIdentity;
    await waitFor(() => holder() === 'aeraki-proc-0', `leadership\n${serve.stderr}`);
    await waitFor(
      () =>
        api.list(EF).some((o) => o.metadata.annotations?.[SOURCE_ANNOTATION] === 'ServiceEntry/shop/orders'),
      `EnvoyFilters written\n${serve.stderr}`,
    );
    const ports = bannerPorts(serve.stdout);
    assert.ok(ports, serve.stdout);
    const ready = await httpGet(`http://127.0.0.1:${ports.admin}/readyz`);
    assert.equal(ready.status, 200, ready.body);
    const metrics = await httpGet(`http://127.0.0.1:${ports.admin}/metrics`);
    assert.match(metrics.body, /aeraki_leader 1/);
    assert.match(serve.stderr, /"message":"config synced"/, 'JSON logs by default');

    serve.child.kill('SIGTERM');
    assert.equal(await serve.exited, 0, serve.stderr);
    assert.equal(holder() ?? '', '', 'the lease is released');
    assert.ok(
      api.list(EF).some((o) => o.metadata.annotations?.[SOURCE_ANNOTATION] === 'ServiceEntry/shop/orders'),
      'stopping deletes nothing',
    );
  });
});
