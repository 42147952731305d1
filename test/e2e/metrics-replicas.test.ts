// /metrics of two replicas against one fake kube-apiserver and one fake istiod: `aeraki_managed_envoyfilters` is
// the number of managed objects that exist after every run (incremental or full), on the leader and on the standby,
// and after a leader change; `aeraki_config_rejected_objects` is counted by kind.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServe, type RunningServe } from '../../src/app/serve.ts';
import { MANAGER_LABEL } from '../../src/model/constants.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { se } from '../fakes/istiod/harness.ts';
import { FakeIstiod } from '../fakes/istiod/server.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';
import { serveOptions } from './options.ts';
import { httpGet, waitFor } from './support.ts';

const EF = 'envoyfilters.networking.istio.io';

/** The value of one sample line of a Prometheus text exposition, or undefined. */
function sample(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

describe('metrics of two replicas (fake istiod + fake kube-apiserver)', () => {
  let api: FakeKubeApiServer;
  let istiod: FakeIstiod;
  const replicas: RunningServe[] = [];
  const certs = mkdtempSync(path.join(tmpdir(), 'aeraki-e2e-metrics-'));

  const start = (pod: string) =>
    startServe(
      serveOptions({
        istiodAddress: istiod.address,
        devCertsDir: certs,
        podName: pod,
        namespaceBootstrap: false,
        leaseDurationMs: 1000,
        renewDeadlineMs: 700,
        retryPeriodMs: 100,
      }),
      {
        logger: silentLogger,
        kubeConfig: fakeKubeConfig(api, { token: 'aeraki' }),
        backoff: { initialMs: 50, maxMs: 200 },
      },
    );
  const metricsOf = async (r: RunningServe) => (await httpGet(`http://${r.adminAddress}/metrics`)).body;
  const managed = () => api.list(EF).filter((o) => o.metadata.labels?.[MANAGER_LABEL] === 'Aeraki').length;
  const gaugeSettles = (r: RunningServe, want: () => number, what: string) =>
    waitFor(async () => sample(await metricsOf(r), 'aeraki_managed_envoyfilters') === want(), what);

  before(async () => {
    api = await startFakeKubeApiServer();
    istiod = await FakeIstiod.start({ serve: 'v1' });
    istiod.set([se('orders')]);
    replicas.push(await start('aeraki-a'));
    await replicas[0]!.synced;
    replicas.push(await start('aeraki-b'));
  });

  after(async () => {
    for (const r of replicas) await r.stop();
    await istiod.close();
    await api.close();
    rmSync(certs, { recursive: true, force: true });
  });

  it('counts what exists after incremental runs and a leader change, and rejected objects by kind', async () => {
    const [a, b] = [replicas[0]!, replicas[1]!];
    await waitFor(() => managed() > 0, 'the filters of shop/orders');
    const one = managed();
    await gaugeSettles(a, managed, 'the leader counts the filters of one service');
    await gaugeSettles(b, managed, 'the standby counts them too');

    // An incremental run writes the filters of one more service: the gauge is the whole set, not the run's share.
    istiod.upsert(se('payments'));
    await waitFor(() => managed() === 2 * one, 'the filters of shop/payments');
    await a.reconciler.idle();
    await gaugeSettles(a, () => 2 * one, 'the leader after an incremental run');
    await gaugeSettles(b, () => 2 * one, 'the standby after an incremental run');

    // The leader stops (and releases the lease); the standby takes over and removes a deleted service's filters.
    await a.stop();
    replicas.shift();
    istiod.remove('ServiceEntry', 'shop', 'orders');
    await waitFor(() => managed() === one, 'the new leader deletes the filters of shop/orders');
    await gaugeSettles(b, () => one, 'the new leader counts what is left');
    assert.equal(sample(await metricsOf(b), 'aeraki_leader'), 1);

    // A MetaRouter with an invalid host is rejected: counted under its kind, every other kind 0.
    api.seed({
      apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
      kind: 'MetaRouter',
      metadata: { namespace: 'shop', name: 'bad' },
      spec: { hosts: ['not a host'], routes: [{ name: 'r', route: [{ destination: { host: 'x' } }] }] },
    });
    await waitFor(
      async () => sample(await metricsOf(b), 'aeraki_config_rejected_objects{kind="MetaRouter"}') === 1,
      'the rejected MetaRouter counted',
    );
    const text = await metricsOf(b);
    assert.equal(sample(text, 'aeraki_config_rejected_objects{kind="ServiceEntry"}'), 0);
    assert.equal(sample(text, 'aeraki_config_rejected_objects'), undefined, 'no unlabelled sample');
  });
});
