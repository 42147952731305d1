// A MetaRouter bound to a Gateway that is invalid with no valid version holds the Gateway when it is of the
// Gateway's own namespace, or of another while no valid MetaRouter binds the Gateway: the Gateway's EnvoyFilters
// and VirtualServices are neither rewritten nor deleted. One of another namespace never holds a Gateway a valid
// MetaRouter binds (DESIGN habit 17). Store, generation (full and incremental), and the directory source with the
// reconciler across a restart.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { DirSource } from '../../src/controller/dir-source.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { generateAll, type GenerateOutput } from '../../src/envoyfilter/generate-all.ts';
import { IncrementalGenerator } from '../../src/envoyfilter/incremental.ts';
import { SOURCE_ANNOTATION } from '../../src/model/constants.ts';
import { isHeldIssue } from '../../src/model/held.ts';
import { refString, type ConfigIssue } from '../../src/model/result.ts';
import { createGenerators } from '../../src/plugins/registry.ts';
import { heldSourceKeys, Reconciler } from '../../src/reconcile/reconciler.ts';
import { stableStringify } from '../../src/util/json.ts';
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
const SHOP_HOLDER = { kind: 'MetaRouter', namespace: 'shop', name: 'mr' };
const HELD_BY_SHOP =
  'Gateway istio-system/ingress: spec.servers: held: MetaRouter shop/mr is invalid: not rendered until fixed (what was written before stays)';
/** The held warnings of a pass, as text. */
const heldWarnings = (out: { issues: readonly ConfigIssue[] }) =>
  out.issues.filter(isHeldIssue).map((i) => `${refString(i.ref)}: ${i.path}: ${i.message}`);
/** A store with only a valid MetaRouter of namespace `team` bound to the Gateway. */
function teamOnly(): ConfigStore {
  const store = new ConfigStore({ rootNamespace: ROOT });
  fill(store, [metaEntry, gatewayRaw, gatewayRouterRaw(true, 'team')]);
  return store;
}

describe('a Gateway held by an invalid MetaRouter', () => {
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

  it('an invalid MetaRouter of another namespace holds it only while no valid MetaRouter binds it', () => {
    const store = new ConfigStore({ rootNamespace: ROOT });
    fill(store, [metaEntry, gatewayRaw, ownRouter(true)]);
    const own = fromGateway(store);
    fill(store, [metaEntry, gatewayRaw, ownRouter(true), gatewayRouterRaw(false, 'shop')]);
    assert.equal(store.isGatewayHeld(ROOT, 'ingress'), false);
    assert.deepEqual(store.heldGateways(), []);
    assert.equal(generate(store).failedSources.has(GATEWAY_SOURCE), false);
    assert.deepEqual(fromGateway(store), own, 'the Gateway renders what its valid MetaRouters give');

    // Alone, its output is only the invalid MetaRouter's contribution: kept, with a warning naming it.
    fill(store, [metaEntry, gatewayRaw, gatewayRouterRaw(false, 'shop')]);
    assert.equal(store.isGatewayHeld(ROOT, 'ingress'), true);
    assert.deepEqual(store.heldGateways(), [{ gateway: `${ROOT}/ingress`, by: [SHOP_HOLDER] }]);
    const out = generate(store);
    assert.ok(out.failedSources.has(GATEWAY_SOURCE), 'the Gateway keeps what it has');
    assert.deepEqual(heldWarnings(out), [HELD_BY_SHOP]);
    assert.deepEqual(fromGateway(store), []);

    // A valid MetaRouter of another namespace binds it: rendered from that one.
    fill(store, [metaEntry, gatewayRaw, gatewayRouterRaw(false, 'shop'), gatewayRouterRaw(true, 'team')]);
    assert.equal(store.isGatewayHeld(ROOT, 'ingress'), false);
    assert.deepEqual(store.gatewayHolders(ROOT, 'ingress'), []);
    assert.equal(generate(store).failedSources.has(GATEWAY_SOURCE), false);
    assert.deepEqual(heldWarnings(generate(store)), []);
    assert.equal(fromGateway(teamOnly()).length, 2);
    assert.deepEqual(fromGateway(store), fromGateway(teamOnly()));
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
    const { sink, start, cleanup } = dirRestarts();
    try {
      await start([metaEntry, gatewayRaw, ownRouter(true)]);
      const gatewayKeys = gatewayKeysOf(sink);
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
      cleanup();
    }
  });

  it('dir mode: after a restart with only an invalid MetaRouter of another namespace, its output is kept until a valid one binds the Gateway', async () => {
    const { sink, start, cleanup } = dirRestarts();
    try {
      await start([metaEntry, gatewayRaw, gatewayRouterRaw(true, 'shop')]);
      const gatewayKeys = gatewayKeysOf(sink);
      assert.equal(gatewayKeys.length, 2);
      const written = new Map(sink.objects);
      const writes = sink.writes.length;

      const restarted = await start([metaEntry, gatewayRaw, gatewayRouterRaw(false, 'shop')]);
      assert.deepEqual(restarted.gatewayHolders(ROOT, 'ingress'), [SHOP_HOLDER]);
      assert.deepEqual(heldWarnings(generate(restarted)), [HELD_BY_SHOP]);
      assert.deepEqual(sink.writes.slice(writes), [], 'neither rewritten nor deleted');
      assert.deepEqual(sink.objects, written);

      // A valid MetaRouter of another namespace binds the Gateway: it renders from that one.
      const both = await start([
        metaEntry,
        gatewayRaw,
        gatewayRouterRaw(false, 'shop'),
        gatewayRouterRaw(true, 'team'),
      ]);
      assert.equal(both.isGatewayHeld(ROOT, 'ingress'), false);
      const expected = fromGateway(teamOnly());
      assert.equal(expected.length, 2);
      for (const o of expected) {
        const key = `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`;
        assert.deepEqual(sink.objects.get(key)?.['spec'], o.spec, key);
      }
      assert.deepEqual(gatewayKeysOf(sink).length, 2);
    } finally {
      cleanup();
    }
  });
});

