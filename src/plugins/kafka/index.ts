/**
 * Kafka plugin: Envoy's kafka_broker inserted before tcp_proxy on `tcp-kafka` ports, for metrics only (Aeraki
 * internal/plugin/kafka). A contrib extension: see generator.ts.
 * https://www.envoyproxy.io/docs/envoy/latest/configuration/listeners/network_filters/kafka_broker_filter
 */
import type { Generator } from '../../model/generator.ts';
import { generateKafkaSidecar } from './generator.ts';

export { CONTRIB_WARNING, KAFKA_BROKER } from './generator.ts';

export function createKafkaGenerator(): Generator {
  return {
    name: 'kafka',
    protocols: ['kafka'],
    generateSidecar: generateKafkaSidecar,
  } satisfies Generator;
}
