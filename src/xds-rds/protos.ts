import protobuf from 'protobufjs';
import { envoyProtoDirs, loadProtoRoot } from '../util/protos.ts';

/**
 * The Envoy messages of the RDS server, loaded by reflection (protobufjs) from the protos shipped in
 * `@grpc/grpc-js-xds` (deps/), once per process. Field names are lowerCamelCase (protobufjs default).
 */
export interface RdsProtos {
  readonly root: protobuf.Root;
  readonly RouteConfiguration: protobuf.Type;
  readonly DiscoveryRequest: protobuf.Type;
  readonly DiscoveryResponse: protobuf.Type;
  readonly DeltaDiscoveryRequest: protobuf.Type;
  readonly DeltaDiscoveryResponse: protobuf.Type;
  readonly Resource: protobuf.Type;
  readonly Any: protobuf.Type;
}

const FILES = [
  'envoy/config/route/v3/route.proto',
  'envoy/service/discovery/v3/discovery.proto',
  'envoy/service/route/v3/rds.proto',
];

let cached: RdsProtos | undefined;

/** Loads (once) and returns the RDS protos. Throws only if the installation is broken. */
export function loadRdsProtos(): RdsProtos {
  if (cached) return cached;
  const root = loadProtoRoot(FILES, envoyProtoDirs());
  const t = (name: string) => root.lookupType(name);
  cached = {
    root,
    RouteConfiguration: t('envoy.config.route.v3.RouteConfiguration'),
    DiscoveryRequest: t('envoy.service.discovery.v3.DiscoveryRequest'),
    DiscoveryResponse: t('envoy.service.discovery.v3.DiscoveryResponse'),
    DeltaDiscoveryRequest: t('envoy.service.discovery.v3.DeltaDiscoveryRequest'),
    DeltaDiscoveryResponse: t('envoy.service.discovery.v3.DeltaDiscoveryResponse'),
    Resource: t('envoy.service.discovery.v3.Resource'),
    Any: t('google.protobuf.Any'),
  };
  return cached;
}

const WRAPPERS = new Set(
  ['Double', 'Float', 'Int64', 'UInt64', 'Int32', 'UInt32', 'Bool', 'String', 'Bytes'].map(
    (w) => `.google.protobuf.${w}Value`,
  ),
);

function isWrapper(type: protobuf.Type): boolean {
  return WRAPPERS.has(type.fullName);
}

/**
 * Proto3 JSON (wrappers as bare values, enums as names) to the object form `Type.fromObject` takes. Covers the
 * messages the RDS server sends (no Any, Struct, Duration or maps inside RouteConfiguration as built here).
 */
export function proto3JsonToObject(type: protobuf.Type, json: unknown): unknown {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return json;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(json as Record<string, unknown>)) {
    const field = type.fields[key];
    if (field === undefined) throw new Error(`${type.fullName} has no field ${key}`);
    const sub = field.resolve().resolvedType;
    if (!(sub instanceof protobuf.Type)) {
      out[key] = value;
      continue;
    }
    const convert = (v: unknown): unknown => (isWrapper(sub) ? { value: v } : proto3JsonToObject(sub, v));
    out[key] = field.repeated && Array.isArray(value) ? value.map(convert) : convert(value);
  }
  return out;
}

/** The inverse of proto3JsonToObject for a decoded message (wrappers unwrapped, enums as names). */
export function messageToProto3Json(type: protobuf.Type, message: protobuf.Message): unknown {
  const obj = type.toObject(message, { enums: String, longs: Number, bytes: String, json: true });
  return unwrap(type, obj);
}

function unwrap(type: protobuf.Type, obj: unknown): unknown {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return obj;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj as Record<string, unknown>)) {
    const field = type.fields[key];
    const sub = field?.resolve().resolvedType;
    if (field === undefined || !(sub instanceof protobuf.Type)) {
      out[key] = value;
      continue;
    }
    const convert = (v: unknown): unknown =>
      isWrapper(sub) ? ((v as { value?: unknown }).value ?? defaultOfWrapper(sub)) : unwrap(sub, v);
    out[key] = field.repeated && Array.isArray(value) ? value.map(convert) : convert(value);
  }
  return out;
}

function defaultOfWrapper(type: protobuf.Type): unknown {
  const name = type.fullName;
  if (name.endsWith('BoolValue')) return false;
  if (name.endsWith('StringValue') || name.endsWith('BytesValue')) return '';
  return 0;
}
