import type { WaypointRef } from './ambient/binding.ts';
import type { WaypointImage } from './ambient/own-waypoint.ts';
import type { ProtoJson, XdsResource } from './ambient/xds.ts';
import type { Protocol } from './protocol.ts';
import type {
  DestinationRule,
  EnvoyFilterSpec,
  Gateway,
  GatewayServer,
  MeshConfig,
  MetaRouter,
  ServiceEntry,
  ServicePort,
  VirtualService,
} from './objects.ts';
import type { KindSpec } from './kinds.ts';
import type { ProtocolFacts } from './protocol-facts.ts';
import type { Result } from './result.ts';
import type { ConfigView } from './view.ts';

/**
 * The resolved context of one port of one ServiceEntry, handed to the generator of that port's protocol
 * (deviation D4: every port by its own protocol's generator, with its own number). `X` is what that generator's
 * own context resolution found (Generator.resolveContext).
 */
export interface SidecarContext<X = unknown> {
  readonly mode: 'sidecar';
  readonly serviceEntry: ServiceEntry;
  readonly port: ServicePort;
  /** Index of `port` in `serviceEntry.spec.ports`, for issue paths (`spec.ports[<i>].name`). */
  readonly portIndex: number;
  /**
   * The ports the workloads receive `port` on (D16; src/envoyfilter/inbound-ports.ts), sorted, distinct, at least
   * one: the inbound filter has one patch per port, matching it and routing to its `inbound|<port>||` cluster.
   * Absent: `port.number`.
   */
  readonly inboundPorts?: readonly number[];
  readonly protocol: Protocol;
  readonly virtualService: VirtualService | undefined;
  readonly destinationRule: DestinationRule | undefined;
  readonly metaRouter: MetaRouter | undefined;
  readonly mesh: MeshConfig;
  codecFor(applicationProtocol: string): string | undefined;
  /**
   * The plugin's own inputs: what the generator's resolveContext returned for this ServiceEntry (resolved once
   * per ServiceEntry, for the ports of that generator's protocols only). Absent when the generator has none, so
   * the common context does not grow with every protocol.
   */
  readonly extension?: X;
}

/** One MetaProtocol server port of a Gateway and one MetaRouter bound to that gateway which routes to that port. */
export interface GatewayContext {
  readonly mode: 'gateway';
  readonly gateway: Gateway;
  readonly server: GatewayServer;
  readonly serverIndex: number;
  readonly metaRouter: MetaRouter;
  readonly mesh: MeshConfig;
  codecFor(applicationProtocol: string): string | undefined;
}

/**
 * What both kinds of waypoint give a generator for one host of one handled port of a bound Service or ServiceEntry:
 * the port, the host, the waypoint, and the VirtualService, DestinationRule and MetaRouter of the host in the
 * service's namespace.
 */
export interface BoundPortContext<X = unknown> {
  readonly serviceEntry: ServiceEntry;
  readonly port: ServicePort;
  readonly portIndex: number;
  readonly protocol: Protocol;
  readonly host: string;
  /** The waypoint Gateway the service is bound to. */
  readonly waypoint: WaypointRef;
  readonly virtualService: VirtualService | undefined;
  readonly destinationRule: DestinationRule | undefined;
  readonly metaRouter: MetaRouter | undefined;
  readonly mesh: MeshConfig;
  codecFor(applicationProtocol: string): string | undefined;
  /** As SidecarContext.extension: what resolveContext returned for the ServiceEntry. */
  readonly extension?: X;
}

/**
 * One host of one handled port of a Service or ServiceEntry bound to an Istio waypoint (istio-proxy): the waypoint
 * has a filter chain `inbound-vip|<port>|tcp|<host>` on `main_internal` for it, ending in tcp_proxy, which the
 * generator's filter replaces (or precedes). The VirtualService, DestinationRule and MetaRouter are those of `host`
 * in the service's namespace. src/envoyfilter/waypoint.ts builds the EnvoyFilter around the filter.
 */
export interface WaypointContext<X = unknown> extends BoundPortContext<X> {
  readonly mode: 'waypoint';
  /** The host whose chain is patched (istiod builds one chain per host of a ServiceEntry). */
  readonly host: string;
  /** The image the waypoint runs instead of istio-proxy (its Gateway's `sidecar.istio.io/proxyImage`); absent: istio-proxy. */
  readonly proxyImage?: string;
  /** `proxyImage` is a known MetaProtocol proxy image (model/proxy-images.ts, or the list the caller passes). */
  readonly metaProtocolImage: boolean;
  /**
   * The waypoint's cluster of `host` (default: `ctx.host`) on `port` (default: this port), `subset` included: the
   * VIP cluster `inbound-vip|<port>|tcp[/<subset>]|<host>` for a host of this service, else the outbound cluster
   * `outbound|<port>|<subset>|<host>` the waypoint also builds (listener_waypoint.go getWaypointDestinationCluster).
   */
  clusterOf(subset?: string, host?: string, port?: number): string;
}

/**
 * The network filter a waypoint build returns (proto3 JSON config, wrapped in a TypedStruct by the caller):
 * `REPLACE` of tcp_proxy (the default) or `INSERT_BEFORE` it.
 */
export interface WaypointFilter {
  readonly filterName: string;
  readonly typeUrl: string;
  readonly config: Readonly<Record<string, unknown>>;
  readonly operation?: 'REPLACE' | 'INSERT_BEFORE';
}

