// Reading meets generation: the directory source with ambient inputs fills the ConfigStore, which is both the view
// generation reads and its AmbientView; a Namespace label change and a Gateway appearing or losing its address reach
// incremental generation through the store's events, which regenerates the namespace's services and nothing else.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DirSource } from '../../src/controller/dir-source.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { generateAll, type GenerateOptions } from '../../src/envoyfilter/generate-all.ts';
import { IncrementalGenerator } from '../../src/envoyfilter/incremental.ts';
import { createGenerators, createPluginKinds } from '../../src/plugins/registry.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { stableStringify } from '../../src/util/json.ts';
import { silentLogger } from '../../src/util/logger.ts';

const ROOT = 'istio-system';

const entry = (ns: string, name: string) =>
  [
    'apiVersion: networking.istio.io/v1',
    'kind: ServiceEntry',
    `metadata: { name: ${name}, namespace: ${ns} }`,
    `spec: { hosts: [${name}.${ns}.svc.cluster.local], addresses: [10.0.0.1], resolution: STATIC,`,
    '  ports: [{ number: 20880, name: tcp-dubbo, protocol: TCP }] }',
  ].join('\n');
const namespace = (name: string, waypoint?: string) =>
  [
    'apiVersion: v1',
    'kind: Namespace',
    `metadata: { name: ${name}, labels: { ${waypoint ? `istio.io/use-waypoint: ${waypoint}` : ''} } }`,
  ].join('\n');
const gateway = (addressed: boolean) =>
  [
    'apiVersion: gateway.networking.k8s.io/v1',
    'kind: Gateway',
    'metadata: { name: waypoint, namespace: shop }',
    'spec: { gatewayClassName: istio-waypoint, listeners: [{ name: mesh, port: 15008, protocol: HBONE }] }',
    `status: { addresses: [${addressed ? '{ type: IPAddress, value: 10.0.0.9 }' : ''}] }`,
  ].join('\n');

describe('ambient inputs read by a source reach incremental generation', () => {
  it('a Namespace label change and a Gateway change regenerate exactly the services they bind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aeraki-ambient-gen-'));
    const store = new ConfigStore({ rootNamespace: ROOT, kinds: createPluginKinds() });
    const write = (file: string, text: string) => writeFileSync(join(dir, file), text);
    write('entries.yaml', [entry('shop', 'a'), entry('shop', 'b'), entry('other', 'c')].join('\n---\n'));
    write('ns.yaml', [namespace('shop'), namespace('other')].join('\n---\n'));
    write('gw.yaml', gateway(true));
    const src = new DirSource({
      dir,
      store,
      rootNamespace: ROOT,
      debounceMs: 10,
      pollMs: 0,
      clock: new ManualClock(0),
      ambient: true,
      logger: silentLogger,
    });
    const generators = createGenerators();
    const options: GenerateOptions = { namespaceScope: false, waypointFilters: true, ambient: store };
    try {
      src.start();
      const inc = new IncrementalGenerator(store, generators, options);
      const step = () => {
        const out = inc.update();
        const full = generateAll(store, generators, options);
        assert.equal(stableStringify(out.objects), stableStringify(full.objects));
        const waypoint = out.objects
          .filter((o) => o.metadata.name.startsWith('aeraki-waypoint-'))
          .map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
        return { regenerated: inc.lastRegenerated(), waypoint };
      };
      assert.deepEqual(step().waypoint, []);

      write('ns.yaml', [namespace('shop', 'waypoint'), namespace('other')].join('\n---\n'));
      src.load();
      assert.deepEqual(step(), {
        regenerated: ['ServiceEntry/shop/a', 'ServiceEntry/shop/b'],
        waypoint: [
          'shop/aeraki-waypoint-a.shop.svc.cluster.local-20880',
          'shop/aeraki-waypoint-b.shop.svc.cluster.local-20880',
        ],
      });

      write('gw.yaml', gateway(false));
      src.load();
      assert.deepEqual(step(), { regenerated: ['ServiceEntry/shop/a', 'ServiceEntry/shop/b'], waypoint: [] });

      write('gw.yaml', gateway(true));
      write('ns.yaml', [namespace('shop'), namespace('other')].join('\n---\n'));
      src.load();
      assert.deepEqual(step(), { regenerated: ['ServiceEntry/shop/a', 'ServiceEntry/shop/b'], waypoint: [] });
      inc.stop();
    } finally {
      await src.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
