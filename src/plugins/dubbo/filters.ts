/**
 * Dubbo filters (envoy.extensions.filters.network.dubbo_proxy.v3.DubboFilter) and the DubboProxy config itself
 * (proto3 JSON; `protocolType: Dubbo` and `serializationType: Hessian2` are the zero enum values, hence absent).
 */
import type { DubboRouteConfiguration } from './route.ts';

export const DUBBO_ROUTER_FILTER = 'envoy.filters.dubbo.router';
/** Name of the RBAC Dubbo filter DubboAuthorizationPolicies become (config: Any of network rbac.v3.RBAC). */
export const DUBBO_RBAC_FILTER = 'envoy.filters.dubbo.rbac';

/**
 * One entry of `dubboFilters`. `config` is a google.protobuf.Any in proto3 JSON: `{'@type': <type URL>, ...fields}`,
 * for example `{'@type': 'type.googleapis.com/envoy.extensions.filters.network.rbac.v3.RBAC', statPrefix: 'dubbo.',
 * rules: {...}}`.
 */
export type DubboFilter = {
  readonly name: string;
  readonly config?: Readonly<Record<string, unknown>>;
};

export const ROUTER: DubboFilter = Object.freeze({ name: DUBBO_ROUTER_FILTER });

export type DubboProxyConfig = {
  readonly statPrefix: string;
  readonly routeConfig: readonly DubboRouteConfiguration[];
  readonly dubboFilters: readonly DubboFilter[];
};

/** DubboProxy with one route configuration (the deprecated-but-supported `route_config` list Aeraki uses). */
export function dubboProxy(
  statPrefix: string,
  routeConfig: DubboRouteConfiguration,
  filters: readonly DubboFilter[],
): DubboProxyConfig {
  return { statPrefix, routeConfig: [routeConfig], dubboFilters: filters };
}
