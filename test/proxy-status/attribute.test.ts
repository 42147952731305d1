import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SOURCE_ANNOTATION } from '../../src/model/constants.ts';
import type { EnvoyFilterObject, EnvoyFilterPatch } from '../../src/model/objects.ts';
import { inboundPatch, outboundPatch, type NetworkFilter } from '../../src/plugins/sdk/patches.ts';
import {
  attributeProxies,
  attributeRejections,
  indexEnvoyFilters,
  rejectedListeners,
} from '../../src/proxy-status/attribute.ts';
import type { ProxySync } from '../../src/proxy-status/decode.ts';

const META: NetworkFilter = {
  filterName: 'envoy.filters.network.meta_protocol_proxy',
  typeUrl: 'type.googleapis.com/aeraki.meta_protocol_proxy.v1alpha.MetaProtocolProxy',
  config: { statPrefix: 'x' },
};
const KAFKA: NetworkFilter = {
  filterName: 'envoy.filters.network.kafka_broker',
  typeUrl: 'type.googleapis.com/envoy.extensions.filters.network.kafka_broker.v3.KafkaBroker',
  config: { statPrefix: 'k' },
  operation: 'INSERT_BEFORE',
};

function ef(ns: string, name: string, source: string, patches: EnvoyFilterPatch[]): EnvoyFilterObject {
  return {
    apiVersion: 'networking.istio.io/v1alpha3',
    kind: 'EnvoyFilter',
    metadata: { name, namespace: ns, labels: {}, annotations: { [SOURCE_ANNOTATION]: source } },
    spec: { configPatches: patches },
  };
}

const FILTERS = [
  ef('istio-system', 'meta-dubbo', 'ServiceEntry/shop/dubbo', [outboundPatch('10.96.10.20', 20880, META)]),
  ef('istio-system', 'meta-thrift', 'ServiceEntry/shop/thrift', [
    outboundPatch('10.96.10.30', 9090, META),
    inboundPatch(9090, META),
  ]),
  ef('pay', 'kafka', 'ServiceEntry/pay/kafka', [outboundPatch('10.96.10.40', 9092, KAFKA)]),
];
const INDEX = indexEnvoyFilters(FILTERS, 'istio-system');

const proxy = (pod: string, ns: string, error?: string): ProxySync => ({
  id: `sidecar~10.244.1.1~${pod}.${ns}~${ns}.svc.cluster.local`,
  namespace: ns,
  listeners: error ? 'ERROR' : 'SYNCED',
  listenerError: error,
});

const BAD_LISTENER =
  'Error adding/updating listener(s) 10.96.10.20_20880: proto constraint validation failed (MetaProtocolProxyValidationError.Codec: value is required)';
const LACKS_META =
  "Error adding/updating listener(s) 10.96.10.30_9090: Didn't find a registered implementation for 'envoy.filters.network.meta_protocol_proxy' with type URL: 'aeraki.meta_protocol_proxy.v1alpha.MetaProtocolProxy'";

describe('attributeRejections', () => {
  it('names the listeners of an LDS rejection', () => {
    assert.deepEqual(rejectedListeners(BAD_LISTENER), ['10.96.10.20_20880']);
    assert.deepEqual(
      rejectedListeners(
        'Error adding/updating listener(s) 10.0.0.1_80: a\nvirtualInbound: b: c\nfd00::1_9090: d',
      ),
      ['10.0.0.1_80', 'virtualInbound', 'fd00::1_9090'],
    );
    assert.deepEqual(rejectedListeners('something else'), []);
  });

  it('attributes a rejection of a listener an EnvoyFilter patches to its source, with proxies and namespaces', () => {
    const out = attributeRejections(
      [
        proxy('a', 'shop', BAD_LISTENER),
        proxy('b', 'web', BAD_LISTENER),
        proxy('c', 'shop'),
        proxy('d', 'shop', BAD_LISTENER),
      ],
      INDEX,
    );
    assert.deepEqual(out, [
      {
        source: 'ServiceEntry/shop/dubbo',
        reason: 'ProxyRejected',
        proxies: 3,
        namespaces: ['shop', 'web'],
        firstProxy: 'sidecar~10.244.1.1~a.shop~shop.svc.cluster.local',
        firstError: BAD_LISTENER,
      },
    ]);
  });

  it('per proxy: the listeners, the error and the sources each rejection is attributed to', () => {
    const other = 'Error adding/updating listener(s) 10.96.0.1_443: some other problem';
    assert.deepEqual(
      attributeProxies(
        [proxy('a', 'shop', BAD_LISTENER), proxy('b', 'shop', other), proxy('c', 'web', LACKS_META)],
        INDEX,
      ),
      [
        {
          id: 'sidecar~10.244.1.1~a.shop~shop.svc.cluster.local',
          namespace: 'shop',
          reason: 'ProxyRejected',
          listeners: ['10.96.10.20_20880'],
          errorDetail: BAD_LISTENER,
          sources: ['ServiceEntry/shop/dubbo'],
        },
        {
          id: 'sidecar~10.244.1.1~c.web~web.svc.cluster.local',
          namespace: 'web',
          reason: 'ProxyLacksExtension',
          listeners: ['10.96.10.30_9090'],
          filter: 'envoy.filters.network.meta_protocol_proxy',
          errorDetail: LACKS_META,
          sources: ['ServiceEntry/shop/thrift'],
        },
      ],
    );
  });

  it('a filter the proxy lacks is ProxyLacksExtension, on the EnvoyFilters carrying it on that listener', () => {
    const out = attributeRejections([proxy('a', 'web', LACKS_META)], INDEX);
    assert.deepEqual(
      out.map((r) => [r.source, r.reason, r.filter, r.proxies]),
      [['ServiceEntry/shop/thrift', 'ProxyLacksExtension', 'envoy.filters.network.meta_protocol_proxy', 1]],
    );
  });

  it('a filter lacked without a listener named goes to every source carrying it that applies to the proxy', () => {
    const msg =
      "Didn't find a registered implementation for 'envoy.filters.network.kafka_broker' with type URL: ''";
    assert.deepEqual(
      attributeRejections([proxy('a', 'pay', msg)], INDEX).map((r) => r.source),
      ['ServiceEntry/pay/kafka'],
    );
    // The Kafka EnvoyFilter lives in namespace pay: a proxy elsewhere never loads it.
    assert.deepEqual(attributeRejections([proxy('a', 'shop', msg)], INDEX), []);
  });

  it('leaves alone rejections of listeners nobody here wrote, SYNCED and STALE proxies', () => {
    const other = 'Error adding/updating listener(s) 10.96.0.1_443: some other problem';
    assert.deepEqual(
      attributeRejections(
        [proxy('a', 'shop', other), { ...proxy('b', 'shop'), listeners: 'STALE' }, proxy('c', 'shop')],
        INDEX,
      ),
      [],
    );
  });

  it('a proxy that took the filter later clears it (each answer is attributed afresh)', () => {
    assert.equal(attributeRejections([proxy('a', 'shop', BAD_LISTENER)], INDEX).length, 1);
    assert.equal(attributeRejections([proxy('a', 'shop')], INDEX).length, 0);
  });

  it('ignores EnvoyFilters without a source annotation', () => {
    const bare = { ...FILTERS[0]!, metadata: { ...FILTERS[0]!.metadata, annotations: {} } };
    assert.deepEqual(
      attributeRejections([proxy('a', 'shop', BAD_LISTENER)], indexEnvoyFilters([bare], 'istio-system')),
      [],
    );
  });
});
