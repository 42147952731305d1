/**
 * The RDS server's limits against bad and hostile clients, and the checks of one decoded request. Defaults are
 * far above what a mesh of a thousand sidecars sends: a MetaProtocol proxy opens one connection with one or two
 * streams, names at most a few thousand routes, and pings at most every 30 s (Istio's xDS keepalive).
 */
import type { DeltaRequest, SotwRequest } from './stream-types.ts';

export interface RdsLimits {
  /** `grpc.max_receive_message_length`: largest request message (bytes). */
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
  /** A stream that sends no request for this long after opening is ended (DEADLINE_EXCEEDED); 0 = never. */
  readonly idleStreamTimeoutMs: number;
  /** `grpc.max_connection_idle_ms`: a connection without any stream for this long is closed (GOAWAY). */
  readonly idleConnectionTimeoutMs: number;
}

export const DEFAULT_RDS_LIMITS: RdsLimits = {
  maxReceiveBytes: 4 << 20,
  maxStreamsPerConnection: 100,
  minPingIntervalMs: 5_000,
  maxPingStrikes: 2,
  maxInvalidRequestsPerConnection: 5,
  maxConnectionsPerIdentity: 10_000,
  idleStreamTimeoutMs: 60_000,
  idleConnectionTimeoutMs: 300_000,
};

/** Sizes of the fields of one request (fixed: a sidecar's values are tiny by comparison). */
export const REQUEST_LIMITS = {
  /** Bytes of `version_info`, `response_nonce`, `node.id`, `type_url`. */
  token: 4096,
  /** Bytes of one resource name (a host of at most 253 characters, `_`, a port). */
  name: 1024,
  /** Names one stream may subscribe to. */
  names: 100_000,
} as const;

function tooLong(field: string, value: string, max: number): string | undefined {
  const n = Buffer.byteLength(value);
  return n > max ? `${field} is ${n} bytes; at most ${max} are accepted` : undefined;
}

function namesProblem(field: string, names: readonly string[]): string | undefined {
  if (names.length > REQUEST_LIMITS.names) {
    return `${field} names ${names.length} resources; at most ${REQUEST_LIMITS.names} are accepted`;
  }
  for (const [i, n] of names.entries()) {
    const p = tooLong(`${field}[${i}]`, n, REQUEST_LIMITS.name);
    if (p) return p;
  }
  return undefined;
}

/** What is wrong with a request's sizes, naming the field; undefined when it is acceptable. */
export function requestProblem(req: SotwRequest | DeltaRequest): string | undefined {
  const tokens: [string, string][] = [
    ['node.id', req.nodeId],
    ['type_url', req.typeUrl],
    ['response_nonce', req.responseNonce],
  ];
  if ('versionInfo' in req) tokens.push(['version_info', req.versionInfo]);
  for (const [field, value] of tokens) {
    const p = tooLong(field, value, REQUEST_LIMITS.token);
    if (p) return p;
  }
  if ('resourceNames' in req) return namesProblem('resource_names', req.resourceNames);
  const initial = Object.keys(req.initialResourceVersions);
  return (
    namesProblem('resource_names_subscribe', req.subscribe) ??
    namesProblem('resource_names_unsubscribe', req.unsubscribe) ??
    namesProblem('initial_resource_versions', initial) ??
    initial
      .map((n) =>
        tooLong(
          `initial_resource_versions[${n}]`,
          req.initialResourceVersions[n] ?? '',
          REQUEST_LIMITS.token,
        ),
      )
      .find((p) => p !== undefined)
  );
}
