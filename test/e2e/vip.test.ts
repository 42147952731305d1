// startServe with the VIP allocator (`--allocate-vips`, on by default with `--output kube`): an address-less
// ServiceEntry of the API server gets a VIP, and with it the outbound filter `<vip>_<port>` matches.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServe } from '../../src/app/serve.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';
import { serveOptions } from './options.ts';
import { httpGet, waitFor } from './support.ts';

const SE = 'serviceentries.networking.istio.io';
const EF = 'envoyfilters.networking.istio.io';

function serviceEntry(name: string, addresses?: string[]) {
  return {
    apiVersion: 'networking.istio.io/v1',
    kind: 'ServiceEntry',
    metadata: { namespace: 'shop', name },
    spec: {
      hosts: [`${name}.shop.svc.cluster.local`],
      ...(addresses ? { addresses } : {}),
      ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP' }],
      resolution: 'STATIC',
    },
  };
}

describe('aeraki serve: VIP allocation', () => {
  let api: FakeKubeApiServer;
  before(async () => {
    api = await startFakeKubeApiServer();
    api.seed([serviceEntry('pay', ['240.240.0.1']), serviceEntry('cart')]);
  });
  after(async () => {
    await api.close();
  });

  it('writes a VIP into the address-less ServiceEntry; its outbound filter follows', async () => {
    const running = await startServe(
      serveOptions({
        configSource: 'kube',
        rdsInsecure: true,
        leaderElect: false,
        namespaceBootstrap: false,
        allocateVips: true,
      }),
      { logger: silentLogger, kubeConfig: fakeKubeConfig(api), backoff: { initialMs: 50, maxMs: 200 } },
    );
    try {
      await waitFor(
        () =>
          api
            .list(EF)
            .some((o) => (o.metadata.name ?? '').includes('cart.shop.svc.cluster.local-240.240.0.2')),
        'the outbound filter of the allocated VIP',
      );
      assert.deepEqual((api.get(SE, 'shop', 'cart') as any).spec.addresses, ['240.240.0.2']);
      assert.deepEqual((api.get(SE, 'shop', 'pay') as any).spec.addresses, ['240.240.0.1']);
      assert.deepEqual(
        api.writes({ resource: 'serviceentries' }).map((w) => [w.verb, w.name, w.fieldManager]),
        [['update', 'cart', 'Aeraki']],
      );
      const metrics = (await httpGet(`http://${running.adminAddress}/metrics`)).body;
      assert.match(metrics, /aeraki_vips_allocated_total\{reason="unaddressed"\} 1/);
    } finally {
      await running.stop();
    }
  });
});
