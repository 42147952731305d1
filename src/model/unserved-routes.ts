/**
 * EnvoyFilters that send a MetaProtocol proxy to an RDS route nobody serves. An EnvoyFilter kept in place while its
 * source is unknown (a config file broken since start: deletes are held) or held keeps naming its route
 * `<host>_<port>` (model/names.ts routeConfigName) while the RDS snapshot may have no such route: a sidecar that
 * (re)connects then gets a MetaProtocol proxy with no routes. The writers (the directory sink, the drift watch) say
 * which routes each managed EnvoyFilter names (ManagedRoutes); app/ compares them with the RDS snapshot.
 *
 * The route name is read where the MetaProtocol generator writes it: the MetaProtocolProxy config
 * (`type.googleapis.com/aeraki.meta_protocol_proxy.v1alpha.MetaProtocolProxy`, plugins/metaprotocol/proxy.ts) as
 * the `value` of a `udpa.type.v1.TypedStruct` or as the typed config itself, field `rds.routeConfigName` (proto3
 * JSON) or `rds.route_config_name` (the proto field name, which Envoy's JSON parsing also accepts). The field is
 * Aeraki's: api/meta_protocol_proxy/v1alpha/meta_protocol_proxy.proto (aeraki-mesh/meta-protocol-proxy), `Rds`
 * with `config_source` and `route_config_name`.
 */
import { META_PROTOCOL_PROXY_TYPE } from './constants.ts';
import { compareStrings } from './order.ts';

/** One EnvoyFilter naming a route that the RDS snapshot does not hold. */
export interface UnservedRoute {
  readonly route: string;
  /** `namespace/name` of the EnvoyFilter. */
  readonly envoyFilter: string;
}

/** What a writer knows of the managed EnvoyFilters it wrote or found: the RDS routes each one names. */
export interface ManagedRoutes {
  /**
   * EnvoyFilter `namespace/name` → the RDS route names its MetaProtocol proxies name (EnvoyFilters naming none are
   * absent). Unknown until the writer first listed: undefined then.
   */
  rdsRoutes(): ReadonlyMap<string, readonly string[]> | undefined;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The RDS route names of the MetaProtocol proxies in an EnvoyFilter spec, sorted, unique. */
export function rdsRouteNamesOf(spec: unknown): string[] {
  const names = new Set<string>();
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) {
      for (const item of v) visit(item);
      return;
    }
    if (!isObject(v)) return;
    const config =
      v['type_url'] === META_PROTOCOL_PROXY_TYPE
        ? v['value']
        : v['@type'] === META_PROTOCOL_PROXY_TYPE
          ? v
          : undefined;
    const name = isObject(config) ? routeNameOf(config['rds']) : undefined;
    if (name !== undefined) names.add(name);
    for (const child of Object.values(v)) visit(child);
  };
  visit(spec);
  return [...names].sort(compareStrings);
}

function routeNameOf(rds: unknown): string | undefined {
  if (!isObject(rds)) return undefined;
  const name = rds['routeConfigName'] ?? rds['route_config_name'];
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/** Every (route, EnvoyFilter) whose route `served` does not hold, by route then EnvoyFilter. */
export function unservedRoutes(
  filters: ReadonlyMap<string, readonly string[]>,
  served: (route: string) => boolean,
): UnservedRoute[] {
  const out: UnservedRoute[] = [];
  for (const [envoyFilter, routes] of filters) {
    for (const route of routes) if (!served(route)) out.push({ route, envoyFilter });
  }
  return out.sort((a, b) => compareStrings(a.route, b.route) || compareStrings(a.envoyFilter, b.envoyFilter));
}

/** The `/readyz` line: `EnvoyFilter shop/aeraki-... names RDS route svc.shop_20880, which is not served`. */
export function describeUnservedRoute(u: UnservedRoute): string {
  return `EnvoyFilter ${u.envoyFilter} names RDS route ${u.route}, which is not served: a proxy (re)connecting gets no routes for it`;
}
