/**
 * The chain of a `tcp-kafka` port on our own waypoint (Generator.generateOwnWaypoint): kafka_broker, which only decodes
 * and counts (stats as `outbound|<port>||<host>`), then tcp_proxy to the host's cluster, as on the sidecars. Only on
 * an Envoy contrib image (`ctx.image.kind` `envoy-contrib`): kafka_broker is a contrib extension (Envoy
 * contrib/contrib_build_config.bzl; ../shared/protos-2026/SOURCES.md "Which data plane has which extension"), absent
 * from the stock and the MetaProtocol proxy images, and a waypoint that rejected its listener would stop every service
 * bound to it; elsewhere no chain and a warning. Its config travels as a TypedStruct: the ADS server encodes Envoy's
 * core API, not the contrib one.
 */
import type { OwnWaypointChain, OwnWaypointContext } from '../../model/generator.ts';
import { DEFAULT_WAYPOINT_IMAGE } from '../../model/ambient/own-waypoint.ts';
import { ok, type Result } from '../../model/result.ts';
import { observerChain, ownWaypointImageWarning } from '../sdk/own-waypoint.ts';
import { KAFKA_BROKER } from './generator.ts';

/** The contrib image of the default release (`envoyproxy/envoy:contrib-v<version>`). */
const CONTRIB_IMAGE = DEFAULT_WAYPOINT_IMAGE.replace(/:v/, ':contrib-v');

export function generateKafkaOwnWaypoint(ctx: OwnWaypointContext): Result<OwnWaypointChain | undefined> {
  if (ctx.image.kind !== 'envoy-contrib') {
    const needs = `an Envoy contrib image such as ${CONTRIB_IMAGE}`;
    return ok(undefined, [ownWaypointImageWarning(ctx, KAFKA_BROKER.filterName, needs)]);
  }
  return ok({ filters: observerChain(ctx, KAFKA_BROKER, true) });
}
