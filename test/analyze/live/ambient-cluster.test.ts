// Ambient inputs read from a cluster by `aeraki analyze` (fake kube-apiserver): the Namespaces' labels and the Gateway
// API Gateways reach the binding, so AER0102 names the waypoint and the flag; a cluster without the Gateway API CRDs
// has no waypoints and no gap to report (no AER0108 line for them).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_CONTRIB_IMAGES, DEFAULT_META_PROTOCOL_IMAGES } from '../../../src/analyze/proxy-images.ts';
import { analyzeCluster } from '../../../src/app/analyze-cluster.ts';
import { startFakeKubeApiServer, writeKubeconfig } from '../../fakes/kube-apiserver/index.ts';
import { ROOT, seedCluster } from '../../app/analyze-cluster-seed.ts';

const OPTIONS = {
  rootNamespace: ROOT,
  namespaceScope: false,
  vipAllocation: false,
  metaProtocolImages: DEFAULT_META_PROTOCOL_IMAGES,
  contribImages: DEFAULT_CONTRIB_IMAGES,
  allNamespaces: true,
  files: [],
};

const WAYPOINT = {
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'Gateway',
  metadata: { namespace: 'shop', name: 'waypoint' },
  spec: {
    gatewayClassName: 'istio-waypoint',
    listeners: [{ name: 'mesh', port: 15008, protocol: 'HBONE' }],
  },
  status: { addresses: [{ type: 'IPAddress', value: '10.96.0.20' }] },
};

describe('aeraki analyze against a cluster: ambient inputs', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'analyze-ambient-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function analyze(gatewayApi: boolean, waypointFilters: boolean) {
    const api = await startFakeKubeApiServer({ tls: true });
    try {
      if (gatewayApi) {
        const group = 'gateway.networking.k8s.io';
        api.register({ group, versions: ['v1'], kind: 'Gateway', plural: 'gateways', namespaced: true });
        api.register({
          group,
          versions: ['v1'],
          kind: 'GatewayClass',
          plural: 'gatewayclasses',
          namespaced: false,
        });
      }
      seedCluster(api, [], gatewayApi ? [WAYPOINT] : []);
      const kubeconfig = writeKubeconfig(api, mkdtempSync(join(dir, 'kc-')), { token: 'analyst' });
      return await analyzeCluster({ ...OPTIONS, kubeconfig, waypointFilters });
    } finally {
      await api.close();
    }
  }

  it('without the Gateway API CRDs: no waypoint, no unreadable line, AER0102 says to turn the flag on and bind', async () => {
    const messages = await analyze(false, false);
    assert.ok(
      !messages.some((m) => m.code.code === 'AER0108'),
      JSON.stringify(messages.map((m) => m.message)),
    );
    const ambient = messages.filter((m) => m.code.code === 'AER0102');
    assert.equal(ambient.length, 1);
    assert.match(
      ambient[0]!.message,
      /turn on --waypoint-envoyfilters and bind it to waypoint shop\/waypoint: .* after creating it/,
    );
  });

  it('with a waypoint Gateway in the namespace: the flag on names it, without creating it', async () => {
    const messages = await analyze(true, true);
    const ambient = messages.filter((m) => m.code.code === 'AER0102');
    assert.equal(ambient.length, 1);
    assert.match(
      ambient[0]!.message,
      /; bind it to waypoint shop\/waypoint: label it or namespace shop istio.io\/use-waypoint=waypoint$/,
    );
  });
});