/** A directory source and a shared sink: `start` is a restart (a fresh store, one reconcile into the sink). */
function dirRestarts() {
  const dir = mkdtempSync(join(tmpdir(), 'aeraki-gw-hold-'));
  const sink = new MemorySink();
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
  return { sink, start, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The keys of the sink's objects generated for the Gateway. */
function gatewayKeysOf(sink: MemorySink): string[] {
  return [...sink.objects].filter(([, o]) => JSON.stringify(o).includes(GATEWAY_SOURCE)).map(([k]) => k);
}

describe('a Gateway held by an invalid MetaRouter of another namespace, generated incrementally', () => {
  const BAD = gatewayRouterRaw(false, 'shop');
  /** The valid MetaRouter of namespace `team`, bound to `gateways` (the Gateway's by default). */
  const team = (gateways = [`${ROOT}/ingress`]): Raw => {
    const raw = gatewayRouterRaw(true, 'team');
    return { ...raw, spec: { ...(raw['spec'] as Raw), gateways } };
  };
  /** A store filled with `raws`, its incremental generator, and a check against a full generation. */
  function world(raws: readonly Raw[]) {
    const store = new ConfigStore({ rootNamespace: ROOT });
    fill(store, raws);
    const options = { namespaceScope: false };
    const inc = new IncrementalGenerator(store, generators, options);
    const check = (held: boolean) => {
      const text = (out: GenerateOutput) =>
        stableStringify({ ...out, failedSources: [...out.failedSources].sort(), changes: undefined });
      const out = inc.update();
      assert.equal(text(out), text(generateAll(store, generators, options)));
      assert.equal(store.isGatewayHeld(ROOT, 'ingress'), held);
      assert.equal(out.failedSources.has(GATEWAY_SOURCE), held);
      assert.deepEqual(heldWarnings(out), held ? [HELD_BY_SHOP] : []);
      return inc.lastRegenerated();
    };
    return { store, inc, check };
  }

  it('a valid MetaRouter binding the Gateway appears: the hold ends and the Gateway is regenerated', () => {
    const { store, inc, check } = world([metaEntry, gatewayRaw, BAD]);
    check(true);
    fill(store, [metaEntry, gatewayRaw, BAD, team()]);
    assert.ok(check(false).includes(GATEWAY_SOURCE));
    assert.equal(fromGateway(store).length, 2);
    inc.stop();
  });

  it('the valid MetaRouter changes its gateways: held while it binds another, released when it binds it again', () => {
    const { store, inc, check } = world([metaEntry, gatewayRaw, BAD, team()]);
    check(false);
    fill(store, [metaEntry, gatewayRaw, BAD, team([`${ROOT}/other`])]);
    assert.ok(check(true).includes(GATEWAY_SOURCE));
    fill(store, [metaEntry, gatewayRaw, BAD, team()]);
    assert.ok(check(false).includes(GATEWAY_SOURCE));
    inc.stop();
  });

  it('the valid MetaRouter is deleted: the invalid one holds the Gateway again', () => {
    const { store, inc, check } = world([metaEntry, gatewayRaw, BAD, team()]);
    check(false);
    store.delete('MetaRouter', 'team', 'mr');
    assert.ok(check(true).includes(GATEWAY_SOURCE));
    inc.stop();
  });
});
