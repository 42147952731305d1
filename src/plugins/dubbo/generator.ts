/**
 * Sidecar filters of one `tcp-dubbo` port (Aeraki internal/plugin/dubbo/generator.go, dubboproxy.go), with this
 * port's own number (D4): outbound dubbo_proxy filters (one per address) routing by the VirtualService, and an
 * inbound one (when the ServiceEntry selects workloads, D2) with interface `*` routing to `inbound|<port>||` (the
 * port the workloads receive on, D16), behind
 * the RBAC filters of the DubboAuthorizationPolicies that apply (rbac.ts).
 */
import { DUBBO_PROXY_FILTER, DUBBO_PROXY_TYPE } from '../../model/constants.ts';
import type { FilterDraft, SidecarContext } from '../../model/generator.ts';
import { inboundClusterName, outboundClusterName } from '../../model/names.ts';
import { fail, issue, ok, refOf, type Result } from '../../model/result.ts';
import { inboundDraft, outboundDrafts, type NetworkFilter } from '../sdk/patches.ts';
import type { DubboContext } from './context.ts';
import { dubboProxy, ROUTER, type DubboFilter, type DubboProxyConfig } from './filters.ts';
import { authorizationFilters } from './rbac.ts';
import { defaultRoute, outboundRoutes } from './route.ts';

/** ServiceEntry annotation naming the Dubbo interface the outbound route configuration serves. */
export const INTERFACE_ANNOTATION = 'interface';
/** Interface used when the annotation is missing or empty (D3), and always on the inbound side. */
export const ANY_INTERFACE = '*';

export interface DubboGeneratorOptions {
  /**
   * Dubbo filters placed on the inbound proxy before the router: the seam for DubboAuthorizationPolicy RBAC
   * filters (Aeraki: DENY filter first, then ALLOW, each `envoy.filters.dubbo.rbac`). Must be pure; called once per
   * generated port. Issues of an ok result are passed on; an ok:false result fails the generation of the
   * ServiceEntry (so its previous output is kept) instead of writing an inbound filter without its access control.
   * Default: the RBAC filters of the context's DubboAuthorizationPolicies (rbac.ts). Sidecars only: a waypoint filter
   * always has the policies' RBAC filters, reading the peer from the filter state (waypoint.ts).
   */
  readonly inboundFilters?: (ctx: SidecarContext<DubboContext>) => Result<readonly DubboFilter[]>;
}

/** The default inbound filters: RBAC from the DubboAuthorizationPolicies that apply (none without policies). */
function policyFilters(ctx: SidecarContext<DubboContext>): Result<readonly DubboFilter[]> {
  return ok(authorizationFilters(ctx.extension ?? []));
}

function networkFilter(config: DubboProxyConfig): NetworkFilter {
  return { filterName: DUBBO_PROXY_FILTER, typeUrl: DUBBO_PROXY_TYPE, config };
}

export function generateDubboSidecar(
  ctx: SidecarContext<DubboContext>,
  options: DubboGeneratorOptions,
): Result<readonly FilterDraft[]> {
  const se = ctx.serviceEntry;
  const host = se.spec.hosts[0];
  if (host === undefined) {
    return fail([issue(refOf(se), 'spec.hosts', 'has no host; a dubbo service needs hosts[0]')]);
  }
  const port = ctx.port.number;

  const outboundCluster = outboundClusterName(port, undefined, host);
  const routes = outboundRoutes(ctx.virtualService, host, port);
  const annotated = se.metadata.annotations[INTERFACE_ANNOTATION];
  const outbound = dubboProxy(
    outboundCluster,
    { name: outboundCluster, interface: annotated || ANY_INTERFACE, routes: routes.routes },
    [ROUTER],
  );

  const extra = options.inboundFilters ? options.inboundFilters(ctx) : policyFilters(ctx);
  if (!extra.ok) return fail([...routes.issues, ...extra.issues]);
  const inbound = (workloadPort: number) => {
    const inboundCluster = inboundClusterName(workloadPort);
    return dubboProxy(
      inboundCluster,
      { name: inboundCluster, interface: ANY_INTERFACE, routes: [defaultRoute(inboundCluster)] },
      [...extra.value, ROUTER],
    );
  };

  const inboundFilter = inboundDraft(ctx, (p) => networkFilter(inbound(p)));
  const issues = [...routes.issues, ...extra.issues, ...inboundFilter.issues];
  if (!inboundFilter.ok) return fail(issues);
  const drafts: FilterDraft[] = outboundDrafts(se, ctx.port, networkFilter(outbound));
  if (inboundFilter.value) drafts.push(inboundFilter.value);
  return ok(drafts, issues);
}
