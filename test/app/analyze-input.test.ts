// analysisInputOf: the objects as validate reads them, the EnvoyFilters render would write as facts, every issue
// with both its severities, and the protocols the generators handle.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { admissionOnly } from '../../src/model/result.ts';
import { inputOf, serviceEntry } from '../analyze/support.ts';

describe('analysisInputOf', () => {
  it('turns the generated EnvoyFilters into facts: name, source, where each patch applies', () => {
    const input = inputOf(serviceEntry('orders', ['tcp-metaprotocol-dubbo:20880']));
    assert.deepEqual(input.generated, [
      {
        namespace: 'istio-system',
        name: 'aeraki-outbound-orders.shop.svc.cluster.local-240.240.0.10-20880',
        labels: { manager: 'Aeraki' },
        source: 'ServiceEntry/shop/orders',
        patches: [
          {
            applyTo: 'NETWORK_FILTER',
            operation: 'REPLACE',
            listenerName: '240.240.0.10_20880',
            filterName: 'envoy.filters.network.tcp_proxy',
          },
        ],
      },
    ]);
    assert.deepEqual([...(input.handledProtocols ?? [])].sort(), [
      'dubbo',
      'kafka',
      'metaprotocol',
      'redis',
      'thrift',
      'zookeeper',
    ]);
    assert.equal(input.options.clusterDomain, 'cluster.local');
  });

  it('keeps both severities of an issue (a hygiene rule stays a controller warning)', () => {
    const input = inputOf(
      serviceEntry('orders', ['tcp-metaprotocol-dubbo:20880']) +
        `apiVersion: metaprotocol.aeraki.io/v1alpha1
kind: MetaRouter
metadata: {name: orders, namespace: shop}
spec:
  hosts: [orders.shop.svc.cluster.local]
  routes:
  - route: [{destination: {host: orders.shop.svc.cluster.local}}]
    mirrorPercentage: {value: 50}
`,
    );
    assert.equal(input.issues.length, 1);
    assert.ok(admissionOnly(input.issues[0]!));
    assert.equal(input.objects.objects.length, 2);
  });
});
