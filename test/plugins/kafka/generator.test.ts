import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FilterDraft } from '../../../src/model/generator.ts';
import type { ServiceEntry } from '../../../src/model/objects.ts';
import { formatIssue, severityOf, type Result } from '../../../src/model/result.ts';
import { CONTRIB_WARNING, createKafkaGenerator } from '../../../src/plugins/kafka/index.ts';
import { serviceEntry } from '../../support/builders.ts';
import { sidecarContext } from '../dubbo/fixture-context.ts';

const HOST = 'kafka.kafka.svc.cluster.local';

function se(extra: Partial<ServiceEntry['spec']> = {}): ServiceEntry {
  return serviceEntry('kafka', 'broker', {
    hosts: [HOST],
    addresses: ['10.96.50.10'],
    ports: [
      { number: 8080, name: 'http-metrics', protocol: 'HTTP' },
      { number: 9092, name: 'tcp-kafka', protocol: 'TCP' },
      { number: 9093, name: 'tcp-Kafka-tls', protocol: 'TCP' },
    ],
    workloadSelector: { labels: { app: 'kafka' } },
    ...extra,
  });
}

function generate(entry: ServiceEntry, portIndex: number): Result<readonly FilterDraft[]> {
  return createKafkaGenerator().generateSidecar(sidecarContext(entry, portIndex));
}

function patchOf(d: FilterDraft): Record<string, any> {
  return d.spec.configPatches[0]!.patch as Record<string, any>;
}

describe('kafka generator', () => {
  it('inserts kafka_broker before tcp_proxy with only the stat prefix, outbound and inbound, per port (D4)', () => {
    for (const [index, port] of [
      [1, 9092],
      [2, 9093],
    ] as const) {
      const r = generate(se(), index);
      assert.ok(r.ok);
      assert.deepEqual(
        r.value.map((d) => d.name),
        [`aeraki-outbound-${HOST}-10.96.50.10-${port}`, `aeraki-inbound-${HOST}-${port}`],
      );
      const [outbound, inbound] = r.value.map(patchOf);
      for (const p of [outbound, inbound]) {
        assert.equal(p!['operation'], 'INSERT_BEFORE');
        assert.equal(p!['value'].name, 'envoy.filters.network.kafka_broker');
        assert.equal(
          p!['value'].typed_config.type_url,
          'type.googleapis.com/envoy.extensions.filters.network.kafka_broker.v3.KafkaBroker',
        );
      }
      assert.deepEqual(outbound!['value'].typed_config.value, { statPrefix: `outbound|${port}||${HOST}` });
      assert.deepEqual(inbound!['value'].typed_config.value, { statPrefix: `inbound|${port}||` });
      assert.deepEqual(r.value[1]!.spec.configPatches[0]!.match, {
        listener: {
          name: 'virtualInbound',
          filterChain: { destinationPort: port, filter: { name: 'envoy.filters.network.tcp_proxy' } },
        },
      });
    }
  });

  it('warns once per ServiceEntry, on its first Kafka port, that kafka_broker is a contrib extension', () => {
    const first = generate(se(), 1);
    assert.ok(first.ok);
    assert.equal(first.issues.length, 1);
    assert.equal(severityOf(first.issues[0]!), 'warning');
    assert.equal(
      formatIssue(first.issues[0]!),
      `ServiceEntry kafka/broker: spec.ports[1].name: ${CONTRIB_WARNING}`,
    );
    assert.match(CONTRIB_WARNING, /contrib extension/);
    const second = generate(se(), 2);
    assert.ok(second.ok);
    assert.deepEqual(second.issues, [], 'the second Kafka port of the same service repeats nothing');
  });

  it('without addresses only the inbound filter; without a selector only the outbound ones', () => {
    const noAddresses = generate(se({ addresses: [] }), 1);
    assert.ok(noAddresses.ok);
    assert.deepEqual(
      noAddresses.value.map((d) => d.name),
      [`aeraki-inbound-${HOST}-9092`],
    );
    const noSelector = generate(se({ workloadSelector: undefined }), 1);
    assert.ok(noSelector.ok);
    assert.deepEqual(
      noSelector.value.map((d) => d.name),
      [`aeraki-outbound-${HOST}-10.96.50.10-9092`],
    );
  });
});
