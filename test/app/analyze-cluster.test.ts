// readCluster against the fake kube-apiserver: the objects and facts read (namespaces, pods' proxy images,
// EnvoyFilters, istiod's version), list calls only and paged, a CRD missing and a kind forbidden (each a line of
// `unreadable`, the rest still read), and `-n` limiting the lists.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readCluster } from '../../src/app/analyze-cluster.ts';
import {
  startFakeKubeApiServer,
  writeKubeconfig,
  type FakeKubeApiServer,
} from '../fakes/kube-apiserver/index.ts';
import { seedCluster, ROOT } from './analyze-cluster-seed.ts';

const kindsOf = (raws: unknown[]) =>
  raws.map((r) => {
    const o = r as { kind: string; metadata: { namespace?: string; name: string } };
    return `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`;
  });

describe('readCluster', () => {
  let dir: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'analyze-cluster-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function withApi(
    opts: Parameters<typeof startFakeKubeApiServer>[0],
    fn: (api: FakeKubeApiServer, kubeconfig: string) => Promise<void>,
  ): Promise<void> {
    const api = await startFakeKubeApiServer({ tls: true, ...opts });
    try {
      seedCluster(
        api,
        opts?.omitResources?.includes('metarouters.metaprotocol.aeraki.io') ? ['MetaRouter'] : [],
      );
      await fn(api, writeKubeconfig(api, mkdtempSync(join(dir, 'kc-')), { token: 'analyst' }));
    } finally {
      await api.close();
    }
  }

  it('reads the objects the controller reads and the cluster facts, with list calls only', async () => {
    await withApi({}, async (api, kubeconfig) => {
      const { raws, cluster } = await readCluster({
        kubeconfig,
        context: 'fake',
        allNamespaces: true,
        rootNamespace: ROOT,
      });
      const read = kindsOf(raws);
      for (const want of [
        'ServiceEntry shop/orders',
        'DestinationRule shop/orders',
        'MetaRouter shop/orders',
        'Service web/frontend',
        'ConfigMap istio-system/istio',
      ]) {
        assert.ok(read.includes(want), `${want} in ${read.join(', ')}`);
      }
      assert.ok(!read.some((r) => r.startsWith('ConfigMap web/')), 'only the mesh ConfigMap');
      const svc = raws.find((r) => (r as { kind: string }).kind === 'Service') as { apiVersion: string };
      assert.equal(svc.apiVersion, 'v1');

      assert.deepEqual(
        cluster.namespaces.map((n) => [n.name, n.labels['istio.io/dataplane-mode'] ?? '']),
        [
          ['batch', ''],
          [ROOT, ''],
          ['shop', 'ambient'],
          ['web', ''],
        ],
      );
      const orders = cluster.pods.find((p) => p.name === 'orders-1');
      assert.deepEqual(orders, {
        namespace: 'shop',
        name: 'orders-1',
        labels: { app: 'orders', version: 'v1' },
        proxyImage: 'docker.io/istio/proxyv2:1.24.2',
      });
      assert.equal(
        cluster.pods.find((p) => p.name === 'native-1')?.proxyImage,
        'ghcr.io/aeraki-mesh/meta-protocol-proxy:1.4.2',
      );
      assert.equal(cluster.pods.find((p) => p.name === 'job-1')?.proxyImage, undefined);
      assert.equal(cluster.istiodVersion, '1.24.2');

      const legacy = cluster.envoyFilters.find((f) => f.name === 'legacy-dubbo');
      assert.deepEqual(legacy, {
        namespace: 'web',
        name: 'legacy-dubbo',
        labels: {},
        patches: [
          {
            applyTo: 'NETWORK_FILTER',
            operation: 'REPLACE',
            context: 'SIDECAR_OUTBOUND',
            portNumber: 20880,
            filterName: 'envoy.filters.network.tcp_proxy',
          },
        ],
      });
      const managed = cluster.envoyFilters
        .filter((f) => f.labels['manager'] === 'Aeraki')
        .map((f) => f.source);
      assert.deepEqual(managed.sort(), ['ServiceEntry/elsewhere/x', 'ServiceEntry/shop/gone']);
      assert.deepEqual(cluster.unreadable, []);
      const calls = api.requests.filter((r) => r.verb !== undefined);
      assert.deepEqual([...new Set(calls.map((r) => r.verb))], ['list']);
      // What README's "Against a cluster" tells the user to grant, and nothing else.
      assert.deepEqual([...new Set(calls.map((r) => `${r.group}/${r.resource}`))].sort(), [
        '/configmaps',
        '/namespaces',
        '/pods',
        '/services',
        'apps/deployments',
        'dubbo.aeraki.io/dubboauthorizationpolicies',
        'gateway.networking.k8s.io/gatewayclasses',
        'gateway.networking.k8s.io/gateways',
        'metaprotocol.aeraki.io/applicationprotocols',
        'metaprotocol.aeraki.io/metarouters',
        'networking.istio.io/destinationrules',
        'networking.istio.io/envoyfilters',
        'networking.istio.io/gateways',
        'networking.istio.io/serviceentries',
        'networking.istio.io/virtualservices',
        'redis.aeraki.io/redisdestinations',
        'redis.aeraki.io/redisservices',
      ]);
      const configMaps = calls.filter((r) => r.resource === 'configmaps');
      assert.deepEqual(
        configMaps.map((r) => [r.namespace, r.query['fieldSelector']]),
        [[ROOT, 'metadata.name=istio']],
      );
    });
  });

  it('reads every page', async () => {
    await withApi({}, async (api, kubeconfig) => {
      const whole = await readCluster({ kubeconfig, allNamespaces: true, rootNamespace: ROOT });
      api.clearRequests();
      const paged = await readCluster({ kubeconfig, allNamespaces: true, rootNamespace: ROOT, pageSize: 1 });
      assert.ok(
        api.requests.some((r) => r.query['continue']),
        'continued',
      );
      assert.deepEqual(kindsOf(paged.raws), kindsOf(whole.raws));
      assert.deepEqual(paged.cluster, whole.cluster);
    });
  });

  it('turns a missing CRD and a forbidden kind into unreadable lines and reads the rest', async () => {
    await withApi({ omitResources: ['metarouters.metaprotocol.aeraki.io'] }, async (api, kubeconfig) => {
      api.forbid({ verb: 'list', resource: 'pods' });
      const { raws, cluster } = await readCluster({ kubeconfig, allNamespaces: true, rootNamespace: ROOT });
      const of = (kind: string) => cluster.unreadable.filter((u) => u.kind === kind);
      assert.deepEqual(of('MetaRouter'), [
        {
          kind: 'MetaRouter',
          reason: 'MetaRouter not installed (CRD metarouters.metaprotocol.aeraki.io): read as empty',
        },
      ]);
      assert.equal(of('Pod').length, 1);
      assert.match(
        of('Pod')[0]?.reason ?? '',
        /^forbidden: list pods in all namespaces \(.*verb list on group "" \(core\) resource pods\)/,
      );
      assert.deepEqual(cluster.pods, []);
      assert.ok(kindsOf(raws).includes('ServiceEntry shop/orders'));
      assert.equal(cluster.istiodVersion, '1.24.2');
    });
  });

  it('-n limits the lists to the namespace and the root namespace', async () => {
    await withApi({}, async (api, kubeconfig) => {
      const { raws, cluster } = await readCluster({
        kubeconfig,
        namespace: 'web',
        allNamespaces: false,
        rootNamespace: ROOT,
      });
      assert.deepEqual(
        cluster.namespaces.map((n) => n.name),
        ['web', ROOT],
      );
      assert.deepEqual([...new Set(cluster.pods.map((p) => p.namespace))].sort(), [ROOT, 'web']);
      assert.ok(
        kindsOf(raws).every((r) => / (web|istio-system)\/|^ApplicationProtocol /.test(r)),
        kindsOf(raws).join(),
      );
      // This controller's filters for sources of namespaces not read are left out.
      assert.deepEqual(cluster.envoyFilters.map((f) => f.name).sort(), ['legacy-dubbo']);
      const lists = api.requests.filter((r) => r.verb === 'list' && r.resource === 'pods');
      assert.deepEqual(lists.map((r) => r.namespace).sort(), [ROOT, 'web']);
    });
  });
});
