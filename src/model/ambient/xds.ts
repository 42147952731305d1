/**
 * The contract between the translation of bound services into a waypoint's xDS resources (src/waypoint/) and the
 * ADS server that serves them (src/xds-rds/), wired in src/app/: resources travel as proto3 JSON (an Any is an
 * object with `@type`; keys may be lowerCamelCase or the proto's snake_case names, as protobuf's JSON parser
 * accepts both), grouped per Gateway and per service, so a change to one service replaces that service's
 * contribution only.
 */
import { ROUTE_CONFIGURATION_TYPE } from '../constants.ts';
import type { GatewayKey } from './own-waypoint.ts';

export const LISTENER_TYPE = 'type.googleapis.com/envoy.config.listener.v3.Listener';
export const CLUSTER_TYPE = 'type.googleapis.com/envoy.config.cluster.v3.Cluster';
export const ENDPOINT_TYPE = 'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment';
/** dubbo_proxy's `drds` resource (dubbo_proxy/router/rds.h: RouteConfigProviderManager<Drds, MultipleRouteConfiguration>). */
export const DUBBO_ROUTE_TYPE =
  'type.googleapis.com/envoy.extensions.filters.network.dubbo_proxy.v3.MultipleRouteConfiguration';
/** thrift_proxy's `trds` resource (thrift_proxy/router/rds.h). */
export const THRIFT_ROUTE_TYPE =
  'type.googleapis.com/envoy.extensions.filters.network.thrift_proxy.v3.RouteConfiguration';
/** The MetaProtocol proxy's RDS resource: Envoy's RouteConfiguration (the same the RDS server serves sidecars). */
export const META_ROUTE_TYPE = ROUTE_CONFIGURATION_TYPE;

/** Every type a waypoint is served, in the order a server sends a first answer: what is referenced goes first. */
export const WAYPOINT_TYPES = [
  CLUSTER_TYPE,
  ENDPOINT_TYPE,
  LISTENER_TYPE,
  DUBBO_ROUTE_TYPE,
  THRIFT_ROUTE_TYPE,
  META_ROUTE_TYPE,
] as const;
export type WaypointTypeUrl = (typeof WAYPOINT_TYPES)[number];

/** LDS and CDS are wildcard types (an empty subscription means everything); EDS and the route types are named. */
export function isWildcardType(typeUrl: string): boolean {
  return typeUrl === LISTENER_TYPE || typeUrl === CLUSTER_TYPE;
}

export type ProtoJson = Readonly<Record<string, unknown>>;

/** One named resource of a type other than Listener (clusters, endpoints, routes). */
export interface XdsResource {
  readonly typeUrl: WaypointTypeUrl;
  readonly name: string;
  readonly json: ProtoJson;
}

/**
 * What one service (a Service or ServiceEntry, key `<kind>/<namespace>/<name>`) contributes to its waypoint: the
 * listener's filter chains for its addresses and ports (`envoy.config.listener.v3.FilterChain`, each with a unique
 * `name`) and the clusters, endpoints and routes they reference. Two services may contribute a resource of the same
 * type and name (a Redis mirror to another bound service's cluster): the server serves the one of the first service
 * key in string order.
 */
export interface ServiceContribution {
  readonly chains: readonly ProtoJson[];
  readonly resources: readonly XdsResource[];
}

/**
 * A change to the resources of one Gateway. `listener`: the Listener without its `filter_chains` (name, address,
 * listener filters), set when it changed; `null` removes the Gateway and everything it had. `services`: the
 * contributions that changed (undefined: the service no longer contributes). A Gateway that was never given a
 * listener serves nothing.
 */
export interface WaypointChange {
  readonly gateway: GatewayKey;
  readonly listener?: ProtoJson | null;
  readonly services: ReadonlyMap<string, ServiceContribution | undefined>;
}

/** Where the translation publishes (the ADS cache implements it). One call is one push per affected stream. */
export interface WaypointXdsSink {
  apply(changes: readonly WaypointChange[]): void;
}

/**
 * The state of one Gateway's proxies, from the ADS side (ACKs and NACKs of what each connected proxy was sent):
 * - `none`: no proxy of this Gateway is connected;
 * - `pending`: a connected proxy has not yet acknowledged the current listeners and clusters;
 * - `acked`: every connected proxy acknowledged the current listeners and clusters;
 * - `rejected`: a connected proxy rejected a listener or cluster (its first error detail, and which proxy).
 */
export interface WaypointProgramState {
  readonly gateway: GatewayKey;
  readonly state: 'none' | 'pending' | 'acked' | 'rejected';
  readonly connected: number;
  /** With `rejected`: the proxy's node id and the first error detail (at most 1024 characters). */
  readonly proxy?: string;
  readonly detail?: string;
}

/** What the ADS side reports to the Gateway controller. */
export interface WaypointPrograms {
  state(gateway: GatewayKey): WaypointProgramState;
  /** Calls `listener` with the Gateways whose state changed; returns the unsubscribe function. */
  subscribe(listener: (gateways: readonly GatewayKey[]) => void): () => void;
}

/**
 * What the translation could not carry on a Gateway, for its status and Events: one line per service port the
 * waypoint's image cannot run (a MetaProtocol codec on stock Envoy, Kafka without the contrib image) or that has no
 * address to match, each naming the service, the port and why. Sorted; empty when everything bound is carried.
 */
export interface WaypointCoverage {
  uncarried(gateway: GatewayKey): readonly string[];
  /** Calls `listener` with the Gateways whose list changed; returns the unsubscribe function. */
  subscribe(listener: (gateways: readonly GatewayKey[]) => void): () => void;
}
