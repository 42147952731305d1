// `aeraki serve --config-source dir --output dir`: holding stays inside its owner's reach (DESIGN habit 17). An
// invalid MetaRouter (no valid version known) naming ServiceEntry b/orders' host, in another namespace or in b
// itself, never freezes the ServiceEntry: a change of its address, port and workload port (targetPort, what its
// endpoints receive on) reaches the EnvoyFilters written, and RDS serves the route the ServiceEntry alone gives
// (the default route: nothing of that MetaRouter was ever served, xds-rds/routes.ts). A MetaRouter with a valid
// version that turns invalid keeps its routes, built on the ServiceEntry as it is now.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { startServe, type RunningServe } from '../../src/app/serve.ts';
import type { RouteConfigurationJson } from '../../src/xds-rds/route-json.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { RdsTestClient, sotwRequest } from '../fakes/rds-client.ts';
import { ROOT, type Raw } from '../support/lkg-objects.ts';
import { dirServeOptions } from './options.ts';
import { httpGet, waitFor } from './support.ts';

const root = mkdtempSync(path.join(tmpdir(), 'aeraki-hold-scope-e2e-'));
after(() => rmSync(root, { recursive: true, force: true }));

const HOST = 'orders.b.svc.cluster.local';
const SOURCE = 'ServiceEntry/b/orders';
const PORT_NAME = 'tcp-metaprotocol-dubbo';

interface Shape {
  readonly address: string;
  readonly port: number;
  readonly targetPort: number;
}
const BEFORE: Shape = { address: '240.240.1.1', port: 20880, targetPort: 30880 };
const AFTER: Shape = { address: '240.240.1.2', port: 20881, targetPort: 30881 };

function entry(s: Shape): Raw {
  return {
    apiVersion: 'networking.istio.io/v1',
    kind: 'ServiceEntry',
    metadata: { namespace: 'b', name: 'orders', creationTimestamp: '2024-01-01T00:00:00Z' },
    spec: {
      hosts: [HOST],
      addresses: [s.address],
      ports: [{ number: s.port, name: PORT_NAME, protocol: 'TCP', targetPort: s.targetPort }],
      resolution: 'STATIC',
      workloadSelector: { labels: { app: 'orders' } },
      endpoints: [{ address: s.address === BEFORE.address ? '10.0.0.1' : '10.0.0.2' }],
    },
  };
}

/** A MetaRouter for HOST routing to subset v1; invalid without the token bucket's fillInterval. */
function router(namespace: string, valid: boolean): Raw {
  const tokenBucket: Raw = { maxTokens: 10, tokensPerFill: 10, ...(valid ? { fillInterval: '60s' } : {}) };
  return {
    apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
    kind: 'MetaRouter',
    metadata: { namespace, name: 'orders-route', creationTimestamp: '2024-01-01T00:00:00Z' },
    spec: {
      hosts: [HOST],
      routes: [{ name: 'v1', route: [{ destination: { host: HOST, subset: 'v1' } }] }],
      localRateLimit: { tokenBucket },
    },
  };
}

const routeName = (port: number) => `${HOST}_${port}`;
const clusterOf = (port: number, subset = '') => `outbound|${port}|${subset}|${HOST}`;

/** One serve over a config directory of its own; `write` replaces the config file (the source watches it). */
async function start(dir: string, raws: readonly Raw[]) {
  const configDir = path.join(dir, 'config');
  const outputDir = path.join(dir, 'out');
  mkdirSync(configDir, { recursive: true });
  const write = (next: readonly Raw[]) =>
    writeFileSync(path.join(configDir, 'config.yaml'), next.map((r) => stringify(r)).join('---\n'));
  write(raws);
  const running = await startServe(dirServeOptions(configDir, outputDir), { logger: silentLogger });
  await running.synced;
  await running.reconciler.runNow();
  /** The EnvoyFilter files written for b/orders, joined. */
  const filters = () => {
    const ns = path.join(outputDir, ROOT);
    return readdirSync(ns)
      .sort()
      .map((f) => readFileSync(path.join(ns, f), 'utf8'))
      .filter((text) => text.includes(SOURCE))
      .join('\n---\n');
  };
  return { running, write, filters };
}

/** The routes RDS serves under `name` to a fresh SotW stream (plaintext: --rds-insecure). */
async function servedOverRds(running: RunningServe, name: string): Promise<RouteConfigurationJson> {
  const client = new RdsTestClient(running.rdsPort, 'insecure');
  try {
    const stream = client.sotw();
    stream.send(sotwRequest([name]));
    const response = await stream.next();
    stream.close();
    const found = response.resources
      .map((r) => r.json as RouteConfigurationJson)
      .find((j) => j.name === name);
    assert.ok(found, `${name} is served`);
    return found;
  } finally {
    client.close();
  }
}

