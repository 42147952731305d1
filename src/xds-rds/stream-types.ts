import type { Logger } from '../util/logger.ts';
import type { AckTracker } from './acks.ts';
import type { StreamBudget } from './budgets.ts';
import type { RdsMetrics } from './metrics.ts';
import type { SnapshotCache } from './snapshot.ts';

/** google.rpc.Status as carried in `error_detail`. */
export interface ErrorDetail {
  readonly code: number;
  readonly message: string;
}

/** The fields of envoy.service.discovery.v3.DiscoveryRequest the server reads. */
export interface SotwRequest {
  readonly versionInfo: string;
  /** `node.id`; '' when the request carries no node (only the first one must). */
  readonly nodeId: string;
  /** `node.cluster` (ADS: which waypoint Gateway the proxy is, `W.N`); '' or absent without one. */
  readonly nodeCluster?: string;
  readonly resourceNames: readonly string[];
  readonly typeUrl: string;
  readonly responseNonce: string;
  readonly errorDetail?: ErrorDetail;
  /** Set when the message could not be decoded (the other fields are then empty): why. */
  readonly invalid?: string;
}

/** The fields of envoy.service.discovery.v3.DeltaDiscoveryRequest the server reads. */
export interface DeltaRequest {
  readonly nodeId: string;
  /** As SotwRequest.nodeCluster. */
  readonly nodeCluster?: string;
  readonly typeUrl: string;
  readonly subscribe: readonly string[];
  readonly unsubscribe: readonly string[];
  readonly initialResourceVersions: Readonly<Record<string, string>>;
  readonly responseNonce: string;
  readonly errorDetail?: ErrorDetail;
  /** Set when the message could not be decoded (the other fields are then empty): why. */
  readonly invalid?: string;
}

/** Where a stream writes. The gRPC call in production, a recorder in tests. */
export interface StreamSink {
  /** One encoded response message (DiscoveryResponse or DeltaDiscoveryResponse). */
  send(bytes: Buffer): void;
  /** Ends the stream with a gRPC status code (e.g. 3 INVALID_ARGUMENT) and message. */
  fail(code: number, message: string): void;
}

export interface StreamDeps {
  readonly cache: SnapshotCache;
  readonly sink: StreamSink;
  readonly logger: Logger;
  readonly metrics: RdsMetrics;
  /** Identity of the peer certificate (SPIFFE URI SAN or CN), `unauthenticated` without TLS. */
  readonly peer: string;
  /** Records what the stream sends and what the proxy acknowledges or rejects, route by route (optional). */
  readonly acks?: AckTracker;
  /** The stream's share of its connection's and identity's route-name budgets (default: the default limits, alone). */
  readonly budget?: StreamBudget;
}

export const STATUS_INVALID_ARGUMENT = 3;
