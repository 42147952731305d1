import type protobuf from 'protobufjs';
import {
  EMPTY_PLAN,
  K_BOOL,
  K_BYTES,
  K_ENUM,
  K_INT32,
  K_MESSAGE,
  K_SINT32,
  K_STRING,
  K_UINT32,
  MAX_DEPTH,
  planOf,
  readOther,
  type FieldPlan,
  type MessageDecoder,
  type Plan,
  type ValuePlan,
} from './json-plan.ts';
import { asBuffer, Cursor, delimitedEnd, readString, skipType, varint32, type WireBuffer } from './wire.ts';

/**
 * Decodes protobuf bytes straight into the plain object `Type.toObject(Type.decode(bytes), {enums: String,
 * longs: Number, bytes: String})` would give (lowerCamelCase names, enum names, no defaults, no empty
 * lists/maps), in one pass: no message instances, no second copy. Driven by the reflection Type, so it follows
 * the .proto files. Unknown fields and fields with an unexpected wire type are skipped, as protobufjs does.
 * Throws (like Type.decode) on truncated or malformed input.
 */

function readScalar(c: Cursor, vp: ValuePlan, fp: FieldPlan, depth: number): unknown {
  switch (vp.k) {
    case K_STRING:
      return readString(c);
    case K_BOOL:
      return varint32(c) !== 0;
    case K_INT32:
      return varint32(c) | 0;
    case K_UINT32:
      return varint32(c);
    case K_SINT32: {
      const v = varint32(c);
      return ((v >>> 1) ^ -(v & 1)) | 0;
    }
    case K_ENUM: {
      const n = varint32(c) | 0;
      return fp.enumNames?.[n] ?? n;
    }
    case K_MESSAGE: {
      const len = varint32(c);
      return decodeWith(fp.plan ?? EMPTY_PLAN, c, len, depth + 1);
    }
    case K_BYTES: {
      const end = delimitedEnd(c);
      const start = c.pos;
      c.pos = end;
      return c.buf.toString('base64', start, end);
    }
    default:
      return readOther(c, vp.basic);
  }
}

function readMapEntry(c: Cursor, fp: FieldPlan, target: Record<string, unknown>, depth: number): void {
  const end = varint32(c) + c.pos;
  const mapKey = fp.mapKey as ValuePlan;
  let key: unknown = mapKey.k === K_STRING ? '' : 0;
  let value: unknown;
  while (c.pos < end) {
    const tag = varint32(c);
    const id = tag >>> 3;
    if (id === 1) key = readScalar(c, mapKey, fp, depth);
    else if (id === 2 && (tag & 7) === fp.wire) value = readScalar(c, fp, fp, depth);
    else skipType(c, tag & 7);
  }
  target[String(key)] =
    value ?? (fp.k === K_MESSAGE ? {} : fp.k === K_STRING ? '' : fp.k === K_BOOL ? false : 0);
}

function decodeWith(plan: Plan, c: Cursor, length: number, depth: number): Record<string, unknown> {
  return (plan.decode ??= compile(plan))(c, length, depth);
}

/** The expression reading one value of field `i` (an unpacked value, or a map value). */
function valueExpr(fp: FieldPlan, i: number): string {
  switch (fp.k) {
    case K_STRING:
      return 'readString(c)';
    case K_BOOL:
      return 'varint32(c) !== 0';
    case K_INT32:
      return 'varint32(c) | 0';
    case K_UINT32:
      return 'varint32(c)';
    case K_MESSAGE:
      return `decodeWith(F[${i}].plan ?? EMPTY_PLAN, c, varint32(c), depth + 1)`;
    default:
      return `readScalar(c, F[${i}], F[${i}], depth)`;
  }
}

/**
 * Generates the decoder of one message type, as protobufjs does for Type.decode: one `case` per field with
 * the property name written literally (several times faster in `npm run bench -- mcp` than one interpreter
 * shared by every type). The generated code only calls the helpers below; it does exactly what the field plan
 * says (same checks as the comments).
 */
function compile(plan: Plan): MessageDecoder {
  const F = plan.fields;
  const cases: string[] = [];
  F.forEach((fp, i) => {
    if (fp === undefined) return;
    const prop = `o[${JSON.stringify(fp.name)}]`;
    let body: string;
    if (fp.mapKey !== undefined) {
      // Map entry: only length-delimited.
      body = `if (wire !== 2) break; readMapEntry(c, F[${i}], (${prop} ??= {}), depth); continue;`;
    } else if (fp.repeated) {
      // Packed (length-delimited scalars) or one value with the expected wire type; else skipped (the list is
      // still created).
      const packed =
        fp.wire !== 2
          ? `if (wire === 2) { const l = (${prop} ??= []); const pe = varint32(c) + c.pos; while (c.pos < pe) l.push(${valueExpr(fp, i)}); continue; }`
          : '';
      body = `{ ${packed} if (wire !== ${fp.wire}) { ${prop} ??= []; break; } (${prop} ??= []).push(${valueExpr(fp, i)}); continue; }`;
    } else if (fp.k === K_MESSAGE) {
      // A message field seen twice merges (protobuf semantics).
      body = `{ if (wire !== 2) break; const v = ${valueExpr(fp, i)}; const p = ${prop}; ${prop} = p !== undefined ? { ...p, ...v } : v; continue; }`;
    } else {
      // Anything else: last one wins.
      body = `if (wire !== ${fp.wire}) break; ${prop} = ${valueExpr(fp, i)}; continue;`;
    }
    cases.push(`case ${i}: ${body}`);
  });
  const source = `
    return function decode(c, length, depth) {
      if (depth > MAX_DEPTH) throw new Error('max depth exceeded');
      const end = c.pos + length;
      if (end > c.end) throw new RangeError('index out of range');
      const o = {};
      while (c.pos < end) {
        const tag = varint32(c);
        const wire = tag & 7;
        switch (tag >>> 3) {
          ${cases.join('\n          ')}
        }
        skipType(c, wire);
      }
      if (c.pos !== end) throw new RangeError('index out of range');
      return o;
    };`;
  const helpers = {
    F,
    EMPTY_PLAN,
    MAX_DEPTH,
    decodeWith,
    readMapEntry,
    readScalar,
    readString,
    skipType,
    varint32,
  };
  const names = Object.keys(helpers);
  // Code generation from the reflection Type (field numbers and names of the loaded .proto files only).
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const factory = new Function(...names, source) as (...args: unknown[]) => MessageDecoder;
  return factory(...names.map((n) => helpers[n as keyof typeof helpers]));
}

export function decodeToJson(type: protobuf.Type, bytes: Uint8Array): Record<string, unknown> {
  const buf = asBuffer(bytes);
  return decodeRangeToJson(type, buf, 0, buf.length);
}

/** decodeToJson of `buf[start, end)`, read in place. */
export function decodeRangeToJson(
  type: protobuf.Type,
  buf: WireBuffer,
  start: number,
  end: number,
): Record<string, unknown> {
  return decodeWith(planOf(type), new Cursor(buf, start, end), end - start, 0);
}
