// Rejections by waypoint proxies (src/proxy-status/waypoint.ts, attribute.ts): the EnvoyFilters of the waypoint
// render cases (test/fixtures/waypoint, as `render --waypoint-envoyfilters` prints them), and syncz entries as
// istiod reports waypoints: id `<pod>.<ns>`, type `waypoint` in /debug/syncz JSON and no type in ClientConfig.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { EnvoyFilterObject } from '../../src/model/objects.ts';
import {
  attributeProxies,
  attributeRejections,
  indexEnvoyFilters,
  rejectedListeners,
} from '../../src/proxy-status/attribute.ts';
import { namespaceOfProxyId, typeOfProxyId, type ProxySync } from '../../src/proxy-status/decode.ts';
import { deploymentOfPod, podOfProxyId, rejectedChains } from '../../src/proxy-status/waypoint.ts';
import { repoRoot } from '../app/fixture-cases.ts';

const filtersOf = (name: string): EnvoyFilterObject[] =>
  (
    JSON.parse(
      readFileSync(path.join(repoRoot, 'test/fixtures/waypoint', name, 'expected-envoyfilters.json'), 'utf8'),
    ) as { items: EnvoyFilterObject[] }
  ).items;

/** Case 01: shop's Services orders (bound to shop/waypoint) and audit (opted out); Dubbo sidecar filters for both. */
const SHOP = indexEnvoyFilters(filtersOf('01-dubbo-service-namespace-binding'), 'istio-system');
/** Case 02: ServiceEntry apps/calc bound to the waypoint infra/shared. */
const INFRA = indexEnvoyFilters(filtersOf('02-thrift-serviceentry-cross-namespace'), 'istio-system');

const ORDERS_CHAIN = 'inbound-vip|20880|tcp|orders.shop.svc.cluster.local';
const CHAIN_REJECTED = `Error adding/updating listener(s) main_internal: filter chain '${ORDERS_CHAIN}': Proto constraint validation failed (DubboProxyValidationError.StatPrefix: value length must be at least 1 characters)`;
const MAIN_REJECTED =
  "Error adding/updating listener(s) main_internal: error adding listener named 'main_internal': multiple filter chains with the same matching rules are defined";
const LACKS_DUBBO =
  "Didn't find a registered implementation for 'envoy.filters.network.dubbo_proxy' with type URL: 'envoy.extensions.filters.network.dubbo_proxy.v3.DubboProxy'";

const waypoint = (pod: string, ns: string, error: string, type?: string): ProxySync => ({
  id: `${pod}.${ns}`,
  namespace: ns,
  ...(type !== undefined ? { type } : {}),
  listeners: 'ERROR',
  listenerError: error,
});

