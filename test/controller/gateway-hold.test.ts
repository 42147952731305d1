// A MetaRouter of the Gateway's own namespace bound to it that is invalid with no valid version holds the Gateway:
// the Gateway's EnvoyFilters and VirtualServices are neither rewritten nor deleted. A MetaRouter of another
// namespace never holds it (DESIGN habit 17). Store, generation, and the directory source with the reconciler
// across a restart.
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
const HOLDER = { kind: 'MetaRouter', namespace: ROOT, name: 'mr' };
/** The MetaRouter bound to the Gateway, in the Gateway's own namespace. */
const ownRouter = (valid: boolean) => gatewayRouterRaw(valid, ROOT);

describe('a Gateway held by an invalid MetaRouter of its namespace', () => {
  it('is held while the MetaRouter has no valid version: no output generated, its source kept', () => {
    const valid = new ConfigStore({ rootNamespace: ROOT });
    fill(valid, [metaEntry, gatewayRaw, ownRouter(true)]);
    assert.deepEqual(
      fromGateway(valid).map((o) => o.kind),
      ['EnvoyFilter', 'VirtualService'],
    );
    assert.equal(valid.isGatewayHeld(ROOT, 'ingress'), false);

    const store = new ConfigStore({ rootNamespace: ROOT });
    fill(store, [metaEntry, gatewayRaw, ownRouter(false)]);
    assert.equal(store.isGatewayHeld(ROOT, 'ingress'), true);
    assert.deepEqual(store.heldGateways(), [{ gateway: `${ROOT}/ingress`, by: [HOLDER] }]);
    assert.deepEqual(store.rejected()[0]?.gateways, [`${ROOT}/ingress`]);
    const out = generate(store);
    assert.ok(out.failedSources.has(GATEWAY_SOURCE), 'the Gateway keeps what it has');
    assert.deepEqual(fromGateway(store), []);

    // A valid version releases the Gateway and generation resumes.
    fill(store, [metaEntry, gatewayRaw, ownRouter(true)]);
    assert.equal(store.isGatewayHeld(ROOT, 'ingress'), false);
    assert.deepEqual(store.heldGateways(), []);
    assert.deepEqual(fromGateway(store), fromGateway(valid));
    assert.ok(!generate(store).failedSources.has(GATEWAY_SOURCE));
  });

  it('is never held by an invalid MetaRouter of another namespace: rendered without it, nothing kept', () => {
    const store = new ConfigStore({ rootNamespace: ROOT });
    fill(store, [metaEntry, gatewayRaw, ownRouter(true)]);
    const own = fromGateway(store);
    fill(store, [metaEntry, gatewayRaw, ownRouter(true), gatewayRouterRaw(false, 'shop')]);
    assert.equal(store.isGatewayHeld(ROOT, 'ingress'), false);
    assert.deepEqual(store.heldGateways(), []);
    assert.equal(generate(store).failedSources.has(GATEWAY_SOURCE), false);
    assert.deepEqual(fromGateway(store), own, 'the Gateway renders what its valid MetaRouters give');

    fill(store, [metaEntry, gatewayRaw, gatewayRouterRaw(false, 'shop')]);
    assert.equal(store.isGatewayHeld(ROOT, 'ingress'), false);
    assert.equal(generate(store).failedSources.has(GATEWAY_SOURCE), false);
    assert.deepEqual(fromGateway(store), [], 'no valid MetaRouter binds it: its output is removed');
  });

  it('is released when the MetaRouter is deleted; one that turns invalid keeps its valid version', () => {
    const store = new ConfigStore({ rootNamespace: ROOT });
    fill(store, [metaEntry, gatewayRaw, ownRouter(false)]);
    assert.equal(store.isGatewayHeld(ROOT, 'ingress'), true);
    store.delete('MetaRouter', ROOT, 'mr');
    assert.equal(store.isGatewayHeld(ROOT, 'ingress'), false);

    fill(store, [metaEntry, gatewayRaw, ownRouter(true)]);
    const before = fromGateway(store);
    fill(store, [metaEntry, gatewayRaw, ownRouter(false)]);
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
      await start([metaEntry, gatewayRaw, ownRouter(true)]);
      const gatewayKeys = [...sink.objects]
        .filter(([, o]) => JSON.stringify(o).includes(GATEWAY_SOURCE))
        .map(([k]) => k);
      assert.deepEqual(gatewayKeys, [
        'EnvoyFilter/istio-system/aeraki-gateway-outbound-ingress.istio-system-20880',
        'VirtualService/istio-system/aeraki-vs-istio-system.ingress-20880',
      ]);
      const written = new Map(sink.objects);
      const writes = sink.writes.length;

      const restarted = await start([metaEntry, gatewayRaw, ownRouter(false)]);
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
