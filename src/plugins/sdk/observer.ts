/**
 * Observe-only network filters (Aeraki internal/plugin/kafka, internal/plugin/zookeeper): inserted before
 * tcp_proxy, which still forwards the traffic; the filter only decodes the protocol and counts. Its config is only
 * the stat prefix: `outbound|<port>||<hosts[0]>` outbound (one filter per address) and `inbound|<port>||` inbound
 * (when the ServiceEntry selects workloads, D2; the port the workloads receive on, D16), with the port's own number
 * (D4).
 */
import type { FilterDraft, SidecarContext, WaypointContext, WaypointFilter } from '../../model/generator.ts';
import { inboundClusterName, outboundClusterName } from '../../model/names.ts';
import { fail, issue, ok, refOf, type Result } from '../../model/result.ts';
import { inboundDraft, outboundDrafts, type NetworkFilter } from './patches.ts';

/** The filter to insert: its name and the proto type of its config (which holds `statPrefix` only). */
export interface ObserverFilter {
  readonly filterName: string;
  readonly typeUrl: string;
}

function insertBefore(filter: ObserverFilter, statPrefix: string): NetworkFilter {
  return { ...filter, config: { statPrefix }, operation: 'INSERT_BEFORE' };
}

/** The outbound and inbound drafts of `ctx.port` (outbound first, in address order). */
export function observerDrafts(ctx: SidecarContext, filter: ObserverFilter): Result<FilterDraft[]> {
  const se = ctx.serviceEntry;
  const host = se.spec.hosts[0];
  if (host === undefined) {
    return fail([issue(refOf(se), 'spec.hosts', `has no host; ${filter.filterName} needs hosts[0]`)]);
  }
  const port = ctx.port.number;
  const inbound = inboundDraft(ctx, (workloadPort) => insertBefore(filter, inboundClusterName(workloadPort)));
  if (!inbound.ok) return inbound;
  const drafts = outboundDrafts(
    se,
    ctx.port,
    insertBefore(filter, outboundClusterName(port, undefined, host)),
  );
  if (inbound.value) drafts.push(inbound.value);
  return ok(drafts, inbound.issues);
}

/** On a waypoint: the filter before tcp_proxy on the host's chain, counting as the chain's own cluster. */
export function observerWaypointFilter(ctx: WaypointContext, filter: ObserverFilter): WaypointFilter {
  return insertBefore(filter, ctx.clusterOf());
}
