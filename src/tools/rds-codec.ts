/**
 * The client side of envoy.service.route.v3.RouteDiscoveryService, as a MetaProtocol proxy speaks it: requests
 * encoded from proto3 JSON field names, responses decoded with their RouteConfigurations in proto3 JSON. Used by
 * `aeraki routes`, the tests and the RDS benchmark; the server's own (de)serialisers are in src/xds-rds/service.ts.
 */
import type * as grpc from '@grpc/grpc-js';
import type protobuf from 'protobufjs';
import { loadRdsProtos, messageToProto3Json, proto3JsonToObject } from '../xds-rds/protos.ts';

const SERVICE = '/envoy.service.route.v3.RouteDiscoveryService/';
const identity = (b: Buffer): Buffer => b;
const stream = (method: string) => ({
  path: `${SERVICE}${method}`,
  requestStream: true,
  responseStream: true,
  requestSerialize: identity,
  requestDeserialize: identity,
  responseSerialize: identity,
  responseDeserialize: identity,
});

/** Everything as bytes; use the encode/decode helpers below. */
export const rdsRawClientDefinition = {
  StreamRoutes: stream('StreamRoutes'),
  DeltaRoutes: stream('DeltaRoutes'),
} satisfies grpc.ServiceDefinition;

/** A DiscoveryRequest / DeltaDiscoveryRequest from proto3 JSON field names. */
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
export interface RawAny {
  type_url?: string;
  value?: Uint8Array;
}

/** A delta Resource's own fields around its Any. */
export interface RawResourceFields {
  name?: string;
  version?: string;
}

function decodeAny(any: RawAny): DecodedResource {
  const p = loadRdsProtos();
  const msg = p.RouteConfiguration.decode(any.value ?? new Uint8Array());
  return { typeUrl: any.type_url ?? '', json: messageToProto3Json(p.RouteConfiguration, msg) };
}

export interface SotwResponse<R = DecodedResource> {
  readonly versionInfo: string;
  readonly typeUrl: string;
  readonly nonce: string;
  readonly resources: readonly R[];
}

/** A DiscoveryResponse, each resource's Any decoded by `decode` (RDS: a RouteConfiguration; ADS: by its type). */
export function decodeSotwWith<R>(bytes: Buffer, decode: (any: RawAny) => R): SotwResponse<R> {
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
    resources: raw.resources.map((a) => decode(a)),
  };
}

export function decodeSotwResponse(bytes: Buffer): SotwResponse {
  return decodeSotwWith(bytes, decodeAny);
}

export interface DeltaResponse<R = DecodedResource & { name: string; version: string }> {
  readonly systemVersionInfo: string;
  readonly typeUrl: string;
  readonly nonce: string;
  readonly resources: readonly R[];
  readonly removedResources: readonly string[];
}

/** A DeltaDiscoveryResponse, each Resource decoded by `decode` from its Any and its own name and version. */
export function decodeDeltaWith<R>(
  bytes: Buffer,
  decode: (any: RawAny, fields: RawResourceFields) => R,
): DeltaResponse<R> {
  const p = loadRdsProtos();
  const raw = p.DeltaDiscoveryResponse.toObject(p.DeltaDiscoveryResponse.decode(bytes), { arrays: true }) as {
    systemVersionInfo?: string;
    typeUrl?: string;
    nonce?: string;
    removedResources: string[];
    resources: (RawResourceFields & { resource?: RawAny })[];
  };
  return {
    systemVersionInfo: raw.systemVersionInfo ?? '',
    typeUrl: raw.typeUrl ?? '',
    nonce: raw.nonce ?? '',
    removedResources: raw.removedResources,
    resources: raw.resources.map((r) => decode(r.resource ?? {}, r)),
  };
}

export function decodeDeltaResponse(bytes: Buffer): DeltaResponse {
  return decodeDeltaWith(bytes, (any, r) => ({
    name: r.name ?? '',
    version: r.version ?? '',
    ...decodeAny(any),
  }));
}

/** Proto3 JSON of a RouteConfiguration to its wire bytes (for tests comparing encodings). */
export function encodeRouteConfiguration(json: unknown): Uint8Array {
  const p = loadRdsProtos();
  const t: protobuf.Type = p.RouteConfiguration;
  return t.encode(t.fromObject(proto3JsonToObject(t, json) as Record<string, unknown>)).finish();
}
