/**
 * Kafka plugin: Envoy's kafka_broker inserted before tcp_proxy on `tcp-kafka` ports, for metrics only (Aeraki
 * internal/plugin/kafka). A contrib extension: see generator.ts.
 * https://www.envoyproxy.io/docs/envoy/latest/configuration/listeners/network_filters/kafka_broker_filter
 */
import type { Generator } from '../../model/generator.ts';
import { generateKafkaSidecar, generateKafkaWaypoint, KAFKA_BROKER } from './generator.ts';
import { generateKafkaOwnWaypoint } from './own-waypoint.ts';

export { CONTRIB_WARNING, KAFKA_BROKER } from './generator.ts';

export function createKafkaGenerator(): Generator {
  return {
    name: 'kafka',
    protocols: ['kafka'],
    // Envoy builds kafka_broker only with its contrib extensions: envoyproxy/envoy contrib/contrib_build_config.bzl
    // (`envoy.filters.network.kafka_broker`: //contrib/kafka/...), its API under contrib/envoy/extensions/filters/
    // network/kafka_broker (../shared/protos-2026/contrib).
    facts: [{ name: 'kafka', contribFilter: KAFKA_BROKER.filterName }],
    generateSidecar: generateKafkaSidecar,
    generateWaypoint: generateKafkaWaypoint,
    generateOwnWaypoint: generateKafkaOwnWaypoint,
  } satisfies Generator;
}
