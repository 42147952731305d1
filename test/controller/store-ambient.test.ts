// The store's AmbientView: what it answers once ambient inputs are read (and before), the events each real change
// emits (kinds Namespace, KubernetesGateway, GatewayClass), and the directory source filling it only when asked.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DirSource } from '../../src/controller/dir-source.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { waypointOf } from '../../src/model/ambient/binding.ts';
import type { AmbientObject } from '../../src/model/parse/ambient.ts';
import type { ConfigEvent } from '../../src/model/view.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { silentLogger } from '../../src/util/logger.ts';

const ROOT = 'istio-system';

const ns = (name: string, labels: Record<string, string> = {}): AmbientObject => ({
  kind: 'Namespace',
  value: { name, labels },
});
const gw = (namespace: string, name: string, addressed = true): AmbientObject => ({
  kind: 'KubernetesGateway',
  value: {
    namespace,
    name,
    className: 'istio-waypoint',
    addressed,
    listeners: [{ port: 15008, protocol: 'HBONE' }],
  },
});

function recorded(store: ConfigStore): string[] {
  const out: string[] = [];
  store.subscribe((e: ConfigEvent) => out.push(`${e.type} ${e.kind} ${e.namespace}/${e.name}`));
  return out;
}

describe('ConfigStore as AmbientView', () => {
  it('answers nothing before a source reads ambient inputs', () => {
    const store = new ConfigStore({ rootNamespace: ROOT });
    assert.equal(store.ambientNamespace('shop'), undefined);
    assert.equal(store.waypoints().gateway('shop', 'waypoint'), undefined);
  });

  it('answers the projections read, and emits one event per real change', () => {
    const store = new ConfigStore({ rootNamespace: ROOT });
    const events = recorded(store);
    const w = store.readsAmbient();
    w.set(ns('shop', { 'istio.io/use-waypoint': 'waypoint' }));
    w.set(gw('shop', 'waypoint'));
    w.set({ kind: 'GatewayClass', value: { name: 'istio-waypoint', waypointFor: 'all' } });
    w.set(ns('shop', { 'istio.io/use-waypoint': 'waypoint' })); // same projection: no event
    assert.deepEqual(store.ambientNamespace('shop'), {
      name: 'shop',
      labels: { 'istio.io/use-waypoint': 'waypoint' },
    });
    assert.equal(store.waypoints().gatewayClass('istio-waypoint')?.waypointFor, 'all');
    const service = { kind: 'Service' as const, namespace: 'shop', name: 'orders', labels: {} };
    const bound = waypointOf(service, store.ambientNamespace('shop'), store.waypoints());
    assert.equal(bound.bound, true, 'generation binds through the view');

    w.set(ns('shop', { 'istio.io/use-waypoint': 'none' }));
    w.set(gw('shop', 'waypoint', false));
    assert.equal(
      store.waypoints().gateway('shop', 'waypoint')?.addressed,
      false,
      'the index follows changes',
    );
    w.remove('KubernetesGateway', 'shop', 'waypoint');
    w.remove('KubernetesGateway', 'shop', 'waypoint'); // absent: no event
    w.remove('GatewayClass', '', 'istio-waypoint');
    assert.equal(store.waypoints().gateway('shop', 'waypoint'), undefined);
    assert.deepEqual(events, [
      'added Namespace /shop',
      'added KubernetesGateway shop/waypoint',
      'added GatewayClass /istio-waypoint',
      'updated Namespace /shop',
      'updated KubernetesGateway shop/waypoint',
      'deleted KubernetesGateway shop/waypoint',
      'deleted GatewayClass /istio-waypoint',
    ]);
  });

  it('replace: full state of a kind, keeping the keys of objects that cannot be read now', () => {
    const store = new ConfigStore({ rootNamespace: ROOT });
    const w = store.readsAmbient();
    w.replace('KubernetesGateway', [gw('a', 'one'), gw('b', 'two'), gw('c', 'three')]);
    const events = recorded(store);
    w.replace('KubernetesGateway', [gw('a', 'one'), gw('d', 'four')], new Set(['b/two']));
    assert.deepEqual(events, ['deleted KubernetesGateway c/three', 'added KubernetesGateway d/four']);
    assert.ok(store.waypoints().gateway('b', 'two'), 'a rejected object keeps its last good version');
  });
});

describe('DirSource with ambient inputs', () => {
  const files = {
    'ns.yaml': [
      'apiVersion: v1',
      'kind: Namespace',
      'metadata: { name: shop, labels: { istio.io/dataplane-mode: ambient, istio.io/use-waypoint: waypoint } }',
    ].join('\n'),
    'waypoint.yaml': [
      'apiVersion: gateway.networking.k8s.io/v1',
      'kind: Gateway',
      'metadata: { name: waypoint, namespace: shop }',
      'spec: { gatewayClassName: istio-waypoint, listeners: [{ name: mesh, port: 15008, protocol: HBONE }] }',
      'status: { addresses: [{ type: IPAddress, value: 10.0.0.9 }] }',
      '---',
      'apiVersion: gateway.networking.k8s.io/v1beta1',
      'kind: GatewayClass',
      'metadata: { name: istio-waypoint }',
      'spec: { controllerName: istio.io/mesh-controller }',
    ].join('\n'),
  };

  function run(
    ambient: boolean | undefined,
    test: (store: ConfigStore, dir: string, src: DirSource) => Promise<void>,
  ) {
    return async () => {
      const dir = mkdtempSync(join(tmpdir(), 'aeraki-dir-ambient-'));
      const store = new ConfigStore({ rootNamespace: ROOT });
      for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
      const src = new DirSource({
        dir,
        store,
        rootNamespace: ROOT,
        debounceMs: 10,
        pollMs: 0,
        clock: new ManualClock(0),
        ...(ambient !== undefined ? { ambient } : {}),
        logger: silentLogger,
      });
      try {
        src.start();
        await test(store, dir, src);
      } finally {
        await src.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    };
  }

  it(
    'reads Namespaces, Gateways (v1) and GatewayClasses (v1beta1) when asked',
    run(true, async (store) => {
      assert.equal(store.ambientNamespace('shop')?.labels['istio.io/use-waypoint'], 'waypoint');
      const g = store.waypoints().gateway('shop', 'waypoint');
      assert.equal(g?.addressed, true);
      assert.equal(g?.className, 'istio-waypoint');
      assert.ok(store.waypoints().gatewayClass('istio-waypoint'));
      await Promise.resolve();
    }),
  );

  it(
    'a bad Gateway keeps its last good version; a removed file removes its objects',
    run(true, async (store, dir, src) => {
      const events = recorded(store);
      writeFileSync(
        join(dir, 'waypoint.yaml'),
        files['waypoint.yaml'].replace('gatewayClassName: istio-waypoint', 'gatewayClassName: [x]'),
      );
      src.load();
      assert.equal(store.waypoints().gateway('shop', 'waypoint')?.className, 'istio-waypoint');
      rmSync(join(dir, 'ns.yaml'));
      src.load();
      assert.equal(store.ambientNamespace('shop'), undefined);
      assert.deepEqual(events, ['deleted Namespace /shop']);
      await Promise.resolve();
    }),
  );

  it(
    'reads none of them by default (least privilege), and still reads the rest',
    run(undefined, async (store) => {
      assert.equal(store.ambientNamespace('shop'), undefined);
      assert.equal(store.waypoints().gateway('shop', 'waypoint'), undefined);
      await Promise.resolve();
    }),
  );
});
