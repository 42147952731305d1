/**
 * The chain of a `tcp-dubbo` port on our own waypoint (Generator.generateOwnWaypoint): the DubboAuthorizationPolicies
 * as network RBAC filters on the peer principal, then dubbo_proxy with its routes over ADS (`drds`: a
 * MultipleRouteConfiguration named `ctx.routeName` holding the outbound route configuration the sidecars get from
 * the host's VirtualService, to the waypoint's clusters `ctx.clusterOf(subset)`).
 *
 * Authorization. The sidecars' `envoy.filters.dubbo.rbac` is not an upstream Envoy extension (stock dubbo_proxy
 * registers only `envoy.filters.dubbo.router`: envoyproxy/envoy source/extensions/filters/network/dubbo_proxy/
 * filters/well_known_names.h; the RBAC one is built out of tree, `src/extensions/network/dubbo_rbac`), so a stock
 * Envoy would reject a dubbo_proxy naming it, and with it the Gateway's whole listener. The policies become
 * `envoy.filters.network.rbac` filters before dubbo_proxy instead: the same RBAC config (rbac.ts, DENY first), with
 * the peer read from the filter state `io.istio.peer_principal` the chain's first filter copies from the PROXY
 * header (waypoint.ts waypointAuthorization). A connection-level filter sees no Dubbo interface or method, so a rule
 * whose every `to` entry names some is enforced on the safe side, with a warning on its policy: a DENY rule denies
 * every call of its sources, an ALLOW rule allows nothing.
 */
import { DUBBO_PROXY_FILTER, DUBBO_PROXY_TYPE } from '../../model/constants.ts';
import type { OwnWaypointChain, OwnWaypointContext } from '../../model/generator.ts';
import type { ProtoJson } from '../../model/ambient/xds.ts';
import { ok, refOf, warning, type ConfigIssue, type Result } from '../../model/result.ts';
import { dubboProxyFilter, dubboRouteResource, waypointOf } from '../sdk/own-waypoint.ts';
import type { DubboContext } from './context.ts';
import type { DubboFilter } from './filters.ts';
import { ANY_INTERFACE, INTERFACE_ANNOTATION } from './generator.ts';
import { ruleName } from './rbac.ts';
import { outboundRoutes } from './route.ts';
import type { DubboAuthorizationPolicy, DubboOperation, DubboRule } from './types.ts';
import { waypointAuthorization } from './waypoint.ts';

export const NETWORK_RBAC_FILTER = 'envoy.filters.network.rbac';

function namesOperation(o: DubboOperation): boolean {
  return [o.interfaces, o.notInterfaces, o.methods, o.notMethods].some((list) => list.length > 0);
}

/** True when every `to` entry of `rule` names interfaces or methods (an empty entry matches any operation). */
function needsOperation(rule: DubboRule): boolean {
  return rule.to.length > 0 && rule.to.every((t) => namesOperation(t.operation));
}

/** What a connection-level filter can enforce of `policies`, and the warnings for what it enforces differently. */
interface Carried {
  readonly policies: readonly DubboAuthorizationPolicy[];
  /** Rule names (rbac.ts ruleName) of ALLOW rules left out: they allow nothing here. */
  readonly dropped: ReadonlySet<string>;
  readonly issues: readonly ConfigIssue[];
}

function carried(ctx: OwnWaypointContext, policies: readonly DubboAuthorizationPolicy[]): Carried {
  const dropped = new Set<string>();
  const issues: ConfigIssue[] = [];
  const where = `on waypoint ${waypointOf(ctx)} (${ctx.host}:${ctx.port.number})`;
  const out = policies.map((p) => {
    if (!p.spec.rules.some(needsOperation)) return p;
    const rules = p.spec.rules.map((rule, i) => {
      if (!needsOperation(rule)) return rule;
      const deny = p.spec.action === 'DENY';
      const effect = deny ? 'denies every call of its sources' : 'allows nothing';
      const message = `interfaces and methods are not checked ${where}, whose Envoy has no Dubbo RBAC filter: this rule ${effect} there`;
      issues.push(warning(refOf(p), `spec.rules[${i}].to`, message));
      if (!deny) dropped.add(ruleName(p, i));
      return deny ? { ...rule, to: [] } : rule;
    });
    return { ...p, spec: { ...p.spec, rules } };
  });
  return { policies: out, dropped, issues };
}

type RbacConfig = { readonly rules: { readonly policies?: Readonly<Record<string, unknown>> } };

/** The network RBAC filter of one Dubbo RBAC filter (same config), without the dropped rules' policies. */
function networkRbac(filter: DubboFilter, dropped: ReadonlySet<string>): ProtoJson {
  const config = (filter.config ?? {}) as Readonly<Record<string, unknown>> & RbacConfig;
  const { policies = {}, ...rest } = config.rules;
  const kept = Object.entries(policies).filter(([name]) => !dropped.has(name));
  const rules = kept.length > 0 ? { ...rest, policies: Object.fromEntries(kept) } : rest;
  return { name: NETWORK_RBAC_FILTER, typed_config: { ...config, rules } };
}

/** The RBAC filters of the policies that apply (DENY first), reading the peer from the filter state. */
export function ownWaypointAuthorization(
  ctx: OwnWaypointContext,
  policies: DubboContext,
): { readonly filters: readonly ProtoJson[]; readonly issues: readonly ConfigIssue[] } {
  const c = carried(ctx, policies ?? []);
  return {
    filters: waypointAuthorization(c.policies).map((f) => networkRbac(f, c.dropped)),
    issues: c.issues,
  };
}

export function generateDubboOwnWaypoint(
  ctx: OwnWaypointContext<DubboContext>,
): Result<OwnWaypointChain | undefined> {
  const routes = outboundRoutes(ctx.virtualService, ctx.host, ctx.port.number, (s) => ctx.clusterOf(s));
  const annotated = ctx.serviceEntry.metadata.annotations[INTERFACE_ANNOTATION];
  const routeConfig = { name: ctx.routeName, interface: annotated || ANY_INTERFACE, routes: routes.routes };
  const authorization = ownWaypointAuthorization(ctx, ctx.extension);
  const proxy = dubboProxyFilter(DUBBO_PROXY_FILTER, DUBBO_PROXY_TYPE, ctx.clusterOf(), ctx.routeName);
  return ok(
    {
      filters: [...authorization.filters, proxy],
      routes: [dubboRouteResource(ctx.routeName, [routeConfig])],
    },
    [...routes.issues, ...authorization.issues],
  );
}
