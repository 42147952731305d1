// D16 end to end, in process, over MCP: istiod's synthetic ServiceEntry of a Kubernetes Service carries no
// targetPort, so `serve` reads the Service's EndpointSlices from the API server; the inbound filter written (with
// the RBAC filter of a DENY DubboAuthorizationPolicy) matches the port the pods receive on, and follows a slice
// change; the filter's name keeps the service port.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServe, type RunningServe } from '../../src/app/serve.ts';
import { serviceEntry } from '../support/builders.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { FakeIstiod } from '../fakes/istiod/server.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';
import { serveOptions } from './options.ts';
import { waitFor } from './support.ts';

const EF = 'envoyfilters.networking.istio.io';
const INBOUND = 'aeraki-inbound-ledger.pay.svc.cluster.local-20880';

const synthetic = serviceEntry(
  'pay',
  'synthetic-ledger',
  {
    hosts: ['ledger.pay.svc.cluster.local'],
    addresses: ['10.96.0.2'],
    ports: [{ number: 20880, name: 'tcp-dubbo', protocol: 'TCP' }],
    workloadSelector: { labels: { app: 'ledger' } },
    resolution: 'STATIC',
  },
  { resourceVersion: '' },
);

const slice = (port: number) => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { namespace: 'pay', name: 'ledger-abcde', labels: { 'kubernetes.io/service-name': 'ledger' } },
  addressType: 'IPv4',
  endpoints: [{ addresses: ['10.244.0.7'] }],
  ports: [{ name: 'tcp-dubbo', port, protocol: 'TCP' }],
});

interface Patch {
  match: { listener: { name: string; filterChain: { destinationPort?: number } } };
  patch: { value: unknown };
}

const inboundPatches = (api: FakeKubeApiServer): Patch[] | undefined =>
  (api.get(EF, 'istio-system', INBOUND)?.spec as { configPatches: Patch[] } | undefined)?.configPatches;

const ports = (api: FakeKubeApiServer) =>
  inboundPatches(api)?.map((p) => p.match.listener.filterChain.destinationPort);

describe('aeraki serve over MCP: inbound filters on the ports the EndpointSlices give (D16)', () => {
  let api: FakeKubeApiServer;
  let istiod: FakeIstiod;
  let running: RunningServe;

  before(async () => {
    api = await startFakeKubeApiServer();
    istiod = await FakeIstiod.start({ serve: 'v1' });
    api.seed([
      slice(20882),
      {
        apiVersion: 'dubbo.aeraki.io/v1alpha1',
        kind: 'DubboAuthorizationPolicy',
        metadata: { namespace: 'pay', name: 'deny-batch' },
        spec: { action: 'DENY', rules: [{ from: [{ source: { namespaces: ['batch'] } }] }] },
      },
    ]);
    istiod.set([synthetic]);
    running = await startServe(
      serveOptions({
        istiodAddress: istiod.address,
        rdsInsecure: true,
        leaderElect: false,
        namespaceBootstrap: false,
      }),
      { logger: silentLogger, kubeConfig: fakeKubeConfig(api), backoff: { initialMs: 50, maxMs: 200 } },
    );
  });

  after(async () => {
    await running.stop();
    await istiod.close();
    await api.close();
  });

  it('matches the slice port with the RBAC filter, and follows a slice change', async () => {
    await waitFor(() => ports(api)?.[0] === 20882, 'the inbound filter on 20882');
    const value = JSON.stringify(inboundPatches(api)?.[0]?.patch.value);
    assert.ok(value.includes('envoy.filters.dubbo.rbac') && value.includes('"action":"DENY"'), value);
    assert.ok(value.includes('inbound|20882||'), 'routes to the cluster a sidecar builds for 20882');
    const lists = api.requests.filter((r) => r.resource === 'endpointslices' && r.verb === 'list');
    assert.ok(lists.length > 0, 'EndpointSlices listed');

    api.seed(slice(20883));
    await waitFor(() => ports(api)?.[0] === 20883, 'the inbound filter on 20883 after the slice change');
    assert.deepEqual(ports(api), [20883]);
  });
});
