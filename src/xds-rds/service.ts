import type * as grpc from '@grpc/grpc-js';
import type protobuf from 'protobufjs';
import { loadRdsProtos, messageToProto3Json, proto3JsonToObject } from './protos.ts';
import type { DeltaRequest, ErrorDetail, SotwRequest } from './stream-types.ts';

/**
 * The gRPC definition of envoy.service.route.v3.RouteDiscoveryService with our own (de)serialisers: requests are
 * decoded to the few fields the server reads; responses travel as already-encoded bytes (see responses.ts).
 * The decoders of responses and encoders of requests are for clients (tests, benchmark).
 */
const SERVICE = '/envoy.service.route.v3.RouteDiscoveryService/';

interface RawRequest {
  versionInfo?: string;
  node?: { id?: string };
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

export function decodeSotwRequest(bytes: Buffer): SotwRequest {
  const p = loadRdsProtos();
  const raw = p.DiscoveryRequest.toObject(p.DiscoveryRequest.decode(bytes), { arrays: true }) as RawRequest;
  const errorDetail = errorDetailOf(raw);
  return {
    versionInfo: raw.versionInfo ?? '',
    nodeId: raw.node?.id ?? '',
    resourceNames: raw.resourceNames ?? [],
    typeUrl: raw.typeUrl ?? '',
    responseNonce: raw.responseNonce ?? '',
    ...(errorDetail ? { errorDetail } : {}),
  };
}

export function decodeDeltaRequest(bytes: Buffer): DeltaRequest {
  const p = loadRdsProtos();
  const raw = p.DeltaDiscoveryRequest.toObject(p.DeltaDiscoveryRequest.decode(bytes), {
    arrays: true,
    objects: true,
  }) as RawRequest;
  const errorDetail = errorDetailOf(raw);
  return {
    nodeId: raw.node?.id ?? '',
    typeUrl: raw.typeUrl ?? '',
    subscribe: raw.resourceNamesSubscribe ?? [],
    unsubscribe: raw.resourceNamesUnsubscribe ?? [],
    initialResourceVersions: raw.initialResourceVersions ?? {},
    responseNonce: raw.responseNonce ?? '',
    ...(errorDetail ? { errorDetail } : {}),
  };
}

/** Client side: a DiscoveryRequest / DeltaDiscoveryRequest from proto3 JSON field names. */
export function encodeSotwRequest(req: Record<string, unknown>): Buffer {
  const p = loadRdsProtos();
  return Buffer.from(p.DiscoveryRequest.encode(p.DiscoveryRequest.fromObject(req)).finish());
}

export function encodeDeltaRequest(req: Record<string, unknown>): Buffer {
  const p = loadRdsProtos();
  return Buffer.from(p.DeltaDiscoveryRequest.encode(p.DeltaDiscoveryRequest.fromObject(req)).finish());
}

export interface DecodedResource {
  readonly typeUrl: string;
  readonly json: unknown;
}

/** protobufjs's google.protobuf.Any keeps the proto field name `type_url`. */
interface RawAny {
  type_url?: string;
  value?: Uint8Array;
}

function decodeAny(any: RawAny): DecodedResource {
  const p = loadRdsProtos();
  const msg = p.RouteConfiguration.decode(any.value ?? new Uint8Array());
  return { typeUrl: any.type_url ?? '', json: messageToProto3Json(p.RouteConfiguration, msg) };
}

export interface SotwResponse {
  readonly versionInfo: string;
  readonly typeUrl: string;
  readonly nonce: string;
  readonly resources: readonly DecodedResource[];
}

export function decodeSotwResponse(bytes: Buffer): SotwResponse {
  const p = loadRdsProtos();
  const raw = p.DiscoveryResponse.toObject(p.DiscoveryResponse.decode(bytes), { arrays: true }) as {
    versionInfo?: string;
    typeUrl?: string;
    nonce?: string;
    resources: RawAny[];
  };
  return {
    versionInfo: raw.versionInfo ?? '',
    typeUrl: raw.typeUrl ?? '',
    nonce: raw.nonce ?? '',
    resources: raw.resources.map(decodeAny),
  };
}

export interface DeltaResponse {
  readonly systemVersionInfo: string;
  readonly typeUrl: string;
  readonly nonce: string;
  readonly resources: readonly (DecodedResource & { name: string; version: string })[];
  readonly removedResources: readonly string[];
}

export function decodeDeltaResponse(bytes: Buffer): DeltaResponse {
  const p = loadRdsProtos();
  const raw = p.DeltaDiscoveryResponse.toObject(p.DeltaDiscoveryResponse.decode(bytes), { arrays: true }) as {
    systemVersionInfo?: string;
    typeUrl?: string;
    nonce?: string;
    removedResources: string[];
    resources: { name?: string; version?: string; resource?: RawAny }[];
  };
  return {
    systemVersionInfo: raw.systemVersionInfo ?? '',
    typeUrl: raw.typeUrl ?? '',
    nonce: raw.nonce ?? '',
    removedResources: raw.removedResources,
    resources: raw.resources.map((r) => ({
      name: r.name ?? '',
      version: r.version ?? '',
      ...decodeAny(r.resource ?? {}),
    })),
  };
}

/** Proto3 JSON of a RouteConfiguration to its wire bytes (for tests comparing encodings). */
export function encodeRouteConfiguration(json: unknown): Uint8Array {
  const p = loadRdsProtos();
  const t: protobuf.Type = p.RouteConfiguration;
  return t.encode(t.fromObject(proto3JsonToObject(t, json) as Record<string, unknown>)).finish();
}

const identity = (b: Buffer): Buffer => b;

/** Server side: requests decoded, responses as bytes. */
export const rdsServiceDefinition = {
  StreamRoutes: {
    path: `${SERVICE}StreamRoutes`,
    requestStream: true,
    responseStream: true,
    requestSerialize: identity,
    requestDeserialize: decodeSotwRequest,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
  DeltaRoutes: {
    path: `${SERVICE}DeltaRoutes`,
    requestStream: true,
    responseStream: true,
    requestSerialize: identity,
    requestDeserialize: decodeDeltaRequest,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
} satisfies grpc.ServiceDefinition;

/** Client side: everything as bytes; use the encode/decode helpers above. */
export const rdsRawClientDefinition = {
  StreamRoutes: { ...rdsServiceDefinition.StreamRoutes, requestDeserialize: identity },
  DeltaRoutes: { ...rdsServiceDefinition.DeltaRoutes, requestDeserialize: identity },
} satisfies grpc.ServiceDefinition;
