// Waypoint filters (src/envoyfilter/waypoint.ts): what binds and what does not, ports istiod gives no tcp chain,
// failures keeping the source's output, and incremental generation following the binding inputs (the service's
// labels, its Namespace, the Gateway and its GatewayClass).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateAll, type GenerateOptions } from '../../src/envoyfilter/generate-all.ts';
import { IncrementalGenerator } from '../../src/envoyfilter/incremental.ts';
import type { AmbientNamespace } from '../../src/model/ambient/binding.ts';
import type { WaypointGateway, WaypointGatewayClass } from '../../src/model/ambient/waypoint.ts';
import type { ConfigStore } from '../../src/controller/store.ts';
import type { ConfigEvent } from '../../src/model/view.ts';
import type { TrackedView } from '../../src/kit/incremental/dependencies.ts';
import { formatIssue } from '../../src/model/result.ts';
import { createGenerators } from '../../src/plugins/registry.ts';
import { stableStringify } from '../../src/util/json.ts';
import { serviceEntry, storeOf } from '../support/builders.ts';
import { ambientViewOf } from './waypoint-support.ts';

const host = (name: string, ns: string) => `${name}.${ns}.svc.cluster.local`;
const USE = 'istio.io/use-waypoint';
const dubbo = (ns: string, name: string, labels: Record<string, string> = {}, protocol = 'TCP') =>
  serviceEntry(
    ns,
    name,
    {
      hosts: [host(name, ns)],
      addresses: ['240.240.0.2'],
      ports: [{ number: 20880, name: 'tcp-dubbo', protocol }],
    },
    { labels },
  );
const gateway = (ns: string, name: string, extra: Partial<WaypointGateway> = {}): WaypointGateway => ({
  namespace: ns,
  name,
  className: 'istio-waypoint',
  addressed: true,
  listeners: [{ port: 15008, protocol: 'HBONE' }],
  ...extra,
});

/** Ambient inputs that tests change in place; the view reads them as they are. */
function ambientWorld() {
  const namespaces = new Map<string, AmbientNamespace>();
  const gateways: WaypointGateway[] = [];
  const classes: WaypointGatewayClass[] = [];
  const view = {
    ambientNamespace: (name: string) => namespaces.get(name),
    waypoints: () => ambientViewOf({ namespaces: [], gateways, classes }).waypoints(),
  };
  return { namespaces, gateways, classes, view };
}

const waypointNames = (objects: readonly { metadata: { namespace: string; name: string } }[]) =>
  objects
    .filter((o) => o.metadata.name.startsWith('aeraki-waypoint-'))
    .map((o) => `${o.metadata.namespace}/${o.metadata.name}`);

