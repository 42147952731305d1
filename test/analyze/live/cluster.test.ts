// End to end: readCluster on a seeded fake cluster, then the live analyzers, through the same AnalysisInput the
// command builds.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LIVE_ANALYZERS } from '../../../src/analyze/live/index.ts';
import { DEFAULT_CONTRIB_IMAGES, DEFAULT_META_PROTOCOL_IMAGES } from '../../../src/analyze/proxy-images.ts';
import type { AnalysisInput, ClusterFacts } from '../../../src/analyze/types.ts';
import { analysisInputOf } from '../../../src/app/analyze.ts';
import { analyzeCluster, readCluster } from '../../../src/app/analyze-cluster.ts';
import { refString, type ObjectRef } from '../../../src/model/result.ts';
import {
  startFakeKubeApiServer,
  writeKubeconfig,
  type FakeKubeApiServer,
} from '../../fakes/kube-apiserver/index.ts';
import { ROOT, seedCluster } from '../../app/analyze-cluster-seed.ts';
import { cliArgs, run } from '../../support/process.ts';

/** The input `aeraki analyze` builds from what readCluster read (src/app/analyze.ts, shared with -f). */
function inputOf(raws: unknown[], cluster: ClusterFacts): AnalysisInput {
  return analysisInputOf(
    raws,
    [],
    {
      rootNamespace: ROOT,
      namespaceScope: false,
      vipAllocation: false,
      metaProtocolImages: DEFAULT_META_PROTOCOL_IMAGES,
      contribImages: DEFAULT_CONTRIB_IMAGES,
    },
    cluster,
  );
}

const kafka = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { namespace: 'web', name: 'kafka' },
  spec: { selector: { app: 'frontend' }, clusterIP: '10.96.0.9', ports: [{ name: 'tcp-kafka', port: 9092 }] },
};

/** `AER0101 MetaRouter shop/orders`, sorted. */
function findings(input: AnalysisInput): string[] {
  return LIVE_ANALYZERS.flatMap((a) => a.analyze(input))
    .map((m) => `${m.code.code} ${m.ref ? refString(m.ref) : '-'}`)
    .sort();
}

