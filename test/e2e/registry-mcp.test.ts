// A registry through MCP end to end, as istiod would consume it: Dubbo providers in a (fake) Nacos → the registry
// bridge of one `aeraki serve` (--registry-output mcp) → its ServiceEntry MCP server → a second `aeraki serve`
// process reading it as its istiod (--config-source mcp) → the EnvoyFilters it writes to the (fake) API server.
// Then a new service and its removal travel the same way.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServe, type RunningServe } from '../../src/app/serve.ts';
import { parseRegistrySpec } from '../../src/registry/spec.ts';
import { silentLogger } from '../../src/util/logger.ts';
import {
  startFakeKubeApiServer,
  writeKubeconfig,
  type FakeKubeApiServer,
} from '../fakes/kube-apiserver/index.ts';
import { FakeNacos } from '../fakes/nacos/server.ts';
import { serveOptions } from './options.ts';
import { runCli, waitFor, type Child } from './support.ts';

const IFACE = 'org.apache.dubbo.samples.DemoService';
const SERVICE = `providers:${IFACE}:1.0.0:`;
const EF = 'envoyfilters.networking.istio.io';

describe('registry → MCP server → a second controller', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-registry-mcp-'));
  let api: FakeKubeApiServer;
  let nacos: FakeNacos;
  let bridge: RunningServe;
  let consumer: Child | undefined;

  before(async () => {
    api = await startFakeKubeApiServer({ tls: true });
    nacos = await FakeNacos.start();
    nacos.store.register('public', 'DEFAULT_GROUP', SERVICE, {
      ip: '10.0.0.1',
      port: 20880,
      metadata: { version: '1.0.0', aeraki_meta_workload_selector: 'demo-provider' },
    });
    const spec = parseRegistrySpec(`nacos=nacos://${nacos.address}?debounce=10ms&pollInterval=200ms`);
    assert.ok(spec.ok);
    bridge = await startServe(
      serveOptions({
        configSource: 'dir',
        configDir: path.join(dir, 'empty'),
        output: 'dir',
        outputDir: path.join(dir, 'bridge-out'),
        rdsInsecure: true,
        leaderElect: false,
        namespaceBootstrap: false,
        registries: [spec.value],
        registryOutput: 'mcp',
        mcpServerInsecure: true, // the consumer dials it as istiod does: plaintext
      }),
      { logger: silentLogger },
    );
  });
  after(async () => {
    consumer?.kill();
    await bridge.stop();
    await nacos.close();
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the second process writes the EnvoyFilters of the registry service and follows its changes', async () => {
    await waitFor(() => bridge.registries?.synced ?? false, 'the registry synced');
    const mcpPort = bridge.registries?.mcpPort;
    assert.ok(mcpPort);
    const kubeconfig = writeKubeconfig(api, dir, { token: 'aeraki' });
    consumer = runCli(
      [
        'serve',
        `--kubeconfig=${kubeconfig}`,
        `--istiod-address=127.0.0.1:${mcpPort}`,
        '--istiod-tls=false',
        '--rds-insecure',
        '--rds-address=127.0.0.1:0',
        '--http-address=127.0.0.1:0',
        '--debounce-after=50ms',
        '--leader-elect=false',
      ],
      { POD_NAME: 'aeraki-consumer-0' },
    );
    const child = consumer;
    const names = () => api.list(EF).map((o) => o.metadata.name ?? '');
    const has = (part: string) => names().some((n) => n.includes(part));
    await waitFor(
      () => has('outbound-org.apache.dubbo.samples.demoservice'),
      'the outbound EnvoyFilter',
      30_000,
    ).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}\n${child.stdout}\n${child.stderr}`, { cause: err });
    });
    const inbound = api
      .list(EF)
      .find((o) => (o.metadata.name ?? '').includes('inbound-org.apache.dubbo.samples.demoservice'));
    assert.ok(inbound, names().join(', '));
    assert.match(JSON.stringify(inbound.spec), /demo-provider/);

    // A second interface appears in the registry: its filters follow through both processes.
    nacos.store.register('public', 'DEFAULT_GROUP', 'providers:org.apache.dubbo.samples.GreetService::', {
      ip: '10.0.0.2',
      port: 20881,
      metadata: {},
    });
    await waitFor(
      () => has('outbound-org.apache.dubbo.samples.greetservice'),
      "the new service's EnvoyFilter",
      30_000,
    );
    // Its provider leaves: the ServiceEntry goes, and so do its filters.
    nacos.store.deregister(
      'public',
      'DEFAULT_GROUP',
      'providers:org.apache.dubbo.samples.GreetService::',
      '10.0.0.2',
      20881,
    );
    await waitFor(
      () => !has('outbound-org.apache.dubbo.samples.greetservice'),
      "the removed service's EnvoyFilter deleted",
      30_000,
    );
    assert.ok(has('outbound-org.apache.dubbo.samples.demoservice'), 'the other service is untouched');
  });
});
