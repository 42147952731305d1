/**
 * What the metrics read at scrape time. Each provider is structural, so the components' own objects fit as they
 * are (the MCP client's `status()` snapshot, the RDS server's `metrics` counters, the store's counts) and
 * src/ops never imports them. Every field is optional: a process without MCP or without RDS leaves it out.
 *
 * Contract: providers are called synchronously during a scrape, possibly concurrently with the component's own
 * work; they must be cheap (no I/O) and must not mutate. A provider that throws only blanks its own metrics for
 * that scrape.
 */

/** The subset of the MCP client's status snapshot (src/controller/mcp/status.ts McpStatusSnapshot). */
export interface McpStatusLike {
  /** 'idle' | 'connecting' | 'connected' | 'backoff' | 'stopped' (any other value is reported as written). */
  readonly state: string;
  readonly synced: boolean;
  /** Cumulative: streams re-opened after a failure. */
  readonly reconnects: number;
  /** Cumulative: NACKs this controller sent to istiod. */
  readonly nacksSent?: number;
  /** Cumulative: full answers dropped unapplied because a newer one of the same type URL was already in. */
  readonly superseded?: number;
  /** Cumulative: MCP receive workers that failed and were replaced. */
  readonly receiveWorkerRestarts?: number;
  readonly types?: readonly { readonly typeUrl: string; readonly resources: number }[];
}

/** The subset of the RDS server's counters (src/xds-rds/metrics.ts RdsMetrics). All cumulative except streamsActive. */
export interface RdsCountersLike {
  readonly streamsActive: number;
  readonly streamsOpened: number;
  /** Responses (pushes) sent on every stream. */
  readonly responses: number;
  readonly acks: number;
  readonly nacks: number;
  /** Requests refused with INVALID_ARGUMENT (undecodable, oversized, unknown type URL). */
  readonly invalidRequests?: number;
  /** Clients and streams refused, by reason (a small fixed set: src/xds-rds/peer-policy.ts RefusalReason). */
  readonly refused?: ReadonlyMap<string, number>;
}

/** The RDS acknowledgement tracker's current counts (src/xds-rds/acks.ts AckTracker). */
export interface RouteAcksLike {
  /** Route configurations with at least one connected proxy rejecting the version it was sent. */
  readonly routeConfigsRejected: number;
  /** Connected proxies rejecting at least one route configuration. */
  readonly proxiesRejecting: number;
}

/** The controller's own certificate (src/identity/types.ts IdentityStatus). */
export interface CertificateStatusLike {
  /** ms since the epoch; undefined before the first certificate. */
  readonly expiresAt: number | undefined;
  /** Cumulative. */
  readonly renewals: { readonly success: number; readonly failure: number };
}

/** One listener's handshake guard (src/util/handshake-guard.ts HandshakeStats). */
export interface HandshakeStatsLike {
  readonly listener: string;
  readonly pending: number;
  /** Cumulative, by result (a small fixed set). */
  readonly results: Readonly<Record<string, number>>;
}

export interface StatusProviders {
  readonly mcp?: () => McpStatusLike;
  readonly rds?: () => RdsCountersLike;
  readonly routeAcks?: () => RouteAcksLike;
  /** Leadership right now (the elector's `isLeader()`); absent means "not elected" and the gauge is not set. */
  readonly leader?: () => boolean;
  /** Valid objects held in the store by kind (`ServiceEntry` → 12); kinds are the store's, a bounded set. */
  readonly configObjects?: () => Readonly<Record<string, number>>;
  /** Kinds read from the Kubernetes API that are not served (CRD not installed) or forbidden by RBAC now. */
  readonly unavailableKinds?: () => readonly {
    readonly kind: string;
    readonly reason: 'not_installed' | 'forbidden';
  }[];
  /** Objects currently rejected by the store (invalid input), by kind (every kind of configObjects, 0 or more). */
  readonly rejectedObjects?: () => Readonly<Record<string, number>>;
  /** Config files that cannot be read, decoded or parsed right now (the directory source). */
  readonly configFileErrors?: () => number;
  /** ServiceEntry hosts whose output is held because of a rejected object of their namespace (src/status/held.ts). */
  readonly heldHosts?: () => number;
  /** (RDS route, EnvoyFilter) pairs where a managed EnvoyFilter names a route not served (model/unserved-routes.ts). */
  readonly unservedRoutes?: () => number;
  /**
   * EnvoyFilters (and gateway VirtualServices) labelled `manager: Aeraki` that exist right now, on the leader and on
   * a standby alike; undefined while that is not known (the gauge keeps its last value).
   */
  readonly managedEnvoyFilters?: () => number | undefined;
  /** The certificate the RDS server presents. */
  readonly certificate?: () => CertificateStatusLike;
  /** The handshake guards of the TLS listeners (RDS, MCP server, webhook) that run. */
  readonly handshakes?: () => readonly HandshakeStatsLike[];
}

/** The MCP states, all exported on every scrape (1 for the current one) so a state change never leaves gaps. */
export const MCP_STATES: readonly string[] = ['idle', 'connecting', 'connected', 'backoff', 'stopped'];
