import type * as grpc from '@grpc/grpc-js';
import { ADS_METHOD, type McpProtos } from '../../kit/mcp-protos.ts';

/**
 * The gRPC definition of an ADS server speaking SotW (StreamAggregatedResources): requests are decoded into
 * protobufjs messages (camelCase fields, typed by the caller as `Req`), responses are written as already-encoded
 * DiscoveryResponse bytes. The fake istiod serves the same definition.
 */
export function adsServiceDefinition<Req>(protos: McpProtos): grpc.ServiceDefinition {
  const { DiscoveryRequest } = protos;
  const method: grpc.MethodDefinition<Req, Buffer> = {
    path: ADS_METHOD,
    requestStream: true,
    responseStream: true,
    requestSerialize: (r: Req) =>
      Buffer.from(
        DiscoveryRequest.encode(DiscoveryRequest.fromObject(r as Record<string, unknown>)).finish(),
      ),
    requestDeserialize: (b: Buffer) => DiscoveryRequest.decode(b) as Req,
    responseSerialize: (b: Buffer) => b,
    responseDeserialize: (b: Buffer) => b,
    originalName: 'streamAggregatedResources',
  };
  return { StreamAggregatedResources: method };
}
