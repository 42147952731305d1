import type * as grpc from '@grpc/grpc-js';
import { decodeDeltaRequest, decodeSotwRequest, streamMethod } from './service.ts';

/**
 * The gRPC definition of envoy.service.discovery.v3.AggregatedDiscoveryService (envoy/service/discovery/v3/ads.proto)
 * served next to RDS on the same listener, for the waypoints: requests decoded to the fields the server reads
 * (service.ts, `node.cluster` included), responses as already-encoded bytes (responses.ts).
 */
const SERVICE = '/envoy.service.discovery.v3.AggregatedDiscoveryService/';

const identity = (b: Buffer): Buffer => b;

export const adsServiceDefinition = {
  StreamAggregatedResources: streamMethod(`${SERVICE}StreamAggregatedResources`, decodeSotwRequest),
  DeltaAggregatedResources: streamMethod(`${SERVICE}DeltaAggregatedResources`, decodeDeltaRequest),
} satisfies grpc.ServiceDefinition;

/** The client side, raw bytes both ways (tests, tools). */
export const adsRawClientDefinition = {
  StreamAggregatedResources: streamMethod(`${SERVICE}StreamAggregatedResources`, identity),
  DeltaAggregatedResources: streamMethod(`${SERVICE}DeltaAggregatedResources`, identity),
} satisfies grpc.ServiceDefinition;
