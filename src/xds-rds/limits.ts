/**
 * The RDS server's limits against bad and hostile clients, and the checks of one decoded request. Defaults are
 * far above what a mesh of a thousand sidecars sends: a MetaProtocol proxy opens one connection with one or two
 * streams, names at most a few thousand routes, and pings at most every 30 s (Istio's xDS keepalive).
 */
import type { NameBudgetLimits } from './budgets.ts';
import type { DeltaRequest, SotwRequest } from './stream-types.ts';

/** Also the route-name budgets (NameBudgetLimits, budgets.ts). */
export interface RdsLimits extends NameBudgetLimits {
  /**
   * `grpc.max_receive_message_length`: largest request message (bytes). grpc-js holds a stream's message until it
   * is whole, so one connection may hold this times its streams before any budget is checked: 1 MiB (100 MiB per
   * connection) where a proxy's request is a few KiB (its node on the first one, then its names).
   */
  readonly maxReceiveBytes: number;
  /** `grpc.max_concurrent_streams`: streams one HTTP/2 connection may have open at once. */
  readonly maxStreamsPerConnection: number;
  /** A client ping sooner than this after the previous one is a strike (HTTP/2 keepalive enforcement). */
  readonly minPingIntervalMs: number;
  /** Strikes after which the connection is closed with GOAWAY ENHANCE_YOUR_CALM `too_many_pings`. */
  readonly maxPingStrikes: number;
  /** Streams of one connection refused as invalid after which it is closed (GOAWAY `invalid_requests`). */
  readonly maxInvalidRequestsPerConnection: number;
  /** Connections with open streams one client identity may hold; a stream on one more is RESOURCE_EXHAUSTED.
   *  Replicas of one workload share their identity (service account), hence the high default. */
  readonly maxConnectionsPerIdentity: number;
  /**
   * Bytes of unfinished request messages one identity may have the server hold over all its streams (in-flight.ts);
   * the stream that takes it over is reset (RESOURCE_EXHAUSTED on the client). 0 = no limit.
   */
  readonly maxInFlightBytesPerIdentity: number;
  /** A stream that sends no request for this long after opening is ended (DEADLINE_EXCEEDED); 0 = never. */
  readonly idleStreamTimeoutMs: number;
  /** `grpc.max_connection_idle_ms`: a connection without any stream for this long is closed (GOAWAY). */
  readonly idleConnectionTimeoutMs: number;
}

/*
 * Why the route-name budgets are where they are. A MetaProtocol proxy subscribes to one RouteConfiguration per
 * MetaProtocol proxy filter, named `<host>_<port>` (src/model/names.ts routeConfigName, as Aeraki's
 * `internal/plugin/metaprotocol/metaprotocolproxy.go` writes `rds.route_config_name`), and each subscription names
 * only its own route (aeraki-mesh/meta-protocol-proxy e2dbc66, src/meta_protocol_proxy/route/rds_impl.cc:
 * `subscription_->start({route_config_name_})`). Real names are therefore short, e.g.
 * `org.apache.dubbo.samples.basic.api.demoservice_20880` (52 bytes); a host has at most 253 characters, so a name
 * has at most 253 + 1 + 5 = 259: 300 bytes is generous. A proxy subscribes to one name per MetaProtocol
 * listener, a tool (`aeraki routes`) to a few hundred: 10,000 per stream is far above both. A proxy with 1,000
 * MetaProtocol services holds 1,000 names, under 520 KiB at the longest names with their cost: 4 MiB per
 * connection leaves room. An identity is shared by every replica of a workload: 64 MiB is 200,000 names of 60
 * bytes, e.g. 2,000 replicas of 100 routes each.
 * A full identity budget of names holds about as much heap as it counts: 64 MB (test/xds-rds/budget-memory.test.ts).
 * Unfinished messages in flight: a proxy's request is a few KiB and is whole in one round trip, so even 2,000
 * replicas starting at once hold a few MiB; 64 MiB per identity. Without it, 8 connections of one identity, each
 * with 100 streams of a 1 MiB message never finished, took the server to 1 GB of RSS
 * (test/xds-rds/inflight-memory.test.ts).
 */

export const DEFAULT_RDS_LIMITS: RdsLimits = {
  maxReceiveBytes: 1 << 20,
  maxStreamsPerConnection: 100,
  minPingIntervalMs: 5_000,
  maxPingStrikes: 2,
  maxInvalidRequestsPerConnection: 5,
  maxConnectionsPerIdentity: 10_000,
  maxInFlightBytesPerIdentity: 64 << 20,
  idleStreamTimeoutMs: 60_000,
  idleConnectionTimeoutMs: 300_000,
  maxRouteNameBytes: 300,
  maxRouteNamesPerStream: 10_000,
  maxRouteNameBytesPerConnection: 4 << 20,
  maxRouteNameBytesPerIdentity: 64 << 20,
};

/** Sizes of the fields of one request (fixed: a sidecar's values are tiny by comparison). Names: budgets.ts. */
export const REQUEST_LIMITS = {
  /** Bytes of `version_info`, `response_nonce`, `node.id`, `node.cluster`, `type_url`, and of each initial resource version. */
  token: 4096,
} as const;

function tooLong(field: string, value: string, max: number): string | undefined {
  const n = Buffer.byteLength(value);
  return n > max ? `${field} is ${n} bytes; at most ${max} are accepted` : undefined;
}

/**
 * What is wrong with a request's sizes, naming the field; undefined when it is acceptable. Resource names are
 * checked against the budgets (StreamBudget.checkNames) instead.
 */
export function requestProblem(req: SotwRequest | DeltaRequest): string | undefined {
  const tokens: [string, string][] = [
    ['node.id', req.nodeId],
    ['node.cluster', req.nodeCluster ?? ''],
    ['type_url', req.typeUrl],
    ['response_nonce', req.responseNonce],
  ];
  if ('versionInfo' in req) tokens.push(['version_info', req.versionInfo]);
  for (const [field, value] of tokens) {
    const p = tooLong(field, value, REQUEST_LIMITS.token);
    if (p) return p;
  }
  if ('resourceNames' in req) return undefined;
  for (const [n, v] of Object.entries(req.initialResourceVersions)) {
    const p = tooLong(`initial_resource_versions[${n.slice(0, 300)}]`, v, REQUEST_LIMITS.token);
    if (p) return p;
  }
  return undefined;
}
