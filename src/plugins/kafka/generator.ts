/**
 * Sidecar filters of one `tcp-kafka` port (Aeraki internal/plugin/kafka/generator.go, kafkafilter.go): kafka_broker
 * before tcp_proxy, outbound and inbound, with this port's own number (D4). kafka_broker is an Envoy contrib
 * extension that istio-proxy and the MetaProtocol proxy do not build; the filters are written as Aeraki writes
 * them, with one warning per ServiceEntry (on its first Kafka port) so the user knows the sidecars need it.
 */
import type { FilterDraft, SidecarContext, WaypointContext, WaypointFilter } from '../../model/generator.ts';
import { selectsProtocol } from '../../model/protocol.ts';
import { ok, refOf, warning, type Result } from '../../model/result.ts';
import { observerDrafts, type ObserverFilter } from '../sdk/observer.ts';
import { waypointImageWarning } from '../sdk/waypoint.ts';

export const KAFKA_BROKER: ObserverFilter = {
  filterName: 'envoy.filters.network.kafka_broker',
  typeUrl: 'type.googleapis.com/envoy.extensions.filters.network.kafka_broker.v3.KafkaBroker',
};

export const CONTRIB_WARNING =
  `${KAFKA_BROKER.filterName} is an Envoy contrib extension that istio-proxy and the MetaProtocol proxy do not ` +
  'build: the sidecars of this service and of its clients need an Envoy build with it (such as ' +
  'envoyproxy/envoy-contrib), or they reject the listeners that carry it';

function isFirstKafkaPort(ctx: SidecarContext): boolean {
  const first = ctx.serviceEntry.spec.ports.findIndex((p) => selectsProtocol(p.name, 'kafka'));
  return first === ctx.portIndex;
}

export function generateKafkaSidecar(ctx: SidecarContext): Result<readonly FilterDraft[]> {
  const drafts = observerDrafts(ctx, KAFKA_BROKER);
  if (!drafts.ok || !isFirstKafkaPort(ctx)) return drafts;
  const contrib = warning(refOf(ctx.serviceEntry), `spec.ports[${ctx.portIndex}].name`, CONTRIB_WARNING);
  return ok(drafts.value, [...drafts.issues, contrib]);
}

/**
 * No filter on an Istio waypoint: istio-proxy builds no kafka_broker (../shared/protos-2026/SOURCES.md, "Which data
 * plane has which extension"), nor does the MetaProtocol proxy, and a waypoint that rejected its listener would stop
 * every service bound to it. A warning names the service and the waypoint.
 */
export function generateKafkaWaypoint(ctx: WaypointContext): Result<WaypointFilter | undefined> {
  return ok(undefined, [waypointImageWarning(ctx, KAFKA_BROKER.filterName)]);
}
