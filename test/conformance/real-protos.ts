// The data planes' own protos (../shared/protos-real, read in place) and a strict proto3-JSON checker over them.
// protobufjs's fromObject is lenient (unknown keys are ignored, types coerced), so the checker walks the JSON
// against the reflected types itself, as protobuf's JsonStringToMessage does without ignore_unknown_fields, and
// also parses every Any by its `@type` and every TypedStruct's `value` by its `type_url`, recursively (what Envoy
// does with a typed_config). Envoy's fields and enum values that are deprecated and disallowed by default are
// refused too, as Envoy refuses them without a runtime override.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import protobuf from 'protobufjs';
import { repoRoot } from '../app/fixture-cases.ts';

const require = createRequire(import.meta.url);

export const PROTOS_REAL_DIR = path.resolve(repoRoot, '../shared/protos-real');

/** The well-known types protobufjs ships (`protobuf.common`), by the file that declares them. */
const WELL_KNOWN_FILES: Readonly<Record<string, string>> = {
  Any: 'google/protobuf/any.proto',
  Duration: 'google/protobuf/duration.proto',
  Empty: 'google/protobuf/empty.proto',
  FieldMask: 'google/protobuf/field_mask.proto',
  Struct: 'google/protobuf/struct.proto',
  Value: 'google/protobuf/struct.proto',
  ListValue: 'google/protobuf/struct.proto',
  NullValue: 'google/protobuf/struct.proto',
  Timestamp: 'google/protobuf/timestamp.proto',
  ...Object.fromEntries(
    ['Double', 'Float', 'Int64', 'UInt64', 'Int32', 'UInt32', 'Bool', 'String', 'Bytes'].map((w) => [
      `${w}Value`,
      'google/protobuf/wrappers.proto',
    ]),
  ),
};

/**
 * The messages and enums of protos-real, loaded on first use: a type's file (found through an index of each file's
 * package and top-level declarations) is parsed with its imports into one shared Root, so each file is parsed once.
 */
export class RealProtos {
  private readonly root = new protobuf.Root();
  /** Full name of a top-level message or enum (no leading dot) → its file, relative to the folder. */
  private readonly topLevel = new Map<string, string>();

  constructor(private readonly dir: string = PROTOS_REAL_DIR) {
    for (const [name, file] of Object.entries(WELL_KNOWN_FILES))
      this.topLevel.set(`google.protobuf.${name}`, file);
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.proto'));
    for (const file of files) {
      const text = readFileSync(path.join(dir, file), 'utf8');
      const pkg = /^package\s+([\w.]+)\s*;/m.exec(text)?.[1];
      const prefix = pkg === undefined ? '' : `${pkg}.`;
      for (const m of text.matchAll(/^(?:message|enum)\s+(\w+)/gm))
        this.topLevel.set(`${prefix}${m[1]}`, file);
    }
    this.root.resolvePath = (_origin, target) => {
      if (target in protobuf.common) return target;
      if (target === 'google/protobuf/descriptor.proto') {
        return require.resolve('protobufjs/google/protobuf/descriptor.proto');
      }
      if (path.isAbsolute(target)) return target;
      return path.join(this.dir, target);
    };
  }

  /** The message or enum `fullName` (with or without the leading dot), or undefined when no file declares it. */
  lookup(fullName: string): protobuf.Type | protobuf.Enum | undefined {
    const name = fullName.replace(/^\./, '');
    const found = this.root.lookup(name, [protobuf.Type, protobuf.Enum]);
    if (found instanceof protobuf.Type || found instanceof protobuf.Enum) return found;
    const parts = name.split('.');
    for (let n = parts.length; n > 0; n--) {
      const file = this.topLevel.get(parts.slice(0, n).join('.'));
      if (file === undefined) continue;
      this.root.loadSync(file, { keepCase: true });
      this.root.resolveAll();
      const loaded = this.root.lookup(name, [protobuf.Type, protobuf.Enum]);
      return loaded instanceof protobuf.Type || loaded instanceof protobuf.Enum ? loaded : undefined;
    }
    return undefined;
  }

  /** The message `fullName`; throws when protos-real has none (a mistake in the test, not in the document). */
  type(fullName: string): protobuf.Type {
    const t = this.lookup(fullName);
    if (!(t instanceof protobuf.Type)) throw new Error(`protos-real declares no message ${fullName}`);
    return t;
  }

  /** How many files have been parsed so far (to show that loading is lazy). */
  get loadedFiles(): number {
    return this.root.files.length;
  }
}

/** One way a JSON document does not parse as its message: where (a JSON path from `$`) and what. */
export interface Problem {
  readonly path: string;
  readonly message: string;
}

export function formatProblem(p: Problem): string {
  return `${p.path}: ${p.message}`;
}

