// A MetaRouter bound to a Gateway that is invalid with no valid version holds the Gateway as it holds its hosts:
// the Gateway's EnvoyFilters and VirtualServices are neither rewritten nor deleted. Store, generation, and the
// directory source with the reconciler across a restart.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { DirSource } from '../../src/controller/dir-source.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { generateAll } from '../../src/envoyfilter/generate-all.ts';
import { SOURCE_ANNOTATION } from '../../src/model/constants.ts';
import { createGenerators } from '../../src/plugins/registry.ts';
import { heldSourceKeys, Reconciler } from '../../src/reconcile/reconciler.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { MemorySink, refClock } from '../reconcile/support.ts';
import {
  fill,
  GATEWAY_SOURCE,
  gatewayRaw,
  gatewayRouterRaw,
  metaEntry,
  ROOT,
  type Raw,
} from '../support/lkg-objects.ts';

const generators = createGenerators();
const generate = (store: ConfigStore) => generateAll(store, generators, { namespaceScope: false });
const fromGateway = (store: ConfigStore) =>
  generate(store).objects.filter((o) => o.metadata.annotations?.[SOURCE_ANNOTATION] === GATEWAY_SOURCE);
const HOLDER = { kind: 'MetaRouter', namespace: 'shop', name: 'mr' };

describe('a Gateway held by an invalid MetaRouter', () => {
  it('is held while the MetaRouter has no valid version: no output generated, its source kept', () => {
    const valid = new ConfigStore({ rootNamespace: ROOT });
    fill(valid, [metaEntry, gatewayRaw, gatewayRouterRaw(true)]);
    assert.deepEqual(
      fromGateway(valid).map((o) => o.kind),
      ['EnvoyFilter', 'VirtualService'],
    );
    assert.equal(valid.isGatewayHeld(ROOT, 'ingress'), false);

    const store = new ConfigStore({ rootNamespace: ROOT });
    fill(store, [metaEntry, gatewayRaw, gatewayRouterRaw(false)]);
    assert.equal(store.isGatewayHeld(ROOT, 'ingress'), true);
    assert.deepEqual(store.heldGateways(), [{ gateway: `${ROOT}/ingress`, by: [HOLDER] }]);
    assert.deepEqual(store.rejected()[0]?.gateways, [`${ROOT}/ingress`]);
    const out = generate(store);
    assert.ok(out.failedSources.has(GATEWAY_SOURCE), 'the Gateway keeps what it has');
    assert.deepEqual(fromGateway(store), []);

    // A valid version releases the Gateway and generation resumes.
    fill(store, [metaEntry, gatewayRaw, gatewayRouterRaw(true)]);
    assert.equal(store.isGatewayHeld(ROOT, 'ingress'), false);
    assert.deepEqual(store.heldGateways(), []);
    assert.deepEqual(fromGateway(store), fromGateway(valid));
    assert.ok(!generate(store).failedSources.has(GATEWAY_SOURCE));
  });

  it('is released when the MetaRouter is deleted; one that turns invalid keeps its valid version', () => {
    const store = new ConfigStore({ rootNamespace: ROOT });
    fill(store, [metaEntry, gatewayRaw, gatewayRouterRaw(false)]);
    assert.equal(store.isGatewayHeld(ROOT, 'ingress'), true);
    store.delete('MetaRouter', 'shop', 'mr');
    assert.equal(store.isGatewayHeld(ROOT, 'ingress'), false);

    fill(store, [metaEntry, gatewayRaw, gatewayRouterRaw(true)]);
    const before = fromGateway(store);
    fill(store, [metaEntry, gatewayRaw, gatewayRouterRaw(false)]);
    assert.equal(store.isGatewayHeld(ROOT, 'ingress'), false, 'a valid version exists: nothing held');
    assert.deepEqual(fromGateway(store), before);
  });

  it('dir mode: after a restart with only an invalid MetaRouter, the Gateway output is neither rewritten nor deleted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aeraki-gw-hold-'));
    const sink = new MemorySink();
    /** A fresh store filled from the directory and one reconcile into the shared sink, as a restart does. */
    const start = async (raws: readonly Raw[]) => {
      writeFileSync(join(dir, 'config.yaml'), raws.map((r) => stringify(r)).join('---\n'));
      const store = new ConfigStore({ rootNamespace: ROOT });
      new DirSource({ dir, store, rootNamespace: ROOT, debounceMs: 10, logger: silentLogger }).load();
      const reconciler = new Reconciler({
        sink,
        desired: () => generate(store),
        heldSources: () => heldSourceKeys(store.rejected()),
        isSynced: () => true,
        clock: refClock,
        logger: silentLogger,
      });
      await reconciler.runNow();
      await reconciler.stop();
      return store;
    };
    try {
      await start([metaEntry, gatewayRaw, gatewayRouterRaw(true)]);
      const gatewayKeys = [...sink.objects]
        .filter(([, o]) => JSON.stringify(o).includes(GATEWAY_SOURCE))
        .map(([k]) => k);
      assert.deepEqual(gatewayKeys, [
        'EnvoyFilter/istio-system/aeraki-gateway-outbound-ingress.istio-system-20880',
        'VirtualService/istio-system/aeraki-vs-istio-system.ingress-20880',
      ]);
      const written = new Map(sink.objects);
      const writes = sink.writes.length;

      const restarted = await start([metaEntry, gatewayRaw, gatewayRouterRaw(false)]);
      assert.equal(restarted.isGatewayHeld(ROOT, 'ingress'), true);
      assert.deepEqual(sink.writes.slice(writes), [], 'no write at all');
      assert.deepEqual(sink.objects, written);

      // Deleting the MetaRouter is what removes the Gateway's output.
      await start([metaEntry, gatewayRaw]);
      for (const key of gatewayKeys) assert.equal(sink.objects.has(key), false, key);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
