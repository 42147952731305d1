// Last known good (DESIGN habit 2): an object that turns invalid keeps its last valid version in effect; one
// invalid from the start holds the hosts it binds. Store, generation, the directory source and a restart.
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
import type { ConfigEvent } from '../../src/model/view.ts';
import { createGenerators } from '../../src/plugins/registry.ts';
import { heldSourceKeys, Reconciler } from '../../src/reconcile/reconciler.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { buildRouteConfigurations } from '../../src/xds-rds/routes.ts';
import { MemorySink, refClock } from '../reconcile/support.ts';
import {
  DUBBO_HOST,
  destinationRuleRaw,
  fill,
  META_HOST,
  META_ROUTE,
  metaRouterRaw,
  ROOT,
  virtualServiceRaw,
  world,
  type Raw,
} from '../support/lkg-objects.ts';

const ALL_VALID = { mr: true, vs: true, dr: true };
const generators = createGenerators();
const generate = (store: ConfigStore) => generateAll(store, generators, { namespaceScope: false });
const routesOf = (store: ConfigStore) => buildRouteConfigurations(store).routes;

function storeWith(raws: readonly Raw[]): { store: ConfigStore; events: ConfigEvent[] } {
  const store = new ConfigStore({ rootNamespace: ROOT });
  const events: ConfigEvent[] = [];
  fill(store, raws);
  store.subscribe((e) => events.push(e));
  return { store, events };
}

const CASES = [
  { kind: 'MetaRouter', name: 'mr', host: META_HOST, turn: { ...ALL_VALID, mr: false } },
  { kind: 'VirtualService', name: 'vs', host: DUBBO_HOST, turn: { ...ALL_VALID, vs: false } },
  { kind: 'DestinationRule', name: 'dr', host: META_HOST, turn: { ...ALL_VALID, dr: false } },
] as const;

