/**
 * What plugins share for our own waypoint (Generator.generateOwnWaypoint; docs/waypoint-own.md): network filters as
 * `envoy.config.listener.v3.Filter` proto3 JSON (`{name, typed_config: {'@type': ..., ...fields}}`), the ADS config
 * source route resources are fetched from, the observe-then-forward chain of ZooKeeper and Kafka, and the warning of
 * a port the waypoint's image cannot carry.
 *
 * Stock Envoy looks extensions up by the type URL of their typed config, not by name (runtime guard
 * `envoy.reloadable_features.no_extension_lookup_by_name`, on since Envoy 1.22.0: envoyproxy/envoy
 * docs/root/version_history/v1.22/v1.22.0.rst, source/common/config/utility.h `getFactory`), so every filter here carries its typed config, also where the
 * sidecar filters leave it out (the Thrift router).
 */
import { TCP_PROXY_FILTER } from '../../model/constants.ts';
import type { OwnWaypointContext } from '../../model/generator.ts';
import {
  DUBBO_ROUTE_TYPE,
  type ProtoJson,
  type WaypointTypeUrl,
  type XdsResource,
} from '../../model/ambient/xds.ts';
import { refOf, refString, warning, type ConfigIssue } from '../../model/result.ts';

/**
 * The TypedStruct of filters whose proto the ADS server does not encode (meta_protocol_proxy, the contrib
 * kafka_broker): Envoy unpacks its `value` into the message `type_url` names (cncf/xds xds/type/v3/typed_struct.proto).
 */
export const XDS_TYPED_STRUCT_TYPE = 'type.googleapis.com/xds.type.v3.TypedStruct';
export const TCP_PROXY_TYPE = 'type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy';
export const DUBBO_ROUTER_TYPE =
  'type.googleapis.com/envoy.extensions.filters.network.dubbo_proxy.router.v3.Router';

/**
 * Route resources over the waypoint's ADS stream: `Drds`/`Trds` accept only an aggregated config source
 * (protos-2026 dubbo_proxy.proto Drds, thrift_proxy.proto Trds: "only aggregated api_type is supported").
 */
export function adsConfigSource(): ProtoJson {
  return { ads: {}, resource_api_version: 'V3' };
}

/** A network filter whose typed config is the message `typeUrl` with `fields`. */
export function typedFilter(name: string, typeUrl: string, fields: ProtoJson): ProtoJson {
  return { name, typed_config: { '@type': typeUrl, ...fields } };
}

/** A network filter whose config travels as an xds.type.v3.TypedStruct of `typeUrl`. */
export function typedStructFilter(name: string, typeUrl: string, value: ProtoJson): ProtoJson {
  return { name, typed_config: { '@type': XDS_TYPED_STRUCT_TYPE, type_url: typeUrl, value } };
}

/** One route resource of a chain. */
export function routeResource(typeUrl: WaypointTypeUrl, name: string, json: ProtoJson): XdsResource {
  return { typeUrl, name, json };
}

/** The terminal tcp_proxy to `cluster`, which also names its stats. */
export function tcpProxyFilter(cluster: string): ProtoJson {
  return typedFilter(TCP_PROXY_FILTER, TCP_PROXY_TYPE, { stat_prefix: cluster, cluster });
}

/** The filter and its config type of an observe-only protocol filter (ZooKeeper, Kafka). */
export interface OwnObserverFilter {
  readonly filterName: string;
  readonly typeUrl: string;
}

/**
 * An observe-only filter (stats as the chain's cluster, as the sidecars' `outbound|<port>||<host>`), then tcp_proxy
 * to the host's cluster on this port: what the sidecar gets with the filter inserted before its tcp_proxy.
 * `typedStruct`: the filter's config goes as a TypedStruct (a contrib type the ADS server does not encode).
 */
export function observerChain(
  ctx: OwnWaypointContext,
  filter: OwnObserverFilter,
  typedStruct = false,
): ProtoJson[] {
  const cluster = ctx.clusterOf();
  const config = { stat_prefix: cluster };
  const observer = typedStruct
    ? typedStructFilter(filter.filterName, filter.typeUrl, config)
    : typedFilter(filter.filterName, filter.typeUrl, config);
  return [observer, tcpProxyFilter(cluster)];
}

/**
 * dubbo_proxy fetching its routes over ADS (`drds`, a MultipleRouteConfiguration named `routeName`), with
 * `dubboFilters` (each `{name, config?}`, config an Any) before the router, which dubbo_proxy needs last.
 */
export function dubboProxyFilter(
  filterName: string,
  typeUrl: string,
  statPrefix: string,
  routeName: string,
  dubboFilters: readonly ProtoJson[] = [],
): ProtoJson {
  return typedFilter(filterName, typeUrl, {
    stat_prefix: statPrefix,
    drds: { config_source: adsConfigSource(), route_config_name: routeName },
    dubbo_filters: [
      ...dubboFilters,
      { name: 'envoy.filters.dubbo.router', config: { '@type': DUBBO_ROUTER_TYPE } },
    ],
  });
}

/** The `drds` resource of dubbo_proxy: route configurations tried in order (the first whose routes match wins). */
export function dubboRouteResource(name: string, routeConfigs: readonly ProtoJson[]): XdsResource {
  return routeResource(DUBBO_ROUTE_TYPE, name, { name, route_config: routeConfigs });
}

/** `<namespace>/<name>` of the chain's waypoint. */
export function waypointOf(ctx: OwnWaypointContext): string {
  return `${ctx.waypoint.namespace}/${ctx.waypoint.name}`;
}

/**
 * The warning of a port that gets no chain because the waypoint's image lacks `filterName`: it names the service,
 * the port, the waypoint and its image, and what image would carry it (`needs`).
 */
export function ownWaypointImageWarning(
  ctx: OwnWaypointContext,
  filterName: string,
  needs: string,
): ConfigIssue {
  const se = ctx.serviceEntry;
  const message =
    `${refString(refOf(se))} port ${ctx.port.number} ("${ctx.port.name}") is bound to waypoint ${waypointOf(ctx)}, ` +
    `whose image ${ctx.image.ref} (${ctx.image.kind}) has no ${filterName}: the waypoint does not carry this port ` +
    `(its aeraki.io/proxy-image must name ${needs})`;
  return warning(refOf(se), `spec.ports[${ctx.portIndex}].name`, message);
}