describe('waypoint filters', () => {
  const generators = createGenerators();

  it("a service's own `none` wins over its namespace's binding, silently", () => {
    const { namespaces, gateways, view } = ambientWorld();
    namespaces.set('shop', { name: 'shop', labels: { [USE]: 'waypoint' } });
    gateways.push(gateway('shop', 'waypoint'));
    const store = storeOf([dubbo('shop', 'bound'), dubbo('shop', 'out', { [USE]: 'none' })]);
    const out = generateAll(store, generators, {
      namespaceScope: false,
      waypointFilters: true,
      ambient: view,
    });
    assert.deepEqual(waypointNames(out.objects), ['shop/aeraki-waypoint-bound.shop.svc.cluster.local-20880']);
    assert.deepEqual(out.issues, []);
  });

  it('a service bound to our own waypoint (aeraki-waypoint) gets no EnvoyFilter and no warning: ADS carries it', () => {
    const { namespaces, gateways, view } = ambientWorld();
    namespaces.set('shop', { name: 'shop', labels: { [USE]: 'ours' } });
    gateways.push(gateway('shop', 'ours', { className: 'aeraki-waypoint' }));
    gateways.push(gateway('shop', 'istios'));
    const store = storeOf([dubbo('shop', 'a'), dubbo('shop', 'b', { [USE]: 'istios' })]);
    const out = generateAll(store, generators, {
      namespaceScope: false,
      waypointFilters: true,
      ambient: view,
    });
    assert.deepEqual(waypointNames(out.objects), ['shop/aeraki-waypoint-b.shop.svc.cluster.local-20880']);
    assert.deepEqual(out.issues, []);
  });

  it('a binding to a Gateway that is not ready gives a warning and no filter', () => {
    const { gateways, view } = ambientWorld();
    gateways.push(gateway('shop', 'waypoint', { addressed: false }));
    const store = storeOf([dubbo('shop', 'svc', { [USE]: 'waypoint' })]);
    const out = generateAll(store, generators, {
      namespaceScope: false,
      waypointFilters: true,
      ambient: view,
    });
    assert.deepEqual(waypointNames(out.objects), []);
    assert.match(
      out.issues.map(formatIssue).join('\n'),
      /names waypoint shop\/waypoint, which istiod does not use \(the Gateway has no status.addresses yet\)/,
    );
  });

  it('a port istiod sees as HTTP has no tcp chain: a warning, no filter', () => {
    const { gateways, view } = ambientWorld();
    gateways.push(gateway('shop', 'waypoint'));
    const store = storeOf([dubbo('shop', 'svc', { [USE]: 'waypoint' }, 'HTTP')]);
    const out = generateAll(store, generators, {
      namespaceScope: false,
      waypointFilters: true,
      ambient: view,
    });
    assert.deepEqual(waypointNames(out.objects), []);
    assert.match(
      out.issues.map(formatIssue).join('\n'),
      /port "tcp-dubbo" is HTTP to istiod, so waypoint shop\/waypoint has no tcp chain/,
    );
  });

  it('a MetaProtocol port gets a filter only on a waypoint running a known MetaProtocol image', () => {
    const meta = serviceEntry(
      'rpc',
      'greeter',
      { hosts: [host('greeter', 'rpc')], ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo' }] },
      { labels: { [USE]: 'waypoint' } },
    );
    const store = storeOf([meta]);
    const filtersWith = (proxyImage: string | undefined, metaProtocolImages?: readonly string[]) => {
      const { gateways, view } = ambientWorld();
      gateways.push(gateway('rpc', 'waypoint', proxyImage === undefined ? {} : { proxyImage }));
      const options = { namespaceScope: false, waypointFilters: true, ambient: view };
      const out = generateAll(store, generators, {
        ...options,
        ...(metaProtocolImages ? { metaProtocolImages } : {}),
      });
      return waypointNames(out.objects).length;
    };
    assert.equal(filtersWith('ghcr.io/aeraki-mesh/meta-protocol-proxy:1.4.2'), 1);
    assert.equal(filtersWith('docker.io/aeraki/meta-protocol-proxy@sha256:00'), 1);
    // Without a `/` the annotation does not replace the image (waypoint.yaml): the waypoint runs istio-proxy.
    assert.equal(filtersWith('meta-protocol-proxy'), 0);
    assert.equal(filtersWith(undefined), 0);
    assert.equal(filtersWith('registry.example/mpp:1'), 0);
    assert.equal(filtersWith('registry.example/mpp:1', ['registry.example/mpp']), 1);
  });

  it('a generator failing on the waypoint fails the whole source (its output is kept)', () => {
    const { gateways, view } = ambientWorld();
    gateways.push(gateway('shop', 'waypoint'));
    const broken = {
      ...generators.find((g) => g.name === 'dubbo')!,
      generateWaypoint: () => {
        throw new Error('boom');
      },
    };
    const store = storeOf([dubbo('shop', 'svc', { [USE]: 'waypoint' })]);
    const out = generateAll(store, [broken], { namespaceScope: false, waypointFilters: true, ambient: view });
    assert.deepEqual(out.objects, []);
    assert.deepEqual([...out.failedSources], ['ServiceEntry/shop/svc']);
    assert.match(out.issues.map(formatIssue).join('\n'), /internal error in the dubbo generator: boom/);
  });
});

/** `store` as a TrackedView whose subscribers also hear the events `emit` sends (the ambient kinds' events). */
function withEvents(store: ConfigStore): { view: TrackedView; emit: (e: ConfigEvent) => void } {
  const listeners: ((e: ConfigEvent) => void)[] = [];
  const view = new Proxy(store, {
    get(target, key) {
      if (key === 'subscribe') {
        return (l: (e: ConfigEvent) => void) => {
          listeners.push(l);
          return target.subscribe(l);
        };
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as TrackedView;
  return { view, emit: (e) => listeners.forEach((l) => l(e)) };
}

const event = (kind: string, namespace: string, name: string): ConfigEvent => ({
  type: 'updated',
  kind: kind as ConfigEvent['kind'],
  namespace,
  name,
});

describe('incremental waypoint filters', () => {
  it('regenerate exactly the services whose Namespace, Gateway or GatewayClass changed', () => {
    const { namespaces, gateways, classes, view: ambient } = ambientWorld();
    const store = storeOf([dubbo('shop', 'a'), dubbo('shop', 'b'), dubbo('other', 'c')]);
    const { view, emit } = withEvents(store);
    const generators = createGenerators();
    const options: GenerateOptions = { namespaceScope: false, waypointFilters: true, ambient };
    const inc = new IncrementalGenerator(view, generators, options);
    const step = () => {
      const out = inc.update();
      assert.equal(
        stableStringify(out.objects),
        stableStringify(generateAll(store, generators, options).objects),
      );
      return { regenerated: inc.lastRegenerated(), waypoint: waypointNames(out.objects) };
    };
    assert.deepEqual(step().waypoint, []);

    namespaces.set('shop', { name: 'shop', labels: { [USE]: 'waypoint' } });
    emit(event('Namespace', '', 'shop'));
    assert.deepEqual(step(), { regenerated: ['ServiceEntry/shop/a', 'ServiceEntry/shop/b'], waypoint: [] });

    gateways.push(gateway('shop', 'waypoint', { className: 'custom' }));
    emit(event('KubernetesGateway', 'shop', 'waypoint'));
    assert.deepEqual(step(), {
      regenerated: ['ServiceEntry/shop/a', 'ServiceEntry/shop/b'],
      waypoint: [
        'shop/aeraki-waypoint-a.shop.svc.cluster.local-20880',
        'shop/aeraki-waypoint-b.shop.svc.cluster.local-20880',
      ],
    });

    classes.push({ name: 'custom', waypointFor: 'workload' });
    emit(event('GatewayClass', '', 'custom'));
    assert.deepEqual(step(), { regenerated: ['ServiceEntry/shop/a', 'ServiceEntry/shop/b'], waypoint: [] });

    classes.length = 0;
    emit(event('GatewayClass', '', 'custom'));
    step();
    store.upsert(dubbo('shop', 'b', { [USE]: 'none' }));
    assert.deepEqual(step(), {
      regenerated: ['ServiceEntry/shop/b'],
      waypoint: ['shop/aeraki-waypoint-a.shop.svc.cluster.local-20880'],
    });
    emit(event('Namespace', '', 'other'));
    assert.deepEqual(step().regenerated, ['ServiceEntry/other/c']);
    emit(event('Namespace', '', 'empty'));
    emit(event('KubernetesGateway', 'other', 'waypoint'));
    assert.deepEqual(step().regenerated, []);
    inc.stop();
  });
});