describe('aeraki analyze against a cluster: readCluster and the live analyzers', () => {
  let dir: string;
  let api: FakeKubeApiServer;
  let kubeconfig: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'analyze-live-'));
    api = await startFakeKubeApiServer({ tls: true });
    seedCluster(api, [], [kafka]);
    kubeconfig = writeKubeconfig(api, dir, { token: 'analyst' });
  });
  after(async () => {
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds what the seeded cluster holds, across all namespaces', async () => {
    const { raws, cluster } = await readCluster({ kubeconfig, allNamespaces: true, rootNamespace: ROOT });
    const input = inputOf(raws, cluster);
    assert.ok(
      input.generated.some((f) => f.source === 'ServiceEntry/shop/orders'),
      'orders is handled',
    );
    assert.deepEqual(findings(input), [
      'AER0101 MetaRouter shop/orders', // subset v2: the only orders pod is v1
      'AER0102 ServiceEntry shop/orders', // shop is ambient, orders-2 has no sidecar
      'AER0103 ServiceEntry shop/orders', // orders-1 and frontend-1 run proxyv2
      'AER0104 Service web/kafka', // frontend-1 (proxyv2) and native-1 (MetaProtocol proxy) lack kafka_broker
      'AER0106 EnvoyFilter istio-system/aeraki-outbound-gone',
      'AER0106 EnvoyFilter istio-system/aeraki-outbound-x',
      'AER0107 EnvoyFilter web/legacy-dubbo', // REPLACE of tcp_proxy on port 20880, outbound only
    ]);
    const proxy = LIVE_ANALYZERS.flatMap((a) => a.analyze(input)).find((m) => m.code.code === 'AER0103');
    assert.match(proxy?.message ?? '', /^2 pod\(s\) \(1 server, 1 client\) in namespace\(s\) shop, web /);
  });

  it('goes on without pods when listing them is forbidden, and says so', async () => {
    const denied = api.forbid({ verb: 'list', resource: 'pods' });
    const noDeployments = api.forbid({ verb: 'list', resource: 'deployments' });
    try {
      const { raws, cluster } = await readCluster({ kubeconfig, allNamespaces: true, rootNamespace: ROOT });
      const got = findings(inputOf(raws, cluster));
      assert.equal(got.filter((f) => f === 'AER0108 -').length, 2, got.join('; '));
      assert.ok(got.includes('AER0109 -'), 'the version could not be read');
      assert.ok(got.includes('AER0107 EnvoyFilter web/legacy-dubbo'));
      assert.ok(!got.some((f) => /^AER010[134]/.test(f)), `no pod findings without pods: ${got.join('; ')}`);
    } finally {
      denied.remove();
      noDeployments.remove();
    }
  });

  it('-n web: only what web and the root namespace hold', async () => {
    const { raws, cluster } = await readCluster({
      kubeconfig,
      namespace: 'web',
      allNamespaces: false,
      rootNamespace: ROOT,
    });
    // orders (shop) is not read: no EnvoyFilter of it to conflict with, and the root filters of other namespaces'
    // sources are left out rather than called orphaned.
    assert.deepEqual(findings(inputOf(raws, cluster)), ['AER0104 Service web/kafka']);
  });
  it('aeraki analyze --kubeconfig -A: the live and offline codes, exit 1 on the errors; -f adds files to the cluster', async () => {
    const r = await run(
      process.execPath,
      cliArgs(['analyze', '--kubeconfig', kubeconfig, '-A', '--root-namespace', ROOT, '-o', 'json']),
      60_000,
    );
    assert.equal(r.code, 1, r.stderr);
    const got = (
      JSON.parse(r.stdout) as { code: string; object: { kind: string; name: string } | null }[]
    ).map((m) => `${m.code} ${m.object ? `${m.object.kind} ${m.object.name}` : '-'}`);
    for (const want of [
      'AER0101 MetaRouter orders',
      'AER0103 ServiceEntry orders',
      'AER0104 Service kafka',
      'AER0107 EnvoyFilter legacy-dubbo',
    ])
      assert.ok(got.includes(want), `${want} in ${got.join('; ')}`);
    // A file naming the subset's pods' version: the cluster's DestinationRule is replaced, AER0101 goes.
    const dr = join(dir, 'dr.yaml');
    writeFileSync(
      dr,
      `apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {namespace: shop, name: orders}
spec:
  host: orders.shop.svc.cluster.local
  subsets: [{name: v2, labels: {version: v1}}]
`,
    );
    const withFile = await run(
      process.execPath,
      cliArgs(['analyze', '--kubeconfig', kubeconfig, '-A', '--root-namespace', ROOT, '-f', dr]),
      60_000,
    );
    assert.doesNotMatch(withFile.stdout, /AER0101/, withFile.stdout);
  });

  it("AER0013: others' relative inserts without a priority, from the cluster, a file's definition winning", async () => {
    const rpcAudit = (priority?: number) => ({
      apiVersion: 'networking.istio.io/v1alpha3',
      kind: 'EnvoyFilter',
      metadata: { namespace: 'web', name: 'rpc-audit' },
      spec: {
        ...(priority !== undefined ? { priority } : {}),
        configPatches: [
          {
            applyTo: 'NETWORK_FILTER',
            match: {
              context: 'SIDECAR_OUTBOUND',
              listener: {
                portNumber: 20880,
                filterChain: { filter: { name: 'envoy.filters.network.tcp_proxy' } },
              },
            },
            patch: { operation: 'INSERT_BEFORE', value: { name: 'envoy.filters.network.rbac' } },
          },
        ],
      },
    });
    api.seed([rpcAudit()]);
    try {
      const options = {
        kubeconfig,
        allNamespaces: true,
        rootNamespace: ROOT,
        namespaceScope: false,
        vipAllocation: false,
        metaProtocolImages: DEFAULT_META_PROTOCOL_IMAGES,
        contribImages: DEFAULT_CONTRIB_IMAGES,
      };
      const aer0013 = (messages: readonly { code: { code: string }; ref?: ObjectRef }[]) =>
        messages.filter((m) => m.code.code === 'AER0013').map((m) => (m.ref ? refString(m.ref) : '-'));
      assert.deepEqual(aer0013(await analyzeCluster({ ...options, files: [] })), [
        'EnvoyFilter web/rpc-audit',
      ]);
      const file = join(dir, 'rpc-audit.yaml');
      writeFileSync(file, JSON.stringify(rpcAudit(10)));
      assert.deepEqual(aer0013(await analyzeCluster({ ...options, files: [file] })), []);
    } finally {
      api.delete('envoyfilters.networking.istio.io', 'web', 'rpc-audit');
    }
  });

  it('aeraki analyze --kubeconfig: a cluster that cannot be reached exits 3, naming it', async () => {
    const gone = join(dir, 'gone.kubeconfig');
    writeFileSync(
      gone,
      `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: 'http://127.0.0.1:9'}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`,
    );
    const r = await run(process.execPath, cliArgs(['analyze', '--kubeconfig', gone]), 60_000);
    assert.equal(r.code, 3, r.stdout + r.stderr);
    assert.match(r.stderr, /cannot read the cluster/);
  });
});