/**
 * One host of one handled port of a Service or ServiceEntry bound to one of our own waypoints (class
 * `aeraki-waypoint`, stock Envoy programmed over our ADS; model/ambient/own-waypoint.ts). The translation
 * (src/waypoint/) builds the filter chain matched on the service's addresses and port, starting with the
 * `set_filter_state` copy of the PROXY header's client identity to `io.istio.peer_principal`; the generator gives
 * the network filters after it (authorization, the protocol's proxy, last the terminal one) and any route resource
 * they fetch over ADS.
 */
export interface OwnWaypointContext<X = unknown> extends BoundPortContext<X> {
  readonly mode: 'own-waypoint';
  /** The host the chain is for (hosts[0] of a ServiceEntry with several hosts: one chain per address and port). */
  readonly host: string;
  /** What the waypoint runs (its Gateway's `aeraki.io/proxy-image`, else `--waypoint-image`) and what that can carry. */
  readonly image: WaypointImage;
  /**
   * The waypoint's cluster of `host` (default: `ctx.host`) on `port` (default: this port), `subset` included:
   * `outbound|<port>|<subset>|<host>`. The translation builds every cluster a generator named this way (type EDS,
   * the ready endpoints of that host and port, those of the subset's labels) and its ClusterLoadAssignment.
   */
  clusterOf(subset?: string, host?: string, port?: number): string;
  /** The name of a route resource of this chain, served over ADS (`<host>_<port>`, as the RDS server names MetaProtocol routes). */
  readonly routeName: string;
}

/**
 * The network filters of one chain of our own waypoint (each `envoy.config.listener.v3.Filter` as proto3 JSON,
 * `{name, typed_config: {'@type': ..., ...}}`, the terminal one last) and the route resources they fetch over ADS
 * (`config_source: {ads: {}}`, resource names as in the filters).
 */
export interface OwnWaypointChain {
  readonly filters: readonly ProtoJson[];
  readonly routes?: readonly XdsResource[];
}

/**
 * A sidecar EnvoyFilter before placement: the namespace (root, ServiceEntry namespace or exportTo targets) is
 * decided by the caller, and so is name sanitising (D7).
 */
export interface FilterDraft {
  readonly name: string;
  readonly spec: EnvoyFilterSpec;
}

/**
 * A gateway-mode object before stamping: the gateway EnvoyFilter, or the VirtualService that makes istiod build
 * the gateway listener. The caller sanitises the name (D7) and adds apiVersion, labels and the source annotation.
 */
export type GatewayDraft =
  | {
      readonly kind: 'EnvoyFilter';
      readonly name: string;
      readonly namespace: string;
      readonly spec: EnvoyFilterSpec;
    }
  | {
      readonly kind: 'VirtualService';
      readonly name: string;
      readonly namespace: string;
      readonly spec: Readonly<Record<string, unknown>>;
    };

/**
 * A generator is a pure function of its context: no I/O, no logging, no clock. Same context, same output.
 * Errors in user config are returned as issues naming the object and the field, never thrown.
 * `X` is the generator's own context (SidecarContext.extension).
 */
export interface Generator<X = unknown> {
  readonly name: string;
  /** The L7 protocols whose ports this generator handles. */
  readonly protocols: readonly Protocol[];
  /**
   * What it knows of its protocols beyond their names (model/protocol-facts.ts): a contrib-only Envoy filter,
   * well-known ports; one entry per protocol at most, each one of `protocols`. Absent: nothing more.
   */
  readonly facts?: readonly ProtocolFacts[];
  /** The kinds its plugin reads (model/kinds.ts); absent: none of its own. */
  readonly kinds?: readonly KindSpec[];
  /**
   * Names of the fields of its generated patch values that hold credentials, as proto3 JSON writes them
   * (`authPassword`; the snake_case form `auth_password` is the same field), at any depth. `/debug/*` never shows
   * their values (the EnvoyFilters written to the API server carry them). Absent: it generates none.
   */
  readonly secretKeys?: readonly string[];
  /**
   * The inputs only this generator reads (the objects of its plugin's kinds that bind `serviceEntry`), looked up
   * through `view` (O(1) lookups: its indexes, model/kinds.ts; no side effects). Called at most once per
   * ServiceEntry and pass, and only when a port of the ServiceEntry has one of `protocols`; the result is handed
   * to generateSidecar as `ctx.extension`.
   */
  resolveContext?(view: ConfigView, serviceEntry: ServiceEntry): X;
  generateSidecar(ctx: SidecarContext<X>): Result<readonly FilterDraft[]>;
  /**
   * Waypoint mode: the filter for one chain of a waypoint (WaypointContext), or undefined with a warning when the
   * waypoint cannot run it (its image lacks the filter). Absent: the protocol gets no waypoint filter (a warning).
   */
  generateWaypoint?(ctx: WaypointContext<X>): Result<WaypointFilter | undefined>;
  /**
   * Our own waypoint: the filters of one chain (OwnWaypointContext), or undefined with a warning when the waypoint's
   * image cannot carry the protocol (ctx.image.kind). Absent: the protocol's ports get no chain (a warning).
   */
  generateOwnWaypoint?(ctx: OwnWaypointContext<X>): Result<OwnWaypointChain | undefined>;
  /** Gateway mode (MetaProtocol only): the gateway EnvoyFilters and VirtualServices, as drafts. */
  generateGateway?(ctx: GatewayContext): Result<readonly GatewayDraft[]>;
}
