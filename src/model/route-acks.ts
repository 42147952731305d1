/**
 * What the status controller reads about the proxies' answers to the routes it serves (RDS acknowledgements):
 * for a MetaRouter, the route configurations built from it and the MetaRouter generation each carries, and per
 * route configuration the connected proxies subscribed to it and where they stand. Implemented over the RDS
 * server's AckTracker and the RouteSource (app/serve.ts wires it).
 */

/** The route configurations built from one MetaRouter, each with the MetaRouter generation it carries. */
export interface RouteOrigin {
  readonly name: string;
  /** metadata.generation of the MetaRouter when the route was last built (undefined: the store had none). */
  readonly generation: number | undefined;
}

/** Connected proxies subscribed to one route configuration, for the version last sent to each. */
export interface RouteAckCounts {
  readonly subscribed: number;
  readonly acked: number;
  readonly pending: number;
  /**
   * When (ms since the epoch) the oldest pending version was sent; undefined without pending proxies. A time, not
   * an age, so that a status naming it stays the same while nothing changes.
   */
  readonly oldestPendingAt?: number;
  readonly rejected: number;
  /** The earliest current rejection: the proxy (node id or peer identity), the version and the error detail. */
  readonly firstRejection?: { readonly proxy: string; readonly version: string; readonly detail: string };
}

export interface RouteAcks {
  /** The route configurations served from the MetaRouter `namespace/name`, in name order. */
  routesOf(namespace: string, name: string): readonly RouteOrigin[];
  /** The proxies of `route`; undefined when no connected proxy is subscribed to it. */
  summary(route: string): RouteAckCounts | undefined;
  /**
   * The routes rebuilt, or where a proxy's answer moved, since the last call (one reader: the status controller,
   * which plans again the MetaRouters they come from, now and before). Absent where not tracked: the reader then
   * reads every MetaRouter's standing again on each change.
   */
  takeChanged?(): readonly string[];
  /** The MetaRouter (`namespace/name`) route `route` is built from now; undefined for the default route or none. */
  metaRouterOf?(route: string): string | undefined;
}

/** Where one proxy stands on one route: the version last sent is unanswered, acknowledged or rejected. */
export type RouteAckState = 'pending' | 'acked' | 'rejected';

/** One proxy (RDS stream) and where each route it was sent stands: /debug/proxies and `aeraki proxy-status`. */
export interface ProxyReport {
  readonly nodeId: string;
  readonly peer: string;
  readonly namespace?: string;
  readonly protocol: 'sotw' | 'delta';
  /** ISO time the stream opened. */
  readonly connectedSince: string;
  readonly routes: readonly {
    readonly name: string;
    readonly state: RouteAckState;
    readonly sent: string;
    readonly acked?: string;
    readonly rejected?: { readonly version: string; readonly errorDetail: string };
  }[];
  /**
   * Route names the proxy subscribes to and was not sent (the server holds no route of that name, or not yet),
   * sorted; absent when none. istioctl's proxy-status calls a type sent nothing `NOT SENT` (istio/istio
   * istioctl/pkg/writer/pilot/status.go, xdsStatus, at 0766c666004b4ebe71720661ae970ffeac4a464d).
   */
  readonly notSent?: readonly string[];
}
