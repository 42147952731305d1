import type * as grpc from '@grpc/grpc-js';
import { loadRdsProtos } from './protos.ts';
import type { DeltaRequest, ErrorDetail, SotwRequest } from './stream-types.ts';

/**
 * The gRPC definition of envoy.service.route.v3.RouteDiscoveryService with our own (de)serialisers: requests are
 * decoded to the few fields the server reads; responses travel as already-encoded bytes (see responses.ts).
 * The client side (requests encoded, responses decoded) is in src/tools/rds-codec.ts.
 */
const SERVICE = '/envoy.service.route.v3.RouteDiscoveryService/';

interface RawRequest {
  versionInfo?: string;
  node?: { id?: string; cluster?: string };
  resourceNames?: string[];
  typeUrl?: string;
  responseNonce?: string;
  errorDetail?: { code?: number; message?: string };
  resourceNamesSubscribe?: string[];
  resourceNamesUnsubscribe?: string[];
  initialResourceVersions?: Record<string, string>;
}

function errorDetailOf(raw: RawRequest): ErrorDetail | undefined {
  if (!raw.errorDetail) return undefined;
  return { code: raw.errorDetail.code ?? 0, message: raw.errorDetail.message ?? '' };
}

/** The message of a decoding failure, naming the message type. */
function undecodable(what: string, err: unknown): string {
  return `cannot decode the ${what}: ${err instanceof Error ? err.message : String(err)}`;
}

/** Never throws: an undecodable message comes back with `invalid` set (the stream refuses it, naming why). */
export function decodeSotwRequest(bytes: Buffer): SotwRequest {
  const p = loadRdsProtos();
  let raw: RawRequest;
  try {
    raw = p.DiscoveryRequest.toObject(p.DiscoveryRequest.decode(bytes), { arrays: true });
  } catch (err) {
    const invalid = undecodable('DiscoveryRequest', err);
    return { versionInfo: '', nodeId: '', resourceNames: [], typeUrl: '', responseNonce: '', invalid };
  }
  const errorDetail = errorDetailOf(raw);
  return {
    versionInfo: raw.versionInfo ?? '',
    nodeId: raw.node?.id ?? '',
    nodeCluster: raw.node?.cluster ?? '',
    resourceNames: raw.resourceNames ?? [],
    typeUrl: raw.typeUrl ?? '',
    responseNonce: raw.responseNonce ?? '',
    ...(errorDetail ? { errorDetail } : {}),
  };
}

/** Never throws, as decodeSotwRequest. */
export function decodeDeltaRequest(bytes: Buffer): DeltaRequest {
  const p = loadRdsProtos();
  let raw: RawRequest;
  try {
    raw = p.DeltaDiscoveryRequest.toObject(p.DeltaDiscoveryRequest.decode(bytes), {
      arrays: true,
      objects: true,
    });
  } catch (err) {
    return {
      nodeId: '',
      typeUrl: '',
      subscribe: [],
      unsubscribe: [],
      initialResourceVersions: {},
      responseNonce: '',
      invalid: undecodable('DeltaDiscoveryRequest', err),
    };
  }
  const errorDetail = errorDetailOf(raw);
  return {
    nodeId: raw.node?.id ?? '',
    nodeCluster: raw.node?.cluster ?? '',
    typeUrl: raw.typeUrl ?? '',
    subscribe: raw.resourceNamesSubscribe ?? [],
    unsubscribe: raw.resourceNamesUnsubscribe ?? [],
    initialResourceVersions: raw.initialResourceVersions ?? {},
    responseNonce: raw.responseNonce ?? '',
    ...(errorDetail ? { errorDetail } : {}),
  };
}

const identity = (b: Buffer): Buffer => b;

/**
 * One bidirectional streaming method (RDS's and ADS's all are) at `path`: requests decoded by `decode`, responses
 * as already-encoded bytes, both ways as bytes on the wire side.
 */
export function streamMethod<T>(path: string, decode: (bytes: Buffer) => T) {
  return {
    path,
    requestStream: true,
    responseStream: true,
    requestSerialize: identity,
    requestDeserialize: decode,
    responseSerialize: identity,
    responseDeserialize: identity,
  } as const;
}

/** Server side: requests decoded, responses as bytes. */
export const rdsServiceDefinition = {
  StreamRoutes: streamMethod(`${SERVICE}StreamRoutes`, decodeSotwRequest),
  DeltaRoutes: streamMethod(`${SERVICE}DeltaRoutes`, decodeDeltaRequest),
} satisfies grpc.ServiceDefinition;
