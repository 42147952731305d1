import protobuf from 'protobufjs';

/**
 * Decodes protobuf bytes straight into the plain object `Type.toObject(Type.decode(bytes), {enums: String,
 * longs: Number, bytes: String})` would give (lowerCamelCase names, enum names, no defaults, no empty
 * lists/maps), in one pass: no message instances, no second copy. Driven by the reflection Type, so it follows
 * the .proto files. Unknown fields and fields with an unexpected wire type are skipped, as protobufjs does.
 * Throws (like Type.decode) on truncated or malformed input.
 */

type Kind = keyof typeof protobuf.types.basic | 'enum' | 'message';

interface FieldPlan {
  readonly name: string;
  readonly kind: Kind;
  readonly repeated: boolean;
  /** Map fields: the key kind (the value is described by kind / enumNames / plan). */
  readonly mapKey: Kind | undefined;
  readonly enumNames: Readonly<Record<number, string>> | undefined;
  plan: Plan | undefined;
}

interface Plan {
  readonly fields: (FieldPlan | undefined)[];
}

const WIRE: Record<Kind, number> = {
  double: 1,
  float: 5,
  int32: 0,
  uint32: 0,
  sint32: 0,
  fixed32: 5,
  sfixed32: 5,
  int64: 0,
  uint64: 0,
  sint64: 0,
  fixed64: 1,
  sfixed64: 1,
  bool: 0,
  string: 2,
  bytes: 2,
  enum: 0,
  message: 2,
};

const MAX_DEPTH = 100;
const plans = new WeakMap<protobuf.Type, Plan>();

function planOf(type: protobuf.Type): Plan {
  const cached = plans.get(type);
  if (cached) return cached;
  const plan: Plan = { fields: [] };
  plans.set(type, plan); // before recursing: recursive messages
  for (const field of type.fieldsArray) {
    field.resolve();
    const resolved = field.resolvedType;
    const kind: Kind =
      resolved instanceof protobuf.Enum
        ? 'enum'
        : resolved instanceof protobuf.Type
          ? 'message'
          : (field.type as Kind);
    const enumNames =
      resolved instanceof protobuf.Enum
        ? Object.fromEntries(Object.entries(resolved.values).map(([name, n]) => [n, name]))
        : undefined;
    const fp: FieldPlan = {
      name: field.name,
      kind,
      repeated: field.repeated,
      mapKey: field instanceof protobuf.MapField ? (field.keyType as Kind) : undefined,
      enumNames,
      plan: undefined,
    };
    plan.fields[field.id] = fp;
    if (resolved instanceof protobuf.Type) fp.plan = planOf(resolved);
  }
  return plan;
}

/** int64 fields: protobufjs gives a Long when the `long` package is installed, else a number. */
function toNumber(v: unknown): number {
  return typeof v === 'number' ? v : (v as { toNumber(): number }).toNumber();
}

function readScalar(r: protobuf.Reader, kind: Kind, fp: FieldPlan, depth: number): unknown {
  switch (kind) {
    case 'string':
      return r.string();
    case 'bool':
      return r.bool();
    case 'int32':
      return r.int32();
    case 'uint32':
      return r.uint32();
    case 'sint32':
      return r.sint32();
    case 'fixed32':
      return r.fixed32();
    case 'sfixed32':
      return r.sfixed32();
    case 'double':
      return r.double();
    case 'float':
      return r.float();
    case 'int64':
      return toNumber(r.int64());
    case 'uint64':
      return toNumber(r.uint64());
    case 'sint64':
      return toNumber(r.sint64());
    case 'fixed64':
      return toNumber(r.fixed64());
    case 'sfixed64':
      return toNumber(r.sfixed64());
    case 'bytes':
      return Buffer.from(r.bytes()).toString('base64');
    case 'enum': {
      const n = r.int32();
      return fp.enumNames?.[n] ?? n;
    }
    case 'message':
      return decodeInto(r, r.uint32(), fp.plan ?? { fields: [] }, depth + 1);
  }
}

function readMapEntry(
  r: protobuf.Reader,
  fp: FieldPlan,
  target: Record<string, unknown>,
  depth: number,
): void {
  const end = r.uint32() + r.pos;
  let key: unknown = fp.mapKey === 'string' ? '' : 0;
  let value: unknown;
  while (r.pos < end) {
    const tag = r.uint32();
    const id = tag >>> 3;
    if (id === 1 && fp.mapKey) key = readScalar(r, fp.mapKey, fp, depth);
    else if (id === 2 && (tag & 7) === WIRE[fp.kind]) value = readScalar(r, fp.kind, fp, depth);
    else r.skipType(tag & 7);
  }
  target[String(key)] =
    value ?? (fp.kind === 'message' ? {} : fp.kind === 'string' ? '' : fp.kind === 'bool' ? false : 0);
}

function decodeInto(r: protobuf.Reader, length: number, plan: Plan, depth: number): Record<string, unknown> {
  if (depth > MAX_DEPTH) throw new Error('max depth exceeded');
  const end = r.pos + length;
  if (end > r.len) throw new RangeError('index out of range');
  const out: Record<string, unknown> = {};
  while (r.pos < end) {
    const tag = r.uint32();
    const wire = tag & 7;
    const fp = plan.fields[tag >>> 3];
    if (fp === undefined) {
      r.skipType(wire);
      continue;
    }
    if (fp.mapKey !== undefined) {
      if (wire !== 2) r.skipType(wire);
      else readMapEntry(r, fp, (out[fp.name] ??= {}) as Record<string, unknown>, depth);
      continue;
    }
    const expected = WIRE[fp.kind];
    if (fp.repeated) {
      const list = (out[fp.name] ??= []) as unknown[];
      if (wire === 2 && expected !== 2) {
        const packedEnd = r.uint32() + r.pos;
        while (r.pos < packedEnd) list.push(readScalar(r, fp.kind, fp, depth));
      } else if (wire === expected) list.push(readScalar(r, fp.kind, fp, depth));
      else r.skipType(wire);
      continue;
    }
    if (wire !== expected) {
      r.skipType(wire);
      continue;
    }
    const v = readScalar(r, fp.kind, fp, depth);
    const prev = out[fp.name];
    // A message field seen twice merges (protobuf semantics); anything else: last one wins.
    out[fp.name] =
      fp.kind === 'message' && prev !== undefined ? { ...(prev as object), ...(v as object) } : v;
  }
  if (r.pos !== end) throw new RangeError('index out of range');
  return out;
}

export function decodeToJson(type: protobuf.Type, bytes: Uint8Array): Record<string, unknown> {
  const r = protobuf.Reader.create(bytes);
  return decodeInto(r, r.len, planOf(type), 0);
}
