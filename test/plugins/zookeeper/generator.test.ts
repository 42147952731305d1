import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ServiceEntry } from '../../../src/model/objects.ts';
import { formatIssue } from '../../../src/model/result.ts';
import { createZooKeeperGenerator } from '../../../src/plugins/zookeeper/index.ts';
import { serviceEntry } from '../../support/builders.ts';
import { sidecarContext } from '../dubbo/fixture-context.ts';

const HOST = 'zk.kafka.svc.cluster.local';

function se(
  extra: Partial<ServiceEntry['spec']> = {},
  annotations: Record<string, string> = {},
): ServiceEntry {
  return serviceEntry(
    'kafka',
    'zk',
    {
      hosts: [HOST],
      addresses: ['10.96.60.1', '10.96.60.2'],
      ports: [
        { number: 8080, name: 'http-admin', protocol: 'HTTP' },
        { number: 2181, name: 'tcp-zookeeper', protocol: 'TCP' },
      ],
      ...extra,
    },
    { annotations },
  );
}

const value = (statPrefix: string) => ({
  name: 'envoy.filters.network.zookeeper_proxy',
  typed_config: {
    '@type': 'type.googleapis.com/udpa.type.v1.TypedStruct',
    type_url: 'type.googleapis.com/envoy.extensions.filters.network.zookeeper_proxy.v3.ZooKeeperProxy',
    value: { statPrefix },
  },
});

describe('zookeeper generator', () => {
  it('inserts zookeeper_proxy before tcp_proxy, outbound per address and inbound, with its own port (D4)', () => {
    const r = createZooKeeperGenerator().generateSidecar(
      sidecarContext(se({}, { workloadSelector: 'zk' }), 1),
    );
    assert.ok(r.ok);
    assert.deepEqual(r.issues, []);
    const outbound = (address: string) => ({
      name: `aeraki-outbound-${HOST}-${address}-2181`,
      spec: {
        configPatches: [
          {
            applyTo: 'NETWORK_FILTER',
            match: {
              listener: {
                name: `${address}_2181`,
                filterChain: { filter: { name: 'envoy.filters.network.tcp_proxy' } },
              },
            },
            patch: { operation: 'INSERT_BEFORE', value: value(`outbound|2181||${HOST}`) },
          },
        ],
      },
    });
    assert.deepEqual(JSON.parse(JSON.stringify(r.value)), [
      outbound('10.96.60.1'),
      outbound('10.96.60.2'),
      {
        name: `aeraki-inbound-${HOST}-2181`,
        spec: {
          workloadSelector: { labels: { app: 'zk' } },
          configPatches: [
            {
              applyTo: 'NETWORK_FILTER',
              match: {
                listener: {
                  name: 'virtualInbound',
                  filterChain: { destinationPort: 2181, filter: { name: 'envoy.filters.network.tcp_proxy' } },
                },
              },
              patch: { operation: 'INSERT_BEFORE', value: value('inbound|2181||') },
            },
          ],
        },
      },
    ]);
  });

  it('no workload selector: outbound filters only (D2); a bad selector annotation fails the port', () => {
    const plain = createZooKeeperGenerator().generateSidecar(sidecarContext(se(), 1));
    assert.ok(plain.ok);
    assert.deepEqual(
      plain.value.map((d) => d.name),
      [`aeraki-outbound-${HOST}-10.96.60.1-2181`, `aeraki-outbound-${HOST}-10.96.60.2-2181`],
    );
    const bad = createZooKeeperGenerator().generateSidecar(
      sidecarContext(se({}, { workloadSelector: 'a:b:c' }), 1),
    );
    assert.equal(bad.ok, false);
    assert.match(
      formatIssue(bad.issues[0]!),
      /^ServiceEntry kafka\/zk: metadata\.annotations\.workloadSelector: /,
    );
  });

  it('a ServiceEntry without hosts is an error, not a crash', () => {
    const r = createZooKeeperGenerator().generateSidecar(sidecarContext(se({ hosts: [] }), 1));
    assert.equal(r.ok, false);
    assert.equal(r.issues[0]?.path, 'spec.hosts');
  });
});
