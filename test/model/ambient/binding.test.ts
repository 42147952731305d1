import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  waypointOf,
  type AmbientNamespace,
  type AmbientService,
} from '../../../src/model/ambient/binding.ts';
import {
  indexWaypoints,
  type WaypointGateway,
  type WaypointGatewayClass,
} from '../../../src/model/ambient/waypoint.ts';

function gateway(namespace: string, name: string, extra: Partial<WaypointGateway> = {}): WaypointGateway {
  return {
    namespace,
    name,
    className: 'istio-waypoint',
    addressed: true,
    listeners: [{ port: 15008, protocol: 'HBONE' }],
    ...extra,
  };
}

function ns(name: string, labels: Record<string, string> = {}): AmbientNamespace {
  return { name, labels };
}

function svc(
  namespace: string,
  labels: Record<string, string> = {},
  kind: AmbientService['kind'] = 'Service',
): AmbientService {
  return { kind, namespace, name: 'orders', labels };
}

const AMBIENT = { 'istio.io/dataplane-mode': 'ambient' };
const shop = ns('shop', { ...AMBIENT, 'istio.io/use-waypoint': 'shop-wp' });
const waypoints = indexWaypoints([gateway('shop', 'shop-wp'), gateway('shop', 'own-wp')]);

describe('waypointOf: which label wins', () => {
  it('binds through the namespace label', () => {
    const b = waypointOf(svc('shop'), shop, waypoints);
    assert.equal(b.bound, true);
    assert.deepEqual(b.waypoint, { namespace: 'shop', name: 'shop-wp' });
    assert.equal(b.source, 'namespace');
    assert.equal(b.ambient, true);
  });

  it('the service label wins over the namespace label', () => {
    const b = waypointOf(svc('shop', { 'istio.io/use-waypoint': 'own-wp' }), shop, waypoints);
    assert.equal(b.bound, true);
    assert.deepEqual(b.waypoint, { namespace: 'shop', name: 'own-wp' });
    assert.equal(b.source, 'service');
  });

  it('`none` on the service opts out even when the namespace names a waypoint', () => {
    const b = waypointOf(svc('shop', { 'istio.io/use-waypoint': 'none' }), shop, waypoints);
    assert.deepEqual(b, { bound: false, reason: 'opted-out', source: 'service', ambient: true });
  });

  it('`none` on the namespace opts out', () => {
    const b = waypointOf(svc('shop'), ns('shop', { 'istio.io/use-waypoint': 'none' }), waypoints);
    assert.deepEqual(b, { bound: false, reason: 'opted-out', source: 'namespace', ambient: false });
  });

  it('no label anywhere: no waypoint, and no namespace at all is the same', () => {
    assert.deepEqual(waypointOf(svc('shop'), ns('shop', AMBIENT), waypoints), {
      bound: false,
      reason: 'no-label',
      ambient: true,
    });
    assert.deepEqual(waypointOf(svc('shop'), undefined, waypoints), {
      bound: false,
      reason: 'no-label',
      ambient: false,
    });
  });

  it('a service label naming a missing Gateway does not fall back to the namespace', () => {
    const b = waypointOf(svc('shop', { 'istio.io/use-waypoint': 'gone' }), shop, waypoints);
    assert.deepEqual(b, {
      bound: false,
      reason: 'gateway-missing',
      waypoint: { namespace: 'shop', name: 'gone' },
      source: 'service',
      ambient: true,
    });
  });

  it('use-waypoint-namespace alone on the service is ignored (the namespace label decides)', () => {
    const b = waypointOf(svc('shop', { 'istio.io/use-waypoint-namespace': 'other' }), shop, waypoints);
    assert.equal(b.bound, true);
    assert.deepEqual(b.waypoint, { namespace: 'shop', name: 'shop-wp' });
  });

  it('binds whatever the dataplane mode (istiod does not read it); `ambient` reports it', () => {
    const b = waypointOf(svc('shop', { 'istio.io/use-waypoint': 'own-wp' }), ns('shop'), waypoints);
    assert.equal(b.bound, true);
    assert.equal(b.ambient, false);
  });

  it("a waypoint's own Service and an east-west gateway's never bind", () => {
    for (const managed of ['istio.io-mesh-controller', 'istio.io-eastwest-controller']) {
      assert.deepEqual(waypointOf(svc('shop', { 'gateway.istio.io/managed': managed }), shop, waypoints), {
        bound: false,
        reason: 'is-gateway',
        ambient: true,
      });
    }
    assert.equal(
      waypointOf(svc('shop', { 'gateway.istio.io/managed': 'istio.io-gateway-controller' }), shop, waypoints)
        .bound,
      true,
    );
  });

  it('a Service and a ServiceEntry bind by the same rules', () => {
    for (const kind of ['Service', 'ServiceEntry'] as const) {
      const own = waypointOf(svc('shop', { 'istio.io/use-waypoint': 'own-wp' }, kind), shop, waypoints);
      assert.deepEqual(own.waypoint, { namespace: 'shop', name: 'own-wp' });
      const none = waypointOf(svc('shop', { 'istio.io/use-waypoint': 'none' }, kind), shop, waypoints);
      assert.equal(none.bound, false);
    }
  });
});

