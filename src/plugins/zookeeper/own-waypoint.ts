/**
 * The chain of a `tcp-zookeeper` port on our own waypoint (Generator.generateOwnWaypoint): zookeeper_proxy, which
 * only decodes and counts (stats as `outbound|<port>||<host>`), then tcp_proxy to the host's cluster: the sidecar's
 * observe-then-forward pair (sdk/observer.ts) as one chain. Stock Envoy builds zookeeper_proxy (docs/waypoint-own.md
 * section 3).
 */
import type { OwnWaypointChain, OwnWaypointContext } from '../../model/generator.ts';
import { ok, type Result } from '../../model/result.ts';
import { observerChain, type OwnObserverFilter } from '../sdk/own-waypoint.ts';

/** generateOwnWaypoint of the plugin whose observe-only filter is `filter` (its name and config type). */
export function zooKeeperOwnWaypoint(
  filter: OwnObserverFilter,
): (ctx: OwnWaypointContext) => Result<OwnWaypointChain | undefined> {
  return (ctx) => ok({ filters: observerChain(ctx, filter) });
}