/** `base` extended by an object key (`.key`, or `["k.e.y"]` when the key is not a plain name) or a list index. */
export function childPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  return /^[A-Za-z_@][\w@]*$/.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`;
}

export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  return `a ${typeof v} (${JSON.stringify(v)})`;
}

const TYPED_STRUCTS = new Set(['.udpa.type.v1.TypedStruct', '.xds.type.v3.TypedStruct']);

const WRAPPER_SCALARS: Readonly<Record<string, string>> = {
  '.google.protobuf.DoubleValue': 'double',
  '.google.protobuf.FloatValue': 'float',
  '.google.protobuf.Int64Value': 'int64',
  '.google.protobuf.UInt64Value': 'uint64',
  '.google.protobuf.Int32Value': 'int32',
  '.google.protobuf.UInt32Value': 'uint32',
  '.google.protobuf.BoolValue': 'bool',
  '.google.protobuf.StringValue': 'string',
  '.google.protobuf.BytesValue': 'bytes',
};

/** Well-known types whose JSON form is not an object of fields; inside an Any they sit under `value`. */
const SPECIAL_JSON = new Set([
  '.google.protobuf.Any',
  '.google.protobuf.Duration',
  '.google.protobuf.Timestamp',
  '.google.protobuf.FieldMask',
  '.google.protobuf.Struct',
  '.google.protobuf.Value',
  '.google.protobuf.ListValue',
  ...Object.keys(WRAPPER_SCALARS),
]);

const INT_RANGES: Readonly<Record<string, readonly [bigint, bigint]>> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  sint32: [-(2n ** 31n), 2n ** 31n - 1n],
  sfixed32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  fixed32: [0n, 2n ** 32n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  sint64: [-(2n ** 63n), 2n ** 63n - 1n],
  sfixed64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
  fixed64: [0n, 2n ** 64n - 1n],
};

const MAX_FLOAT = 3.4028234663852886e38;
const DURATION = /^-?\d+(\.\d{1,9})?s$/;
const MAX_DURATION_SECONDS = 315_576_000_000;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const BASE64 = /^(?:[A-Za-z0-9+/_-]{4})*(?:[A-Za-z0-9+/_-]{2}(?:==)?|[A-Za-z0-9+/_-]{3}=?)?$/;

/**
 * Strict proto3 JSON: fields by JSON name or proto name (not both), no unknown keys, the JSON type each field
 * type takes, enum names that exist, integers in range, at most one member of a oneof, and the well-known types in
 * their JSON forms (Any with `@type`, Struct/Value/ListValue, Duration, Timestamp, FieldMask, wrappers as bare
 * values). Every Any is parsed as its `@type`, every TypedStruct's `value` as its `type_url`.
 */
export class Proto3JsonChecker {
  constructor(private readonly protos: RealProtos) {}

  /** Every problem of `json` read as the message `typeName`, with JSON paths starting at `root`. */
  check(typeName: string, json: unknown, root = '$'): Problem[] {
    const problems: Problem[] = [];
    this.message(this.protos.type(typeName), json, root, problems);
    return problems;
  }

  private message(type: protobuf.Type, json: unknown, at: string, out: Problem[]): void {
    const name = type.fullName;
    if (name === '.google.protobuf.Any') return this.any(json, at, out);
    if (name === '.google.protobuf.Value') return;
    if (name === '.google.protobuf.Struct') {
      if (!isObject(json))
        out.push({ path: at, message: `a Struct must be an object, not ${jsonType(json)}` });
      return;
    }
    if (name === '.google.protobuf.ListValue') {
      if (!Array.isArray(json))
        out.push({ path: at, message: `a ListValue must be a list, not ${jsonType(json)}` });
      return;
    }
    if (name === '.google.protobuf.Duration') return this.duration(json, at, out);
    if (name === '.google.protobuf.Timestamp') {
      if (typeof json !== 'string' || !TIMESTAMP.test(json) || Number.isNaN(Date.parse(json))) {
        out.push({ path: at, message: `a Timestamp must be an RFC 3339 string, not ${jsonType(json)}` });
      }
      return;
    }
    if (name === '.google.protobuf.FieldMask') {
      if (typeof json !== 'string')
        out.push({ path: at, message: `a FieldMask must be a string, not ${jsonType(json)}` });
      return;
    }
    const wrapped = WRAPPER_SCALARS[name];
    if (wrapped !== undefined) return this.scalar(wrapped, json, at, out);

    if (!isObject(json)) {
      out.push({ path: at, message: `${name.slice(1)} must be an object, not ${jsonType(json)}` });
      return;
    }
    this.fields(type, json, at, out, new Set());
    if (TYPED_STRUCTS.has(name)) this.typedStructValue(json, at, out);
  }

  /** The keys of `json` as fields of `type`; `skip` are keys handled by the caller (`@type` of an Any). */
  private fields(type: protobuf.Type, json: JsonObject, at: string, out: Problem[], skip: Set<string>): void {
    const byKey = new Map<string, protobuf.Field>();
    for (const f of type.fieldsArray) {
      byKey.set(f.jsonName, f);
      byKey.set(f.protoName, f);
    }
    const seen = new Map<protobuf.Field, string>();
    const oneofSetBy = new Map<protobuf.OneOf, string>();
    for (const [key, value] of Object.entries(json)) {
      if (skip.has(key)) continue;
      const p = childPath(at, key);
      const field = byKey.get(key);
      if (field === undefined) {
        out.push({ path: p, message: `unknown field "${key}" in ${type.fullName.slice(1)}` });
        continue;
      }
      const earlier = seen.get(field);
      if (earlier !== undefined) {
        out.push({ path: p, message: `field ${field.protoName} is given twice ("${earlier}" and "${key}")` });
        continue;
      }
      seen.set(field, key);
      if (field.options?.['(envoy.annotations.disallowed_by_default)'] === true && value !== null) {
        out.push({
          path: p,
          message: `field ${field.protoName} is deprecated and disallowed by default in Envoy`,
        });
      }
      const oneof = field.partOf;
      if (oneof !== null && value !== null) {
        const other = oneofSetBy.get(oneof);
        if (other !== undefined) {
          out.push({ path: p, message: `oneof ${oneof.name} is already set by "${other}"` });
        } else {
          oneofSetBy.set(oneof, key);
        }
      }
      this.fieldValue(field, value, p, out);
    }
  }

  private fieldValue(field: protobuf.Field, value: unknown, at: string, out: Problem[]): void {
    if (value === null) return; // null is the field's default (for a Value: the null value)
    if (field instanceof protobuf.MapField) {
      if (!isObject(value)) {
        out.push({
          path: at,
          message: `map field ${field.protoName} must be an object, not ${jsonType(value)}`,
        });
        return;
      }
      for (const [k, v] of Object.entries(value)) {
        const p = childPath(at, k);
        this.mapKey(field.keyType, k, p, out);
        if (v === null && field.resolvedType?.fullName !== '.google.protobuf.Value') {
          out.push({ path: p, message: 'a map value must not be null' });
          continue;
        }
        this.single(field, v, p, out);
      }
      return;
    }
    if (field.repeated) {
      if (!Array.isArray(value)) {
        out.push({
          path: at,
          message: `repeated field ${field.protoName} must be a list, not ${jsonType(value)}`,
        });
        return;
      }
      value.forEach((v, i) => {
        const p = childPath(at, i);
        if (v === null && field.resolvedType?.fullName !== '.google.protobuf.Value') {
          out.push({ path: p, message: 'a list element must not be null' });
        } else {
          this.single(field, v, p, out);
        }
      });
      return;
    }
    this.single(field, value, at, out);
  }

  /** One value of the field's type (one element of a list or map). */
  private single(field: protobuf.Field, value: unknown, at: string, out: Problem[]): void {
    const t = field.resolvedType;
    if (t instanceof protobuf.Type) this.message(t, value, at, out);
    else if (t instanceof protobuf.Enum) this.enumValue(t, value, at, out);
    else this.scalar(field.type, value, at, out);
  }

  private mapKey(keyType: string, key: string, at: string, out: Problem[]): void {
    if (keyType === 'string') return;
    if (keyType === 'bool') {
      if (key !== 'true' && key !== 'false')
        out.push({ path: at, message: `map key "${key}" is not a bool` });
      return;
    }
    this.integer(keyType, key, at, out);
  }

  private enumValue(e: protobuf.Enum, value: unknown, at: string, out: Problem[]): void {
    if (e.fullName === '.google.protobuf.NullValue') {
      if (value !== 'NULL_VALUE')
        out.push({ path: at, message: `a NullValue must be null, not ${jsonType(value)}` });
      return;
    }
    if (typeof value === 'string') {
      if (!(value in e.values)) {
        out.push({ path: at, message: `"${value}" is not a value of enum ${e.fullName.slice(1)}` });
      } else if (e.valuesOptions?.[value]?.['(envoy.annotations.disallowed_by_default_enum)'] === true) {
        out.push({
          path: at,
          message: `enum value ${value} is deprecated and disallowed by default in Envoy`,
        });
      }
      return;
    }
    if (typeof value === 'number') return this.integer('int32', value, at, out);
    out.push({ path: at, message: `enum ${e.fullName.slice(1)} must be a name, not ${jsonType(value)}` });
  }

  private scalar(type: string, value: unknown, at: string, out: Problem[]): void {
    switch (type) {
      case 'string':
        if (typeof value !== 'string')
          out.push({ path: at, message: `a string is expected, not ${jsonType(value)}` });
        return;
      case 'bool':
        if (typeof value !== 'boolean')
          out.push({ path: at, message: `a bool is expected, not ${jsonType(value)}` });
        return;
      case 'bytes':
        if (typeof value !== 'string' || !BASE64.test(value)) {
          out.push({ path: at, message: `bytes must be a base64 string, not ${jsonType(value)}` });
        }
        return;
      case 'double':
      case 'float': {
        const n =
          typeof value === 'number'
            ? value
            : typeof value === 'string' && /^(NaN|-?Infinity)$/.test(value)
              ? 0
              : typeof value === 'string' && value.trim() !== ''
                ? Number(value)
                : Number.NaN;
        if (Number.isNaN(n)) out.push({ path: at, message: `a number is expected, not ${jsonType(value)}` });
        else if (type === 'float' && Math.abs(n) > MAX_FLOAT)
          out.push({ path: at, message: `${n} is out of float range` });
        return;
      }
      default:
        this.integer(type, value, at, out);
    }
  }

  private integer(type: string, value: unknown, at: string, out: Problem[]): void {
    const range = INT_RANGES[type];
    if (range === undefined) {
      out.push({ path: at, message: `no JSON rule for proto type ${type}` });
      return;
    }
    let n: bigint | undefined;
    if (typeof value === 'number' && Number.isInteger(value)) n = BigInt(value);
    else if (typeof value === 'string' && /^-?\d+$/.test(value)) n = BigInt(value);
    if (n === undefined) {
      out.push({ path: at, message: `an integer (${type}) is expected, not ${jsonType(value)}` });
    } else if (n < range[0] || n > range[1]) {
      out.push({ path: at, message: `${n} is out of ${type} range` });
    }
  }

  private duration(json: unknown, at: string, out: Problem[]): void {
    if (typeof json !== 'string' || !DURATION.test(json)) {
      out.push({ path: at, message: `a Duration must be a string like "1.5s", not ${jsonType(json)}` });
    } else if (Math.abs(Number.parseFloat(json)) > MAX_DURATION_SECONDS) {
      out.push({ path: at, message: `Duration ${json} is out of range` });
    }
  }

  /** The message a type URL names (`<anything>/<full name>`), or a problem at `at`. */
  private typeOfUrl(url: unknown, at: string, out: Problem[]): protobuf.Type | undefined {
    if (typeof url !== 'string') {
      out.push({ path: at, message: `a type URL must be a string, not ${jsonType(url)}` });
      return undefined;
    }
    const slash = url.lastIndexOf('/');
    const t = slash > 0 ? this.protos.lookup(url.slice(slash + 1)) : undefined;
    if (t instanceof protobuf.Type) return t;
    out.push({ path: at, message: `type URL "${url}" names no message of the real protos` });
    return undefined;
  }

  private any(json: unknown, at: string, out: Problem[]): void {
    if (!isObject(json)) {
      out.push({ path: at, message: `an Any must be an object, not ${jsonType(json)}` });
      return;
    }
    if (Object.keys(json).length === 0) return; // the empty Any
    if (!('@type' in json)) {
      out.push({ path: at, message: 'an Any must have "@type"' });
      return;
    }
    const type = this.typeOfUrl(json['@type'], childPath(at, '@type'), out);
    if (type === undefined) return;
    if (SPECIAL_JSON.has(type.fullName)) {
      for (const key of Object.keys(json)) {
        if (key !== '@type' && key !== 'value') {
          out.push({
            path: childPath(at, key),
            message: `unknown field "${key}" in an Any of ${type.fullName.slice(1)}`,
          });
        }
      }
      this.message(type, json['value'], childPath(at, 'value'), out);
      return;
    }
    this.fields(type, json, at, out, new Set(['@type']));
    if (TYPED_STRUCTS.has(type.fullName)) this.typedStructValue(json, at, out);
  }

  /** A TypedStruct's `value` (already known to be a Struct) parsed as the message its `type_url` names. */
  private typedStructValue(json: JsonObject, at: string, out: Problem[]): void {
    const urlKey = 'type_url' in json ? 'type_url' : 'typeUrl';
    const url = json[urlKey];
    if (url === undefined || url === null) {
      out.push({ path: at, message: 'a TypedStruct must have "type_url"' });
      return;
    }
    const type = this.typeOfUrl(url, childPath(at, urlKey), out);
    const value = json['value'] ?? {};
    if (type !== undefined) this.message(type, value, childPath(at, 'value'), out);
  }
}
