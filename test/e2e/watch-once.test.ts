// Every resource is watched once per process (kit/kube/informer-hub.ts): in a serve wiring that reads config,
// writes EnvoyFilters, statuses, namespace bootstraps, VIPs and registry ServiceEntries against the fake
// kube-apiserver, the Aeraki CRDs (config source and status targets), the Namespaces (registries and bootstrap)
// and the ServiceEntries (config source and VIP allocator) each get one watch.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServe, type RunningServe } from '../../src/app/serve.ts';
import { parseRegistrySpec } from '../../src/registry/spec.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';
import { FakeRegistryWatcher } from '../fakes/registry/fake-watcher.ts';
import { serveOptions } from './options.ts';
import { waitFor } from './support.ts';

describe('aeraki serve: each resource is watched once', () => {
  let api: FakeKubeApiServer;
  let running: RunningServe;
  let watcher: FakeRegistryWatcher | undefined;
  before(async () => {
    api = await startFakeKubeApiServer();
    const spec = parseRegistrySpec('zk=zookeeper://127.0.0.1:2181/dubbo?debounce=10ms');
    assert.ok(spec.ok);
    running = await startServe(
      serveOptions({
        configSource: 'kube',
        istioApiVersion: 'v1',
        rdsInsecure: true,
        leaderElect: false,
        namespaceBootstrap: true,
        allocateVips: true,
        registries: [spec.value],
        registryOutput: 'kube',
      }),
      {
        logger: silentLogger,
        kubeConfig: fakeKubeConfig(api),
        backoff: { initialMs: 50, maxMs: 200 },
        registryWatcher: (s) => (watcher = new FakeRegistryWatcher(s.name)),
      },
    );
  });
  after(async () => {
    await running.stop();
    await api.close();
  });

  it('opens one watch per resource path and label selector', async () => {
    watcher!.sync();
    const watches = () => api.requests.filter((r) => r.verb === 'watch');
    const paths = () => new Set(watches().map((r) => r.path));
    const expected = [
      '/api/v1/namespaces',
      '/apis/metaprotocol.aeraki.io/v1alpha1/metarouters',
      '/apis/networking.istio.io/v1/serviceentries',
      '/apis/networking.istio.io/v1alpha3/envoyfilters',
    ];
    await waitFor(() => expected.every((p) => paths().has(p)), `watches of ${expected.join(', ')}`);
    await new Promise((r) => setTimeout(r, 300)); // a second reader's watch would open by now
    // Keyed by path and label selector: the waypoint Gateway controller watches only the Services it owns (its own
    // label), a different set from the Kubernetes source's Services.
    const counts = new Map<string, number>();
    for (const r of watches()) {
      const key = r.query['labelSelector'] ? `${r.path}?labelSelector=${r.query['labelSelector']}` : r.path;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const twice = [...counts].filter(([, n]) => n > 1);
    assert.deepEqual(twice, [], `watched more than once: ${JSON.stringify(twice)}`);
    assert.ok(counts.size >= 10, [...counts.keys()].join(', '));
  });
});
