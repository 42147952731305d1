// envoyFilterFacts: an EnvoyFilter reduced to what the analyzers read, the generated ones and any others alike.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { envoyFilterFacts } from '../../src/analyze/envoyfilter-facts.ts';
import { inputOf } from './support.ts';

const SELECTED = `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: orders, namespace: shop}
spec:
  hosts: [orders.shop.svc.cluster.local]
  addresses: [240.240.0.10]
  ports: [{number: 20880, name: tcp-metaprotocol-dubbo, protocol: TCP, targetPort: 20881}]
  workloadSelector: {labels: {app: orders}}
`;

describe('envoyFilterFacts', () => {
  it("reads an inbound patch's filter chain destinationPort: the generated inbound filter carries its port", () => {
    const patches = inputOf(SELECTED)
      .generated.flatMap((f) => f.patches)
      .filter((p) => p.filterName !== undefined);
    const inbound = patches.filter((p) => p.listenerName === 'virtualInbound');
    assert.ok(inbound.length > 0);
    // The port the workload receives on: the targetPort (D16).
    for (const p of inbound) assert.equal(p.destinationPort, 20881);
    const outbound = patches.filter((p) => p.listenerName === '240.240.0.10_20880');
    assert.ok(outbound.length > 0);
    for (const p of outbound) assert.equal(p.destinationPort, undefined);
  });

  it('reads the priority, and leaves out what is absent or of the wrong type', () => {
    const facts = envoyFilterFacts({
      metadata: { name: 'x', namespace: 'shop' },
      spec: {
        priority: -5,
        configPatches: [
          {
            applyTo: 'NETWORK_FILTER',
            match: { listener: { filterChain: { destinationPort: '20880', filter: { name: 'f' } } } },
            patch: { operation: 'INSERT_BEFORE' },
          },
        ],
      },
    });
    assert.deepEqual(facts, {
      namespace: 'shop',
      name: 'x',
      labels: {},
      priority: -5,
      patches: [{ applyTo: 'NETWORK_FILTER', operation: 'INSERT_BEFORE', filterName: 'f' }],
    });
    assert.equal(envoyFilterFacts({ metadata: { name: 'y' }, spec: { priority: '1' } })?.priority, undefined);
    assert.equal(envoyFilterFacts({ metadata: {} }), undefined);
  });
});
