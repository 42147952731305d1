/**
 * ZooKeeper plugin: Envoy's zookeeper_proxy inserted before tcp_proxy on `tcp-zookeeper` ports, for metrics only
 * (Aeraki internal/plugin/zookeeper). The stats show only when the mesh's `proxyStatsMatcher` includes them.
 * https://www.envoyproxy.io/docs/envoy/latest/configuration/listeners/network_filters/zookeeper_proxy_filter
 */
import type { Generator } from '../../model/generator.ts';
import { ok } from '../../model/result.ts';
import { observerDrafts, observerWaypointFilter, type ObserverFilter } from '../sdk/observer.ts';
import { zooKeeperOwnWaypoint } from './own-waypoint.ts';

export const ZOOKEEPER_PROXY: ObserverFilter = {
  filterName: 'envoy.filters.network.zookeeper_proxy',
  typeUrl: 'type.googleapis.com/envoy.extensions.filters.network.zookeeper_proxy.v3.ZooKeeperProxy',
};

export function createZooKeeperGenerator(): Generator {
  return {
    name: 'zookeeper',
    protocols: ['zookeeper'],
    generateSidecar: (ctx) => observerDrafts(ctx, ZOOKEEPER_PROXY),
    // istio-proxy builds zookeeper_proxy (../shared/protos-2026/SOURCES.md): it runs on Istio's waypoints.
    generateWaypoint: (ctx) => ok(observerWaypointFilter(ctx, ZOOKEEPER_PROXY)),
    generateOwnWaypoint: zooKeeperOwnWaypoint(ZOOKEEPER_PROXY),
  } satisfies Generator;
}
