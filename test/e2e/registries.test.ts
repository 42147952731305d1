// `aeraki serve --registry ...` in process: a registry (an in-memory watcher injected through ServeDeps) feeds
// ServiceEntries into the store; EnvoyFilters follow without istiod, and /debug/registries and /metrics report it.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServe, type RunningServe } from '../../src/app/serve.ts';
import { parseRegistrySpec } from '../../src/registry/spec.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { FakeRegistryWatcher, provider } from '../fakes/registry/fake-watcher.ts';
import { serveOptions } from './options.ts';
import { httpGet, waitFor } from './support.ts';

const IFACE = 'org.apache.dubbo.samples.DemoService';

describe('aeraki serve with a registry', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-registry-'));
  const out = path.join(dir, 'out');
  let running: RunningServe;
  let watcher: FakeRegistryWatcher | undefined;
  before(async () => {
    const spec = parseRegistrySpec('zk=zookeeper://127.0.0.1:2181/dubbo?debounce=10ms');
    assert.ok(spec.ok);
    running = await startServe(
      serveOptions({
        configSource: 'dir',
        configDir: dir,
        output: 'dir',
        outputDir: out,
        rdsInsecure: true,
        leaderElect: false,
        namespaceBootstrap: false,
        registries: [spec.value],
        registryOutput: 'mcp',
        mcpServerInsecure: true,
        debugEndpoints: true,
      }),
      {
        logger: silentLogger,
        registryWatcher: (s) => (watcher = new FakeRegistryWatcher(s.name)),
      },
    );
  });
  after(async () => {
    await running.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is not ready until the registry synced, then writes the filters of its services', async () => {
    const admin = `http://${running.adminAddress.replace('0.0.0.0', '127.0.0.1')}`;
    const notReady = await httpGet(`${admin}/readyz`);
    assert.equal(notReady.status, 503);
    assert.match(notReady.body, /registry zk/);

    const params = { aeraki_meta_workload_selector: 'dubbo-sample-provider' };
    watcher!.set(IFACE, [provider(IFACE, '10.0.0.1', 20880, { params })], true);
    watcher!.sync();
    // Written files only: the dir sink writes a `<file>.<pid>.<time>.tmp` first and renames it.
    const files = () =>
      readdirSync(out, { recursive: true })
        .map(String)
        .filter((f) => !f.endsWith('.tmp'));
    const named = (part: string) => files().find((f) => f.includes(part));
    await waitFor(() => {
      try {
        return (
          named('aeraki-outbound-org.apache.dubbo.samples.demoservice') !== undefined &&
          named('aeraki-inbound-org.apache.dubbo.samples.demoservice') !== undefined
        );
      } catch {
        return false;
      }
    }, 'the outbound and inbound EnvoyFilters of the registry service');
    const inbound = named('aeraki-inbound-org.apache.dubbo.samples.demoservice');
    assert.ok(inbound, files().join(', '));
    assert.match(readFileSync(path.join(out, inbound), 'utf8'), /dubbo-sample-provider/);

    assert.equal((await httpGet(`${admin}/readyz`)).status, 200);
    const debug = JSON.parse((await httpGet(`http://${running.debugAddress}/debug/registries`)).body) as {
      output: string;
      registries: { name: string; synced: boolean; services: number; endpoints: number }[];
    };
    assert.equal(debug.output, 'mcp');
    assert.deepEqual(
      debug.registries.map((r) => [r.name, r.synced, r.services, r.endpoints]),
      [['zk', true, 1, 1]],
    );
    const metrics = (await httpGet(`${admin}/metrics`)).body;
    assert.match(metrics, /aeraki_registry_services\{registry="zk"\} 1/);
  });
});