describe('waypoint rejections', () => {
  it('reads main_internal and the waypoint chains an Envoy message names', () => {
    assert.deepEqual(rejectedListeners(CHAIN_REJECTED), ['main_internal']);
    assert.deepEqual(rejectedChains(CHAIN_REJECTED), [ORDERS_CHAIN]);
    assert.deepEqual(rejectedChains('inbound-vip|20880|tcp/v1|orders.shop.svc.cluster.local'), []);
    assert.equal(podOfProxyId('waypoint-5b7c9d8f6-x2k4p.shop'), 'waypoint-5b7c9d8f6-x2k4p');
    assert.equal(
      podOfProxyId('waypoint~10.0.0.1~waypoint-5b7c9d8f6-x2k4p.shop~shop.svc.cluster.local'),
      'waypoint-5b7c9d8f6-x2k4p',
    );
    assert.equal(deploymentOfPod('waypoint-5b7c9d8f6-x2k4p'), 'waypoint');
    assert.equal(deploymentOfPod('waypoint'), undefined);
    assert.equal(namespaceOfProxyId('waypoint-5b7c9d8f6-x2k4p.shop'), 'shop');
    assert.equal(namespaceOfProxyId('waypoint~10.0.0.1~waypoint-1.shop~shop.svc.cluster.local'), 'shop');
    assert.equal(typeOfProxyId('waypoint~10.0.0.1~waypoint-1.shop~shop.svc.cluster.local'), 'waypoint');
    assert.equal(typeOfProxyId('waypoint-5b7c9d8f6-x2k4p.shop'), undefined);
  });

  it('a waypoint rejecting a chain of main_internal: the source of the waypoint filter of that chain', () => {
    for (const type of ['waypoint', undefined]) {
      const p = waypoint('waypoint-5b7c9d8f6-x2k4p', 'shop', CHAIN_REJECTED, type);
      assert.deepEqual(attributeProxies([p], SHOP), [
        {
          id: p.id,
          namespace: 'shop',
          reason: 'ProxyRejected',
          listeners: ['main_internal'],
          errorDetail: CHAIN_REJECTED,
          sources: ['Service/shop/orders'],
        },
      ]);
    }
  });

  it('a rejection of main_internal naming no chain: every waypoint filter of that waypoint, counted per source', () => {
    const out = attributeRejections(
      [
        waypoint('shared-7f6d5c4b3-abcde', 'infra', MAIN_REJECTED, 'waypoint'),
        waypoint('shared-7f6d5c4b3-fghij', 'infra', MAIN_REJECTED),
      ],
      INFRA,
    );
    assert.deepEqual(out, [
      {
        source: 'ServiceEntry/apps/calc',
        reason: 'ProxyRejected',
        proxies: 2,
        namespaces: ['infra'],
        firstProxy: 'shared-7f6d5c4b3-abcde.infra',
        firstError: MAIN_REJECTED,
      },
    ]);
  });

  it('a waypoint lacking the filter: its waypoint filters carrying it, never the sidecar filters', () => {
    const out = attributeProxies(
      [waypoint('waypoint-5b7c9d8f6-x2k4p', 'shop', LACKS_DUBBO, 'waypoint')],
      SHOP,
    );
    assert.deepEqual(
      out.map((r) => [r.reason, r.filter, r.sources]),
      [['ProxyLacksExtension', 'envoy.filters.network.dubbo_proxy', ['Service/shop/orders']]],
    );
  });

  it('another waypoint, another namespace, a sidecar, another chain: nothing attributed', () => {
    const otherChain = CHAIN_REJECTED.replaceAll('orders', 'audit');
    const none = [
      waypoint('private-5b7c9d8f6-x2k4p', 'infra', MAIN_REJECTED, 'waypoint'),
      waypoint('shared-7f6d5c4b3-abcde', 'apps', MAIN_REJECTED, 'waypoint'),
      waypoint('waypoint-5b7c9d8f6-x2k4p', 'shop', otherChain),
      waypoint('waypoint', 'shop', MAIN_REJECTED, 'waypoint'),
      waypoint('orders-6c8d7e9f5-q1w2e', 'shop', CHAIN_REJECTED, 'sidecar'),
      waypoint(
        'waypoint-5b7c9d8f6-x2k4p',
        'shop',
        'Error adding/updating listener(s) connect_terminate: boom',
      ),
    ];
    assert.deepEqual(attributeProxies(none, SHOP), []);
    assert.deepEqual(attributeProxies(none, INFRA), []);
  });

  it('a sidecar lacking the filter: the sidecar filters carrying it, never the waypoint filters', () => {
    const sidecar: ProxySync = {
      id: 'sidecar~10.0.0.9~client-6c8d7e9f5-q1w2e.shop~shop.svc.cluster.local',
      namespace: 'shop',
      type: 'sidecar',
      listeners: 'ERROR',
      listenerError: `Error adding/updating listener(s) 10.96.20.2_20880: ${LACKS_DUBBO}`,
    };
    assert.deepEqual(attributeProxies([sidecar], SHOP)[0]?.sources, ['Service/shop/audit']);
  });
});
