import protobuf from 'protobufjs';
import { envoyProtoDirs, loadProtoRoot } from '../util/protos.ts';
import { ProtoIndex } from './proto-json-index.ts';
import { wellKnownFromJson, wellKnownToJson, WELL_KNOWN, type WellKnown } from './proto-json-wkt.ts';

/**
 * Proto3 JSON (https://protobuf.dev/programming-guides/json/) to protobuf binary and back, strictly, for the
 * waypoint's xDS resources (model/ambient/xds.ts) and every typed_config they carry, by reflection over the Envoy
 * protos the runtime ships (`envoyProtoDirs()`). protobufjs' own `fromObject` ignores unknown keys and coerces
 * types; this walks the JSON against the reflected types first, as protobuf's JsonStringToMessage does without
 * `ignore_unknown_fields`, so a key or type the protos do not have throws an Error naming its JSON path instead of
 * being dropped. Keys may be the proto's snake_case names or lowerCamelCase; an Any is `{'@type', ...fields}` (its
 * fields, or `value` for a well-known type with a JSON form of its own), parsed recursively; Struct/Value/ListValue,
 * Duration, Timestamp, FieldMask and the wrappers take their JSON forms; enums take names (or numbers); 64-bit
 * integers take strings or numbers.
 */
const FILES = [
  'envoy/config/listener/v3/listener.proto',
  'envoy/config/cluster/v3/cluster.proto',
  'envoy/config/endpoint/v3/endpoint.proto',
  'envoy/config/route/v3/route.proto',
  'envoy/service/discovery/v3/discovery.proto',
  'envoy/extensions/filters/network/dubbo_proxy/v3/dubbo_proxy.proto',
  'envoy/extensions/filters/network/dubbo_proxy/v3/route.proto',
  'envoy/extensions/filters/network/thrift_proxy/v3/thrift_proxy.proto',
  'envoy/extensions/filters/network/thrift_proxy/v3/route.proto',
  'envoy/extensions/filters/network/redis_proxy/v3/redis_proxy.proto',
  'envoy/extensions/filters/network/zookeeper_proxy/v3/zookeeper_proxy.proto',
  'envoy/extensions/filters/network/tcp_proxy/v3/tcp_proxy.proto',
  'envoy/extensions/filters/network/rbac/v3/rbac.proto',
  'envoy/extensions/filters/network/local_ratelimit/v3/local_rate_limit.proto',
  'envoy/extensions/filters/network/set_filter_state/v3/set_filter_state.proto',
  'envoy/extensions/filters/listener/proxy_protocol/v3/proxy_protocol.proto',
  'xds/type/v3/typed_struct.proto',
];

let cachedRoot: protobuf.Root | undefined;
let index: ProtoIndex | undefined;

/**
 * The root of every message above (loaded once per process), to which the file of a typed_config's type is added
 * when first met (ProtoIndex). Throws only if the installation is broken.
 */
export function waypointProtoRoot(): protobuf.Root {
  return (cachedRoot ??= loadProtoRoot(FILES, envoyProtoDirs()));
}

/** Loads the file declaring `name` into the root, when the runtime's protos have one; false otherwise. */
function loadDeclaring(name: string): boolean {
  index ??= new ProtoIndex(envoyProtoDirs());
  const file = index.fileOf(name);
  if (file === undefined) return false;
  const root = waypointProtoRoot();
  root.loadSync(file);
  root.resolveAll();
  return true;
}

const typesByUrl = new Map<string, protobuf.Type>();

