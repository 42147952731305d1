/**
 * The dubbo_proxy of one chain of an Istio waypoint (Generator.generateWaypoint): routes from the VirtualService of
 * the host, as the outbound sidecar filter has them, to the waypoint's VIP clusters (`inbound-vip|<port>|tcp[/<subset>]|
 * <host>`), behind the RBAC filters of the DubboAuthorizationPolicies that apply, as on the inbound sidecar.
 *
 * On a waypoint the peer's identity is not the connection's (the chain sits behind the HBONE termination on an
 * internal listener): istiod's own authorization reads it from the filter state `io.istio.peer_principal`
 * (istio/istio release-1.30 @b9a2bbd2 pilot/pkg/networking/core/networkfilter.go:137 `useFilterState := lb.node.Type
 * == model.Waypoint`; pilot/pkg/security/authz/model/principal.go principalAuthenticated). So every
 * `authenticated.principalName` matcher becomes `filterState {key: io.istio.peer_principal, stringMatch}` here;
 * left as it is, a principal rule never matches there (an ALLOW would refuse everyone, a DENY nobody).
 */
import type { WaypointContext, WaypointFilter } from '../../model/generator.ts';
import { DUBBO_PROXY_FILTER, DUBBO_PROXY_TYPE } from '../../model/constants.ts';
import { ok, type Result } from '../../model/result.ts';
import type { DubboContext } from './context.ts';
import { dubboProxy, ROUTER, type DubboFilter } from './filters.ts';
import { ANY_INTERFACE, INTERFACE_ANNOTATION } from './generator.ts';
import { authorizationFilters } from './rbac.ts';
import { outboundRoutes } from './route.ts';

/** The filter state key istio-proxy's HBONE termination stores the peer's SPIFFE identity under. */
export const PEER_PRINCIPAL_KEY = 'io.istio.peer_principal';

/** `value` with each `{authenticated: {principalName: m}}` as `{filterState: {key, stringMatch: m}}`, at any depth. */
function withPeerFilterState(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withPeerFilterState);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const name = k === 'authenticated' ? (v as { principalName?: unknown }).principalName : undefined;
    if (name !== undefined) out['filterState'] = { key: PEER_PRINCIPAL_KEY, stringMatch: name };
    else out[k] = withPeerFilterState(v);
  }
  return out;
}

/** The RBAC filters of the policies that apply, reading the peer from the filter state. */
export function waypointAuthorization(policies: DubboContext): DubboFilter[] {
  return authorizationFilters(policies ?? []).map((f) => withPeerFilterState(f) as DubboFilter);
}

export function generateDubboWaypoint(ctx: WaypointContext<DubboContext>): Result<WaypointFilter> {
  const cluster = ctx.clusterOf();
  const routes = outboundRoutes(ctx.virtualService, ctx.host, ctx.port.number, (s) => ctx.clusterOf(s));
  const annotated = ctx.serviceEntry.metadata.annotations[INTERFACE_ANNOTATION];
  const config = dubboProxy(
    cluster,
    { name: cluster, interface: annotated || ANY_INTERFACE, routes: routes.routes },
    [...waypointAuthorization(ctx.extension), ROUTER],
  );
  return ok({ filterName: DUBBO_PROXY_FILTER, typeUrl: DUBBO_PROXY_TYPE, config }, routes.issues);
}