describe('last known good', () => {
  for (const c of CASES) {
    it(`a ${c.kind} that turns invalid stays in effect: same output, no event, rejection recorded`, () => {
      const { store, events } = storeWith(world(ALL_VALID));
      const before = { filters: generate(store).objects, routes: routesOf(store) };
      const valid = store.get(c.kind, 'shop', c.name);
      assert.ok(valid);
      fill(store, world(c.turn));
      assert.equal(store.get(c.kind, 'shop', c.name), valid, 'the valid version is kept');
      assert.deepEqual(events, [], 'no change event for the kept object');
      assert.deepEqual(
        store.rejected().map((r) => `${r.ref.kind}/${r.ref.name}`),
        [`${c.kind}/${c.name}`],
      );
      assert.ok((store.rejected()[0]?.issues.length ?? 0) > 0);
      assert.deepEqual(store.heldHosts(), [], 'a valid version exists: nothing held');
      assert.deepEqual(generate(store).objects, before.filters);
      assert.deepEqual(routesOf(store), before.routes);
      // Deleting is the only way to remove its effect.
      store.delete(c.kind, 'shop', c.name);
      assert.equal(store.get(c.kind, 'shop', c.name), undefined);
      assert.deepEqual(store.rejected(), []);
    });

    if (c.kind === 'MetaRouter') continue;
    it(`a ${c.kind} invalid from the start holds ${c.host}; a valid version or a delete releases it`, () => {
      const { store, events } = storeWith(world(c.turn));
      assert.equal(store.get(c.kind, 'shop', c.name), undefined);
      assert.deepEqual(store.heldHosts(), [
        { host: c.host, by: [{ kind: c.kind, namespace: 'shop', name: c.name }] },
      ]);
      assert.equal(store.isHostHeld(c.host, 'shop'), true);
      const out = generate(store);
      const entry = c.host === META_HOST ? 'ServiceEntry/shop/svc' : 'ServiceEntry/shop/dubbo';
      assert.ok(out.failedSources.has(entry), 'its ServiceEntry keeps its EnvoyFilters');
      assert.ok(!out.objects.some((o) => o.metadata.annotations?.[SOURCE_ANNOTATION] === entry));
      const built = buildRouteConfigurations(store);
      if (c.host === META_HOST) {
        assert.deepEqual(built.held, [META_ROUTE]);
        assert.ok(!built.routes.some((r) => r.name === META_ROUTE), 'route withheld, not the default');
      }
      store.delete(c.kind, 'shop', c.name);
      assert.deepEqual(store.heldHosts(), []);
      assert.deepEqual(events, [{ type: 'held', kind: c.kind, namespace: 'shop', name: c.name }]);
      assert.ok(!generate(store).failedSources.has(entry));
    });
  }

  it('a MetaRouter invalid from the start holds nothing: its ServiceEntry is rendered, its host gets the default route', () => {
    const { store, events } = storeWith(world({ ...ALL_VALID, mr: false }));
    assert.equal(store.get('MetaRouter', 'shop', 'mr'), undefined);
    assert.deepEqual(store.heldHosts(), []);
    assert.equal(store.isHostHeld(META_HOST, 'shop'), false);
    const out = generate(store);
    assert.ok(!out.failedSources.has('ServiceEntry/shop/svc'));
    assert.ok(
      out.objects.some((o) => o.metadata.annotations?.[SOURCE_ANNOTATION] === 'ServiceEntry/shop/svc'),
    );
    const built = buildRouteConfigurations(store);
    assert.deepEqual(built.held, []);
    const route = built.routes.find((r) => r.name === META_ROUTE);
    assert.equal(route?.virtualHosts[0]?.routes[0]?.route.cluster, `outbound|20880||${META_HOST}`);
    // Its delete still tells the routes and the status that it left.
    store.delete('MetaRouter', 'shop', 'mr');
    assert.deepEqual(events, [{ type: 'held', kind: 'MetaRouter', namespace: 'shop', name: 'mr' }]);
  });

  it('a VirtualService or DestinationRule invalid from the start holds nothing of another namespace', () => {
    for (const raw of [virtualServiceRaw(false), destinationRuleRaw(false)]) {
      const spec = raw['spec'] as Raw;
      const elsewhere: Raw = {
        ...raw,
        metadata: { ...(raw['metadata'] as Raw), namespace: 'other' },
        // The same hosts, written in full (a short host is completed with the object's own namespace).
        spec: raw['kind'] === 'DestinationRule' ? { ...spec, host: META_HOST } : spec,
      };
      const { store } = storeWith([
        ...world(ALL_VALID).filter((o) => o['kind'] === 'ServiceEntry'),
        elsewhere,
      ]);
      assert.equal(store.heldHosts().length, 1, 'bound, as written');
      assert.equal(store.isHostHeld(META_HOST, 'shop'), false);
      assert.equal(store.isHostHeld(DUBBO_HOST, 'shop'), false);
      assert.deepEqual([...generate(store).failedSources], []);
      assert.deepEqual(buildRouteConfigurations(store).held, []);
    }
  });

  it('an object rejected by an Istio rule (two subsets of one name) keeps its last valid version', () => {
    const { store, events } = storeWith(world(ALL_VALID));
    const before = { filters: generate(store).objects, routes: routesOf(store) };
    const valid = store.get('DestinationRule', 'shop', 'dr');
    const bad = destinationRuleRaw(true);
    const spec = bad['spec'] as { subsets: Raw[] };
    fill(store, [
      ...world(ALL_VALID).filter((o) => o['kind'] !== 'DestinationRule'),
      { ...bad, spec: { ...spec, subsets: [spec.subsets[0], spec.subsets[0]] } },
    ]);
    assert.equal(store.get('DestinationRule', 'shop', 'dr'), valid);
    assert.deepEqual(events, []);
    assert.deepEqual(
      store.rejected().flatMap((r) => r.issues.map((i) => `${i.ref.kind}/${i.ref.name} ${i.path}`)),
      ['DestinationRule/dr spec.subsets[1].name'],
    );
    assert.deepEqual(generate(store).objects, before.filters);
    assert.deepEqual(routesOf(store), before.routes);
  });

  it('identical store state gives identical output', () => {
    const a = storeWith(world({ mr: false, vs: false, dr: false })).store;
    const b = storeWith(world({ mr: false, vs: false, dr: false })).store;
    assert.deepEqual(generate(a), generate(b));
    assert.deepEqual(buildRouteConfigurations(a), buildRouteConfigurations(b));
    assert.deepEqual(a.heldHosts(), b.heldHosts());
  });

  it('the directory source keeps a file turned invalid in effect, and holds one invalid at start', () => {
    const dir = mkdtempSync(join(tmpdir(), 'aeraki-lkg-'));
    try {
      const write = (raws: readonly Raw[]) =>
        writeFileSync(join(dir, 'config.yaml'), raws.map((r) => stringify(r)).join('---\n'));
      write(world(ALL_VALID));
      const store = new ConfigStore({ rootNamespace: ROOT });
      const src = new DirSource({ dir, store, rootNamespace: ROOT, debounceMs: 10, logger: silentLogger });
      src.load();
      const routes = routesOf(store);
      const filters = generate(store).objects;
      write(world({ mr: false, vs: false, dr: false }));
      src.load();
      assert.deepEqual(routesOf(store), routes, 'routes unchanged');
      assert.deepEqual(generate(store).objects, filters, 'filters unchanged');
      assert.equal(store.rejected().length, 3);

      const fresh = new ConfigStore({ rootNamespace: ROOT });
      new DirSource({ dir, store: fresh, rootNamespace: ROOT, debounceMs: 10, logger: silentLogger }).load();
      assert.deepEqual(
        fresh.heldHosts().map((h) => h.host),
        [DUBBO_HOST, META_HOST],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('after a restart with only invalid versions, the reconciler deletes and rewrites nothing', async () => {
    const sink = new MemorySink();
    const reconcile = async (store: ConfigStore) => {
      const r = new Reconciler({
        sink,
        desired: () => generate(store),
        heldSources: () => heldSourceKeys(store.rejected()),
        isSynced: () => true,
        clock: refClock,
        logger: silentLogger,
      });
      await r.runNow();
      await r.stop();
    };
    await reconcile(storeWith(world(ALL_VALID)).store);
    const written = new Map(sink.objects);
    assert.ok(written.size > 0);
    const writes = sink.writes.length;

    const restarted = storeWith([
      ...world(ALL_VALID).filter((o) => o['kind'] === 'ServiceEntry'),
      metaRouterRaw(false),
      virtualServiceRaw(false),
      destinationRuleRaw(false),
    ]).store;
    await reconcile(restarted);
    assert.deepEqual(sink.writes.slice(writes), [], 'no write at all');
    assert.deepEqual(sink.objects, written);
    const built = buildRouteConfigurations(restarted);
    assert.deepEqual(built.held, [META_ROUTE]);
    assert.ok(!built.routes.some((r) => r.name === META_ROUTE));
  });
});