/** The message type of `type.googleapis.com/<name>` (or a bare name); throws naming `at` when unknown. */
export function messageType(typeUrlOrName: string, at = '$'): protobuf.Type {
  const known = typesByUrl.get(typeUrlOrName);
  if (known) return known;
  const name = typeUrlOrName.slice(typeUrlOrName.lastIndexOf('/') + 1);
  const lookup = () => (name === '' ? null : waypointProtoRoot().lookup(name));
  let found = lookup();
  if (!(found instanceof protobuf.Type) && name !== '' && loadDeclaring(name)) found = lookup();
  if (!(found instanceof protobuf.Type)) {
    throw new Error(`${at}: unknown message type "${typeUrlOrName.slice(0, 200)}"`);
  }
  typesByUrl.set(typeUrlOrName, found);
  return found;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'an object' : `${typeof v} ${JSON.stringify(v)?.slice(0, 60)}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Per type, its well-known JSON form (protobufjs computes `fullName` on every read: looked up once). */
const wellKnownByType = new WeakMap<protobuf.Type, WellKnown | null>();

function wellKnownOf(type: protobuf.Type): WellKnown | undefined {
  let wk = wellKnownByType.get(type);
  if (wk === undefined) wellKnownByType.set(type, (wk = WELL_KNOWN[type.fullName] ?? null));
  return wk ?? undefined;
}

function isValueType(t: protobuf.Type | protobuf.Enum | null): boolean {
  return t instanceof protobuf.Type && wellKnownOf(t)?.kind === 'value';
}

/** Per type, the fields by every key seen naming them (snake_case or lowerCamelCase), resolved. */
const fieldsByKey = new WeakMap<protobuf.Type, Map<string, protobuf.Field | null>>();

/** The field `key` names (its snake_case or lowerCamelCase name); undefined when the type has none. */
function fieldOf(type: protobuf.Type, key: string): protobuf.Field | undefined {
  let byKey = fieldsByKey.get(type);
  if (!byKey) fieldsByKey.set(type, (byKey = new Map<string, protobuf.Field | null>()));
  const known = byKey.get(key);
  if (known !== undefined) return known ?? undefined;
  const field =
    type.fields[key] ?? (key.includes('_') ? type.fields[protobuf.util.camelCase(key)] : undefined);
  // Bounded: only keys of the protos' fields are kept, unknown ones throw (and are cached as null once).
  if (field || byKey.size < 1000) byKey.set(key, field?.resolve() ?? null);
  return field;
}

/** `json` read as `type` into the object form protobufjs' `fromObject` takes exactly (no unknowns left). */
export function toObjectForm(type: protobuf.Type, json: unknown, at: string): unknown {
  const wk = wellKnownOf(type);
  if (wk) return wellKnownFromJson(wk, json, at, anyFromJson, scalar);
  if (!isObject(json))
    throw new Error(`${at}: ${type.fullName.slice(1)} must be an object, not ${describe(json)}`);
  const out: Record<string, unknown> = {};
  let oneofs: Map<string, string> | undefined;
  for (const key in json) {
    const value = json[key];
    const field = fieldOf(type, key);
    const path = `${at}.${key}`;
    if (!field) throw new Error(`${path}: ${type.fullName.slice(1)} has no field "${key}"`);
    if (field.name in out) throw new Error(`${path}: field "${field.name}" given twice`);
    if (value === null && !isValueType(field.resolvedType)) continue;
    if (field.partOf) {
      const oneof = field.partOf.name;
      const other = (oneofs ??= new Map<string, string>()).get(oneof);
      if (other !== undefined) throw new Error(`${path}: "${other}" and "${key}" are both of oneof ${oneof}`);
      oneofs.set(oneof, key);
    }
    out[field.name] = fieldValue(field, value, path);
  }
  return out;
}

function fieldValue(field: protobuf.Field, value: unknown, at: string): unknown {
  field.resolve();
  if (field.map) {
    if (!isObject(value)) throw new Error(`${at}: a map must be an object, not ${describe(value)}`);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = single(field, v, `${at}.${k}`);
    return out;
  }
  if (field.repeated) {
    if (!Array.isArray(value))
      throw new Error(`${at}: a repeated field must be a list, not ${describe(value)}`);
    return value.map((v, i) => single(field, v, `${at}[${i}]`));
  }
  return single(field, value, at);
}

const INT32 = new Set(['int32', 'sint32', 'sfixed32', 'uint32', 'fixed32']);
/** The 32-bit types' ranges, for the common case of a JSON number (no BigInt). */
const INT32_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  sint32: [-(2 ** 31), 2 ** 31 - 1],
  sfixed32: [-(2 ** 31), 2 ** 31 - 1],
  uint32: [0, 2 ** 32 - 1],
  fixed32: [0, 2 ** 32 - 1],
};
const INT64 = new Set(['int64', 'sint64', 'sfixed64', 'uint64', 'fixed64']);

/** One value of a field (a repeated field's element, a map's value). */
function single(field: protobuf.Field, value: unknown, at: string): unknown {
  const t = field.resolvedType;
  if (t instanceof protobuf.Type) return toObjectForm(t, value, at);
  if (t instanceof protobuf.Enum) return enumValue(t, value, at);
  return scalar(field.type, value, at);
}

export function enumValue(e: protobuf.Enum, value: unknown, at: string): number {
  if (typeof value === 'string' && Object.hasOwn(e.values, value)) return e.values[value]!;
  if (typeof value === 'number' && Number.isInteger(value) && value in e.valuesById) return value;
  throw new Error(`${at}: ${describe(value)} is not a value of enum ${e.fullName.slice(1)}`);
}

/** A scalar of proto type `type` (int64s as strings, as protobufjs' fromObject takes them with Long). */
function invalid(type: string, value: unknown, at: string): Error {
  return new Error(`${at}: ${describe(value)} is not a valid ${type}`);
}

export function scalar(type: string, value: unknown, at: string): unknown {
  if (type === 'string') {
    if (typeof value !== 'string') throw invalid(type, value, at);
    return value;
  }
  if (type === 'bool') {
    if (typeof value !== 'boolean') throw invalid(type, value, at);
    return value;
  }
  if (type === 'bytes') {
    if (typeof value !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(value)) throw invalid(type, value, at);
    return Buffer.from(value, value.includes('-') || value.includes('_') ? 'base64url' : 'base64');
  }
  if (type === 'double' || type === 'float') {
    if (typeof value === 'number') return value;
    if (value === 'NaN' || value === 'Infinity' || value === '-Infinity') return Number(value);
    if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
      return Number(value);
    throw invalid(type, value, at);
  }
  const range = INT32_RANGES[type];
  if (range && typeof value === 'number' && Number.isInteger(value)) {
    if (value < range[0] || value > range[1]) throw new Error(`${at}: ${value} is out of range for ${type}`);
    return value;
  }
  const text = typeof value === 'number' ? (Number.isInteger(value) ? String(value) : '') : value;
  if (typeof text !== 'string' || !/^-?\d+$/.test(text)) throw invalid(type, value, at);
  const n = BigInt(text);
  const unsigned = type.startsWith('u') || type === 'fixed32' || type === 'fixed64';
  const bits = INT32.has(type) ? 32n : INT64.has(type) ? 64n : undefined;
  if (bits === undefined) throw invalid(type, value, at);
  const [min, max] = unsigned ? [0n, (1n << bits) - 1n] : [-(1n << (bits - 1n)), (1n << (bits - 1n)) - 1n];
  if (n < min || n > max) throw new Error(`${at}: ${text} is out of range for ${type}`);
  return bits === 32n ? Number(n) : text;
}

/** An Any's JSON (`{'@type', ...}`) to `{type_url, value}` with the inner message encoded. */
function anyFromJson(json: unknown, at: string): { type_url: string; value: Uint8Array } {
  if (!isObject(json)) throw new Error(`${at}: an Any must be an object, not ${describe(json)}`);
  const typeUrl = json['@type'];
  if (typeof typeUrl !== 'string') throw new Error(`${at}: an Any needs "@type"`);
  if (!typeUrl.includes('/')) throw new Error(`${at}.@type: "${typeUrl.slice(0, 200)}" is not a type URL`);
  const inner = messageType(typeUrl, `${at}.@type`);
  const { ['@type']: _type, ...rest } = json;
  const body = wellKnownOf(inner) ? anyWellKnownBody(rest, at) : rest;
  return { type_url: typeUrl, value: encodeMessage(inner, body, at) };
}

function anyWellKnownBody(rest: Record<string, unknown>, at: string): unknown {
  const keys = Object.keys(rest);
  const extra = keys.find((k) => k !== 'value');
  if (extra !== undefined) throw new Error(`${at}.${extra}: an Any of a well-known type has only "value"`);
  return rest['value'];
}

/** Encodes `json` read strictly as `type`; throws an Error naming the JSON path of the first problem. */
export function encodeMessage(type: protobuf.Type, json: unknown, at = '$'): Uint8Array {
  const obj = toObjectForm(type, json, at);
  return type.encode(type.fromObject(obj as Record<string, unknown>)).finish();
}

/** Encodes the resource `json` of type URL `typeUrl` (e.g. a Listener); throws naming the path of a problem. */
export function encodeJson(typeUrl: string, json: unknown, at = '$'): Uint8Array {
  return encodeMessage(messageType(typeUrl, at), json, at);
}

/** Decodes `bytes` of `type` to canonical proto3 JSON (lowerCamelCase, Any with `@type`, defaults left out). */
export function decodeMessage(type: protobuf.Type, bytes: Uint8Array): unknown {
  const obj = type.toObject(type.decode(bytes), { enums: String, longs: String, bytes: String });
  return objectToJson(type, obj);
}

export function decodeJson(typeUrl: string, bytes: Uint8Array): unknown {
  return decodeMessage(messageType(typeUrl), bytes);
}

function objectToJson(type: protobuf.Type, obj: unknown): unknown {
  const wk = wellKnownOf(type);
  if (wk) return wellKnownToJson(wk, obj, anyToJson);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj as Record<string, unknown>)) {
    const field = type.fields[key]!.resolve();
    const t = field.resolvedType;
    const one = (v: unknown) => (t instanceof protobuf.Type ? objectToJson(t, v) : v);
    if (field.map) {
      out[key] = Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, one(v)]));
    } else out[key] = field.repeated ? (value as unknown[]).map(one) : one(value);
  }
  return out;
}

function anyToJson(any: { type_url?: string; value?: string }): unknown {
  const typeUrl = any.type_url ?? '';
  const inner = messageType(typeUrl);
  const json = decodeMessage(inner, Buffer.from(any.value ?? '', 'base64'));
  return wellKnownOf(inner) ? { '@type': typeUrl, value: json } : { '@type': typeUrl, ...(json as object) };
}
