/**
 * Cluster names of Redis routes and mirrors (Aeraki internal/plugin/redis/util.go:78-94, with D10 for mirrors):
 * `outbound|<p>||<host>`, p the destination's own port, or when 0 inferred from the ServiceEntry of the namespace
 * listing the host: its only port; else the first port numbered like the listener port (that number) or named
 * like it (its number); else, and without a ServiceEntry, the listener port.
 */
import type { ServicePort } from '../../model/objects.ts';
import { outboundClusterName } from '../../model/names.ts';
import type { RedisContext } from './context.ts';
import type { RedisRouteDestination } from './types.ts';

export function inferPort(ctx: RedisContext, host: string, listener: ServicePort): number {
  const ports = ctx.portsOfHost(host);
  if (ports === undefined || ports.length === 0) return listener.number;
  if (ports.length === 1) return ports[0]?.number ?? listener.number;
  const match = ports.find((p) => p.number === listener.number || p.name === listener.name);
  return match?.number ?? listener.number;
}

/** The cluster of `host` on `port` (no subset): the sidecar's outbound cluster, or what a waypoint names it. */
export type RedisClusterOf = (port: number, host: string) => string;

export const OUTBOUND_CLUSTERS: RedisClusterOf = (port, host) => outboundClusterName(port, undefined, host);

export function destinationCluster(
  ctx: RedisContext,
  dest: RedisRouteDestination,
  listener: ServicePort,
  clusterOf: RedisClusterOf = OUTBOUND_CLUSTERS,
): string {
  const port = dest.port !== 0 ? dest.port : inferPort(ctx, dest.host, listener);
  return clusterOf(port, dest.host);
}
