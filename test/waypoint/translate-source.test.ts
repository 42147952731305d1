// The image a Gateway of our class runs (its aeraki.io/proxy-image annotation, read by the ambient parser, else
// --waypoint-image, else the default) and the source pushing the translator's changes to the ADS cache: nothing
// before the inputs synced, a full build first, then debounced pushes of what changed only.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_WAYPOINT_IMAGE } from '../../src/model/ambient/own-waypoint.ts';
import { indexWaypoints } from '../../src/model/ambient/waypoint.ts';
import type { WaypointChange } from '../../src/model/ambient/xds.ts';
import { parseAmbientObject } from '../../src/model/parse/ambient.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { WaypointSource } from '../../src/waypoint/incremental-source.ts';
import { gatewayImage } from '../../src/waypoint/translate-context.ts';
import { recordingLogger } from '../support/recording-logger.ts';
import { virtualService } from '../support/builders.ts';
import { ORDERS, ownGateway, world } from './translate-support.ts';

describe('own waypoint image', () => {
  it('reads aeraki.io/proxy-image of a Gateway', () => {
    const raw = {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      metadata: {
        name: 'wp',
        namespace: 'shop',
        annotations: { 'aeraki.io/proxy-image': 'example.com/mp:1' },
      },
      spec: {
        gatewayClassName: 'aeraki-waypoint',
        listeners: [{ name: 'proxy', port: 15088, protocol: 'istio.io/PROXY' }],
      },
    };
    const parsed = parseAmbientObject(raw);
    assert.ok(parsed?.ok && parsed.value.kind === 'KubernetesGateway');
    assert.equal(parsed.value.value.ownWaypointImage, 'example.com/mp:1');
  });

  it('takes the annotation, else --waypoint-image, else the default, and tells the image kind', () => {
    const plain = ownGateway('shop', 'wp');
    assert.deepEqual(gatewayImage(plain, {}), { ref: DEFAULT_WAYPOINT_IMAGE, kind: 'envoy' });
    assert.deepEqual(gatewayImage(plain, { waypointImage: 'docker.io/envoyproxy/envoy:contrib-v1.38.4' }), {
      ref: 'docker.io/envoyproxy/envoy:contrib-v1.38.4',
      kind: 'envoy-contrib',
    });
    const annotated = ownGateway('shop', 'wp', { ownWaypointImage: 'example.com/mp:1' });
    assert.deepEqual(gatewayImage(annotated, { metaProtocolImages: ['example.com/mp'] }), {
      ref: 'example.com/mp:1',
      kind: 'metaprotocol',
    });
  });

  it('lists the Gateways read in namespace/name order', () => {
    const index = indexWaypoints([ownGateway('b', 'x'), ownGateway('a', 'y'), ownGateway('a', 'x')]);
    assert.deepEqual(
      index.gateways().map((g) => `${g.namespace}/${g.name}`),
      ['a/x', 'a/y', 'b/x'],
    );
  });
});

describe('own waypoint source', () => {
  it('pushes nothing before ready, then a full build, then only what changed, debounced', async () => {
    const { store, translator } = world();
    const pushed: WaypointChange[][] = [];
    const clock = new ManualClock();
    let ready = false;
    const source = new WaypointSource(
      translator,
      { apply: (c) => pushed.push([...c]) },
      { clock, isReady: () => ready, quietMs: 100, maxWaitMs: 1000, pollMs: 500, logger: recordingLogger() },
    );
    source.start();
    clock.advance(100);
    await source.idle();
    assert.equal(pushed.length, 0);
    ready = true;
    clock.advance(500);
    await source.idle();
    assert.equal(pushed.length, 1);
    assert.deepEqual(
      pushed[0]?.map((c) => [c.gateway, c.services.size]),
      [['shop/wp', 3]],
    );
    store.upsert(
      virtualService('shop', 'orders', {
        hosts: [ORDERS],
        tcp: [{ match: [], route: [{ destination: { host: ORDERS, subset: 'v1' } }] }],
      }),
    );
    clock.advance(100);
    await source.idle();
    assert.equal(pushed.length, 2);
    assert.deepEqual([...(pushed[1]?.[0]?.services.keys() ?? [])], ['Service/shop/orders']);
    await source.stop();
    translator.stop();
  });
});
