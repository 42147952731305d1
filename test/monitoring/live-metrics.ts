// A live `/metrics` of `aeraki serve` started in process with every part that exports metrics: MCP from a fake
// istiod (one MetaProtocol ServiceEntry), EnvoyFilters written to a fake kube-apiserver with leader election, RDS
// with a development certificate, and one registry (an in-memory watcher), so every metric family is declared.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServe } from '../../src/app/serve.ts';
import { parseRegistrySpec } from '../../src/registry/spec.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { serveOptions } from '../e2e/options.ts';
import { httpGet, waitFor } from '../e2e/support.ts';
import { se } from '../fakes/istiod/harness.ts';
import { FakeIstiod } from '../fakes/istiod/server.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';
import { FakeRegistryWatcher } from '../fakes/registry/fake-watcher.ts';

/** The exposition text of one scrape, taken once the controller synced and wrote the filters of one service. */
export async function scrapeLiveMetrics(): Promise<string> {
  const certs = mkdtempSync(path.join(tmpdir(), 'aeraki-monitoring-'));
  const api = await startFakeKubeApiServer();
  const istiod = await FakeIstiod.start({ serve: 'v1' });
  istiod.set([se('orders')]);
  const spec = parseRegistrySpec('zk=zookeeper://127.0.0.1:2181/dubbo?debounce=10ms');
  if (!spec.ok) throw new Error('bad registry spec');
  let watcher: FakeRegistryWatcher | undefined;
  const running = await startServe(
    serveOptions({
      istiodAddress: istiod.address,
      devCertsDir: certs,
      namespaceBootstrap: false,
      registries: [spec.value],
      registryOutput: 'mcp',
      mcpServerInsecure: true,
    }),
    {
      logger: silentLogger,
      kubeConfig: fakeKubeConfig(api, { token: 'aeraki' }),
      registryWatcher: (s) => (watcher = new FakeRegistryWatcher(s.name)),
    },
  );
  try {
    watcher!.sync();
    await running.synced;
    const url = `http://${running.adminAddress}/metrics`;
    await waitFor(
      async () => /^aeraki_envoyfilter_writes_total\{/m.test((await httpGet(url)).body),
      'the first EnvoyFilter write',
    );
    return (await httpGet(url)).body;
  } finally {
    await running.stop();
    await istiod.close();
    await api.close();
    rmSync(certs, { recursive: true, force: true });
  }
}
