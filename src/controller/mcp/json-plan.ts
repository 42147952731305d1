import protobuf from 'protobufjs';
import { protobufReaderAt, type Cursor } from './wire.ts';

/** Field plans of json-decode.ts: what to read for each field number of a message type (from reflection). */

export type BasicKind = keyof typeof protobuf.types.basic;

// Value kinds.
export const K_STRING = 0;
export const K_BOOL = 1;
export const K_INT32 = 2;
export const K_UINT32 = 3;
export const K_SINT32 = 4;
export const K_ENUM = 5;
export const K_MESSAGE = 6;
export const K_BYTES = 7;
/** 64-bit, fixed-width and floating kinds: read by a protobufjs Reader (rare in Istio specs). */
export const K_OTHER = 8;

export interface ValuePlan {
  readonly k: number;
  /** The protobufjs kind name (K_OTHER). */
  readonly basic: BasicKind | undefined;
  /** Wire type of one (unpacked) value. */
  readonly wire: number;
}

export interface FieldPlan extends ValuePlan {
  readonly name: string;
  readonly repeated: boolean;
  /** Map fields: the key kind (the value is described by the field's own kind / enumNames / plan). */
  readonly mapKey: ValuePlan | undefined;
  readonly enumNames: Readonly<Record<number, string>> | undefined;
  plan: Plan | undefined;
}

export type MessageDecoder = (c: Cursor, length: number, depth: number) => Record<string, unknown>;

export interface Plan {
  readonly fields: (FieldPlan | undefined)[];
  /** Generated on first use (see compile). */
  decode: MessageDecoder | undefined;
}

const WIRE: Record<BasicKind | 'enum' | 'message', number> = {
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

const KIND_CODES: Partial<Record<string, number>> = {
  string: K_STRING,
  bool: K_BOOL,
  int32: K_INT32,
  uint32: K_UINT32,
  sint32: K_SINT32,
  enum: K_ENUM,
  message: K_MESSAGE,
  bytes: K_BYTES,
};

function valuePlan(kind: BasicKind | 'enum' | 'message'): ValuePlan {
  const k = KIND_CODES[kind] ?? K_OTHER;
  return { k, basic: k === K_OTHER ? (kind as BasicKind) : undefined, wire: WIRE[kind] };
}

export const MAX_DEPTH = 100;
export const EMPTY_PLAN: Plan = { fields: [], decode: undefined };
const plans = new WeakMap<protobuf.Type, Plan>();

export function planOf(type: protobuf.Type): Plan {
  const cached = plans.get(type);
  if (cached) return cached;
  const plan: Plan = { fields: [], decode: undefined };
  plans.set(type, plan); // before recursing: recursive messages
  for (const field of type.fieldsArray) {
    field.resolve();
    const resolved = field.resolvedType;
    const kind =
      resolved instanceof protobuf.Enum
        ? 'enum'
        : resolved instanceof protobuf.Type
          ? 'message'
          : (field.type as BasicKind);
    const enumNames =
      resolved instanceof protobuf.Enum
        ? Object.fromEntries(Object.entries(resolved.values).map(([name, n]) => [n, name]))
        : undefined;
    const fp: FieldPlan = {
      ...valuePlan(kind),
      name: field.name,
      repeated: field.repeated,
      mapKey: field instanceof protobuf.MapField ? valuePlan(field.keyType as BasicKind) : undefined,
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

export function readOther(c: Cursor, kind: BasicKind | undefined): unknown {
  const r = protobufReaderAt(c);
  let v: unknown;
  switch (kind) {
    case 'fixed32':
      v = r.fixed32();
      break;
    case 'sfixed32':
      v = r.sfixed32();
      break;
    case 'double':
      v = r.double();
      break;
    case 'float':
      v = r.float();
      break;
    case 'int64':
      v = toNumber(r.int64());
      break;
    case 'uint64':
      v = toNumber(r.uint64());
      break;
    case 'sint64':
      v = toNumber(r.sint64());
      break;
    case 'fixed64':
      v = toNumber(r.fixed64());
      break;
    case 'sfixed64':
      v = toNumber(r.sfixed64());
      break;
    default:
      throw new Error(`unsupported field kind ${String(kind)}`);
  }
  c.pos = r.pos;
  return v;
}
