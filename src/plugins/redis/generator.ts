/**
 * Sidecar filters of one `redis` port (Aeraki internal/plugin/redis/generator.go), with this port's own number
 * (D4): per address an outbound redis_proxy that REPLACEs tcp_proxy, followed by the REMOVE of Istio's cluster
 * `outbound|<port>||<hosts[0]>` and the ADD of its replacement; an inbound redis_proxy when the ServiceEntry
 * selects workloads (D2). A RedisService or RedisDestination whose auth Secret is not in the input is reported and
 * treated as absent (as Aeraki does); one whose Secret cannot serve it (without the key: auth.ts) fails the port's
 * generation: the output written before stays, and no filter without the auth it asks for is written (Aeraki
 * writes the filter without auth).
 */
import type { FilterDraft, SidecarContext } from '../../model/generator.ts';
import { outboundClusterName } from '../../model/names.ts';
import type { RedisContext } from './context.ts';
import { fail, issue, ok, refOf, type ConfigIssue, type Result } from '../../model/result.ts';
import {
  clusterAddPatch,
  clusterRemovePatch,
  inboundDraft,
  outboundDrafts,
  type NetworkFilter,
} from '../sdk/patches.ts';
import { NO_CREDENTIALS, resolveAuth } from './auth.ts';
import { destinationCluster } from './cluster.ts';
import { REDIS_PROXY_FILTER, REDIS_PROXY_TYPE } from './constants.ts';
import { catchAllProxy, DEFAULT_OP_TIMEOUT, inboundProxy, serviceProxy } from './proxy.ts';

function networkFilter(config: Record<string, unknown>): NetworkFilter {
  return { filterName: REDIS_PROXY_FILTER, typeUrl: REDIS_PROXY_TYPE, config };
}

/** The outbound proxy config: from the bound RedisService, else (its Secret not in the input) the default. */
function outboundConfig(ctx: SidecarContext, redis: RedisContext): Result<Record<string, unknown>> {
  const rs = redis.service;
  const issues: ConfigIssue[] = [];
  if (rs) {
    const auth = resolveAuth(redis, rs.spec.settings?.auth, refOf(rs), 'spec.settings.auth');
    if (!auth.ok) return fail(auth.issues);
    if (auth.value) return ok(serviceProxy(redis, rs, redis.serviceHost, ctx.port, auth.value), auth.issues);
    issues.push(...auth.issues);
  }
  const own = outboundClusterName(ctx.port.number, undefined, ctx.serviceEntry.spec.hosts[0] ?? '');
  return ok(catchAllProxy(own, own, DEFAULT_OP_TIMEOUT), issues);
}

/** The replacement cluster: from the RedisDestination, if any (and its Secret is in the input). */
function clusterConfig(
  ctx: SidecarContext,
  redis: RedisContext,
  name: string,
): Result<Record<string, unknown>> {
  const rd = redis.destination;
  const auth = rd
    ? resolveAuth(
        redis,
        rd.spec.trafficPolicy?.connectionPool?.redis?.auth,
        refOf(rd),
        'spec.trafficPolicy.connectionPool.redis.auth',
      )
    : ok(NO_CREDENTIALS);
  if (!auth.ok) return fail(auth.issues);
  const usable = auth.value ? rd : undefined;
  return ok(
    destinationCluster(name, ctx.serviceEntry, ctx.port, usable, auth.value ?? NO_CREDENTIALS),
    auth.issues,
  );
}

export function generateRedisSidecar(ctx: SidecarContext<RedisContext>): Result<readonly FilterDraft[]> {
  const se = ctx.serviceEntry;
  const host = se.spec.hosts[0];
  const redis = ctx.extension;
  if (host === undefined || redis === undefined) {
    return fail([issue(refOf(se), 'spec.hosts', 'has no host; a redis service needs hosts[0]')]);
  }
  const issues: ConfigIssue[] = [];
  const drafts: FilterDraft[] = [];
  if (se.spec.addresses.length > 0) {
    const cluster = outboundClusterName(ctx.port.number, undefined, host);
    const clusterValue = clusterConfig(ctx, redis, cluster);
    const proxyValue = outboundConfig(ctx, redis);
    issues.push(...clusterValue.issues, ...proxyValue.issues);
    if (!clusterValue.ok || !proxyValue.ok) return fail(issues);
    const patches = [clusterRemovePatch(cluster), clusterAddPatch(clusterValue.value)];
    drafts.push(...outboundDrafts(se, ctx.port, networkFilter(proxyValue.value), patches));
  }
  const inbound = inboundDraft(ctx, (workloadPort) => networkFilter(inboundProxy(workloadPort)));
  issues.push(...inbound.issues);
  if (!inbound.ok) return fail(issues);
  if (inbound.value) drafts.push(inbound.value);
  return ok(drafts, issues);
}