describe('waypointOf: the Gateway', () => {
  it('a Gateway without status addresses is not a waypoint yet', () => {
    const idx = indexWaypoints([gateway('shop', 'shop-wp', { addressed: false })]);
    const b = waypointOf(svc('shop'), shop, idx);
    assert.equal(b.bound, false);
    assert.equal(b.bound === false && b.reason, 'gateway-not-ready');
  });

  it('waypoint-for: service and all take service traffic; workload, none and unknown values do not', () => {
    for (const [waypointFor, bound] of [
      ['service', true],
      ['all', true],
      ['workload', false],
      ['none', false],
      ['Service', false],
    ] as const) {
      const b = waypointOf(svc('shop'), shop, indexWaypoints([gateway('shop', 'shop-wp', { waypointFor })]));
      assert.equal(b.bound, bound, waypointFor);
      if (!b.bound) assert.equal(b.reason, 'not-service-traffic');
    }
  });

  it('waypoint-for defaults to service, the GatewayClass label applies, and the Gateway label wins over it', () => {
    const workloadClass: WaypointGatewayClass = { name: 'istio-waypoint', waypointFor: 'workload' };
    assert.equal(waypointOf(svc('shop'), shop, indexWaypoints([gateway('shop', 'shop-wp')])).bound, true);
    const inherited = waypointOf(
      svc('shop'),
      shop,
      indexWaypoints([gateway('shop', 'shop-wp')], [workloadClass]),
    );
    assert.equal(inherited.bound === false && inherited.reason, 'not-service-traffic');
    const overridden = waypointOf(
      svc('shop'),
      shop,
      indexWaypoints([gateway('shop', 'shop-wp', { waypointFor: 'all' })], [workloadClass]),
    );
    assert.equal(overridden.bound, true);
  });

  it('binds to a Gateway of any class, as istiod does', () => {
    const idx = indexWaypoints([gateway('shop', 'shop-wp', { className: 'aeraki-waypoint' })]);
    assert.equal(waypointOf(svc('shop'), shop, idx).bound, true);
  });
});

describe('waypointOf: a waypoint in another namespace', () => {
  const labels = { 'istio.io/use-waypoint': 'shared', 'istio.io/use-waypoint-namespace': 'mesh' };
  const shared = (from?: string, selector?: { matchLabels: Record<string, string> }) =>
    indexWaypoints([
      gateway('mesh', 'shared', {
        listeners: [{ port: 15008, protocol: 'HBONE', allowedNamespaces: { from, selector } }],
      }),
    ]);

  it('binds when the HBONE listener admits all namespaces', () => {
    const b = waypointOf(svc('shop', labels), ns('shop'), shared('All'));
    assert.equal(b.bound, true);
    assert.deepEqual(b.waypoint, { namespace: 'mesh', name: 'shared' });
  });

  it('is denied by the default `Same`', () => {
    for (const idx of [shared(), shared('Same'), indexWaypoints([gateway('mesh', 'shared')])]) {
      const b = waypointOf(svc('shop', labels), ns('shop'), idx);
      assert.equal(b.bound === false && b.reason, 'attachment-denied');
    }
  });

  it('a selector is matched against the service namespace labels', () => {
    const idx = shared('Selector', { matchLabels: { team: 'shop' } });
    assert.equal(waypointOf(svc('shop', labels), ns('shop', { team: 'shop' }), idx).bound, true);
    const other = waypointOf(svc('shop', labels), ns('shop', { team: 'web' }), idx);
    assert.equal(other.bound === false && other.reason, 'attachment-denied');
  });

  it('a Selector applies to the Gateway namespace too (no same-namespace shortcut)', () => {
    const selective = indexWaypoints([
      gateway('shop', 'shop-wp', {
        listeners: [
          {
            port: 15008,
            protocol: 'HBONE',
            allowedNamespaces: { from: 'Selector', selector: { matchLabels: { team: 'x' } } },
          },
        ],
      }),
    ]);
    const b = waypointOf(svc('shop'), shop, selective);
    assert.equal(b.bound === false && b.reason, 'attachment-denied');
  });

  it('a namespace label can name a waypoint in another namespace too', () => {
    const b = waypointOf(svc('shop'), ns('shop', labels), shared('All'));
    assert.equal(b.bound, true);
    assert.equal(b.source, 'namespace');
    assert.deepEqual(b.waypoint, { namespace: 'mesh', name: 'shared' });
  });

  it('a listener other than HBONE/15008 gives no attachment (Same)', () => {
    const idx = indexWaypoints([
      gateway('mesh', 'shared', {
        listeners: [{ port: 15009, protocol: 'HBONE', allowedNamespaces: { from: 'All' } }],
      }),
    ]);
    const b = waypointOf(svc('shop', labels), ns('shop'), idx);
    assert.equal(b.bound === false && b.reason, 'attachment-denied');
  });

  it('an inbound binding picks its listener: PROXY/<port> by port, PROXY by protocol istio.io/PROXY', () => {
    const listeners = [
      { port: 15008, protocol: 'HBONE' },
      { port: 15088, protocol: 'istio.io/PROXY', allowedNamespaces: { from: 'All' } },
    ];
    for (const inboundBinding of ['PROXY/15088', 'PROXY']) {
      const idx = indexWaypoints([gateway('mesh', 'shared', { listeners, inboundBinding })]);
      assert.equal(waypointOf(svc('shop', labels), ns('shop'), idx).bound, true, inboundBinding);
    }
    const fromClass = indexWaypoints(
      [gateway('mesh', 'shared', { listeners, className: 'sandwich' })],
      [{ name: 'sandwich', inboundBinding: 'PROXY/15088' }],
    );
    assert.equal(waypointOf(svc('shop', labels), ns('shop'), fromClass).bound, true);
    const invalid = indexWaypoints([gateway('mesh', 'shared', { listeners, inboundBinding: 'HBONE' })]);
    assert.equal(waypointOf(svc('shop', labels), ns('shop'), invalid).bound, false);
  });
});