/** The rejected objects /debug/config lists, as `<namespace>/<name>`. */
async function rejected(running: RunningServe): Promise<string[]> {
  const doc = JSON.parse((await httpGet(`http://${running.debugAddress}/debug/config`)).body) as {
    rejected: { ref: { namespace: string; name: string } }[];
  };
  return doc.rejected.map((r) => `${r.ref.namespace}/${r.ref.name}`);
}

const clusters = (route: RouteConfigurationJson) => route.virtualHosts[0]?.routes.map((r) => r.route.cluster);

/**
 * Runs one scenario: the ServiceEntry is written, then an invalid MetaRouter `<namespace>/orders-route` naming its
 * host arrives (no valid version ever), then the ServiceEntry changes, and everything follows.
 */
async function changesUnder(dir: string, namespace: string) {
  const { running, write, filters } = await start(dir, [entry(BEFORE)]);
  const defaultRoute = (port: number) => [clusterOf(port)];
  try {
    const before = filters();
    assert.match(before, new RegExp(BEFORE.address.replaceAll('.', '\\.')));
    assert.match(before, new RegExp(`inbound\\|${BEFORE.targetPort}\\|`));
    assert.deepEqual(
      clusters(await servedOverRds(running, routeName(BEFORE.port))),
      defaultRoute(BEFORE.port),
    );

    const routers = [router(namespace, false)];
    write([entry(BEFORE), ...routers]);
    await waitFor(async () => (await rejected(running)).includes(`${namespace}/orders-route`), 'rejected');
    assert.deepEqual(
      clusters(await servedOverRds(running, routeName(BEFORE.port))),
      defaultRoute(BEFORE.port),
    );

    write([entry(AFTER), ...routers]);
    await waitFor(() => running.cache.snapshot().resources.has(routeName(AFTER.port)), 'the new port routed');
    await running.reconciler.runNow();
    const now = filters();
    assert.match(now, new RegExp(AFTER.address.replaceAll('.', '\\.')), 'the new address is written');
    assert.doesNotMatch(now, new RegExp(BEFORE.address.replaceAll('.', '\\.')), 'the old address is gone');
    assert.match(now, new RegExp(`_${AFTER.port}\\b`), 'the new port is written');
    assert.match(now, new RegExp(`inbound\\|${AFTER.targetPort}\\|`), 'the new workload port is written');
    assert.doesNotMatch(now, new RegExp(`\\b${BEFORE.targetPort}\\b`));
    assert.deepEqual(clusters(await servedOverRds(running, routeName(AFTER.port))), defaultRoute(AFTER.port));
    assert.equal(
      running.cache.snapshot().resources.has(routeName(BEFORE.port)),
      false,
      'the old port unrouted',
    );

    const doc = JSON.parse((await httpGet(`http://${running.debugAddress}/debug/config`)).body) as {
      held: unknown[];
      heldObjects: string[];
      rejected: { ref: { namespace: string; name: string } }[];
    };
    assert.deepEqual(doc.held, [], 'nothing held');
    assert.deepEqual(doc.heldObjects, [], 'no held warning on the ServiceEntry');
    assert.equal(
      doc.rejected.filter((r) => r.ref.name === 'orders-route').length,
      routers.length > 0 ? 1 : 0,
    );
  } finally {
    await running.stop();
  }
}

describe('aeraki serve (dir): an invalid MetaRouter never freezes the ServiceEntry it names', () => {
  it('in another namespace: address, port and workload port follow; the default route is served', async () => {
    await changesUnder(path.join(root, 'cross'), 'a');
  });

  it('in the same namespace: the same', async () => {
    await changesUnder(path.join(root, 'same'), 'b');
  });

  it('with a valid version known: its routes stay, on the ServiceEntry as it is now', async () => {
    const dir = path.join(root, 'known');
    const { running, write, filters } = await start(dir, [entry(BEFORE), router('a', true)]);
    try {
      assert.deepEqual(clusters(await servedOverRds(running, routeName(BEFORE.port))), [
        clusterOf(BEFORE.port, 'v1'),
      ]);
      write([entry(BEFORE), router('a', false)]);
      await waitFor(
        async () => (await rejected(running)).includes('a/orders-route'),
        'the MetaRouter rejected',
      );
      write([entry(AFTER), router('a', false)]);
      await waitFor(
        () => running.cache.snapshot().resources.has(routeName(AFTER.port)),
        'the new port routed',
      );
      await running.reconciler.runNow();
      assert.match(filters(), new RegExp(AFTER.address.replaceAll('.', '\\.')));
      assert.deepEqual(clusters(await servedOverRds(running, routeName(AFTER.port))), [
        clusterOf(AFTER.port, 'v1'),
      ]);
    } finally {
      await running.stop();
    }
  });
});
