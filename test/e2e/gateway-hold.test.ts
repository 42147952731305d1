// `aeraki serve --config-source dir --output dir` across a restart: a MetaRouter bound to a Gateway that is
// invalid when the controller starts (no valid version known) holds the Gateway when it is of the Gateway's
// namespace, or of another while no valid MetaRouter binds the Gateway: its EnvoyFilter and VirtualService files
// stay as they were and /debug/config lists it; the MetaRouter holds no host, so its host gets the default route.
// Once a valid MetaRouter binds the Gateway, one of another namespace holds nothing: it is rendered from the valid one.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { startServe, type RunningServe } from '../../src/app/serve.ts';
import { silentLogger } from '../../src/util/logger.ts';
import {
  gatewayRaw,
  gatewayRouterRaw,
  META_HOST,
  META_ROUTE,
  metaEntry,
  ROOT,
  type Raw,
} from '../support/lkg-objects.ts';
import { dirServeOptions } from './options.ts';
import { httpGet } from './support.ts';

const root = mkdtempSync(path.join(tmpdir(), 'aeraki-gw-hold-e2e-'));
const configDir = path.join(root, 'config');
const outputDir = path.join(root, 'out');
after(() => rmSync(root, { recursive: true, force: true }));

/** The files written for the Gateway's namespace, by name, with their content. */
function gatewayFiles(): Record<string, string> {
  const dir = path.join(outputDir, ROOT);
  const out: Record<string, string> = {};
  for (const f of readdirSync(dir).sort()) {
    if (f.includes('ingress')) out[f] = readFileSync(path.join(dir, f), 'utf8');
  }
  return out;
}

/** Starts serve over `raws`, waits for the first sync and one reconcile, and stops it. */
async function serveOnce(raws: readonly Raw[], inspect: (debugAddress: string) => Promise<void>) {
  mkdirSync(configDir, { recursive: true });
  writeFileSync(path.join(configDir, 'config.yaml'), raws.map((r) => stringify(r)).join('---\n'));
  const running = await startServe(dirServeOptions(configDir, outputDir), { logger: silentLogger });
  try {
    await running.synced;
    await running.reconciler.runNow();
    await inspect(running.debugAddress ?? '');
    return running;
  } finally {
    await running.stop();
  }
}

const DEFAULT = `outbound|20880||${META_HOST}`;
const servedCluster = (running: RunningServe) =>
  running.cache.snapshot().resources.get(META_ROUTE)?.json.virtualHosts[0]?.routes[0]?.route.cluster;

describe('aeraki serve (dir): a Gateway held by an invalid MetaRouter', () => {
  it('keeps the Gateway output across a restart with only an invalid MetaRouter of its namespace', async () => {
    await serveOnce([metaEntry, gatewayRaw, gatewayRouterRaw(true, ROOT)], () => Promise.resolve());
    const written = gatewayFiles();
    assert.deepEqual(Object.keys(written), [
      'envoyfilter-aeraki-gateway-outbound-ingress.istio-system-20880.yaml',
      'virtualservice-aeraki-vs-istio-system.ingress-20880.yaml',
    ]);

    const restarted = await serveOnce(
      [metaEntry, gatewayRaw, gatewayRouterRaw(false, ROOT)],
      async (admin) => {
        const doc = JSON.parse((await httpGet(`http://${admin}/debug/config`)).body) as {
          heldGateways: { gateway: string }[];
        };
        assert.deepEqual(
          doc.heldGateways.map((g) => g.gateway),
          [`${ROOT}/ingress`],
        );
      },
    );
    assert.equal(servedCluster(restarted), DEFAULT, 'its host is not held: the default route');
    assert.deepEqual(gatewayFiles(), written, 'neither rewritten nor deleted');
  });

  it('an invalid MetaRouter of another namespace holds it only while no valid MetaRouter binds it', async () => {
    await serveOnce([metaEntry, gatewayRaw, gatewayRouterRaw(true, 'shop')], () => Promise.resolve());
    const written = gatewayFiles();
    assert.equal(Object.keys(written).length, 2);
    const restarted = await serveOnce(
      [metaEntry, gatewayRaw, gatewayRouterRaw(false, 'shop')],
      async (admin) => {
        const doc = JSON.parse((await httpGet(`http://${admin}/debug/config`)).body) as {
          heldGateways: { gateway: string; by: { namespace: string }[] }[];
        };
        assert.deepEqual(
          doc.heldGateways.map((g) => [g.gateway, g.by.map((r) => r.namespace)]),
          [[`${ROOT}/ingress`, ['shop']]],
        );
      },
    );
    assert.equal(servedCluster(restarted), DEFAULT, 'its host is not held: the default route');
    assert.deepEqual(gatewayFiles(), written, 'its own last output: neither rewritten nor deleted');

    // A valid MetaRouter of another namespace binds the Gateway: rendered from it, nothing held.
    await serveOnce(
      [metaEntry, gatewayRaw, gatewayRouterRaw(false, 'shop'), gatewayRouterRaw(true, 'team')],
      async (admin) => {
        const doc = JSON.parse((await httpGet(`http://${admin}/debug/config`)).body) as {
          heldGateways: unknown[];
        };
        assert.deepEqual(doc.heldGateways, []);
      },
    );
    assert.deepEqual(Object.keys(gatewayFiles()), Object.keys(written));
  });
});
