import {
  asBuffer,
  Cursor,
  delimitedEnd,
  readStrictString,
  readTag,
  skipType,
  type WireBuffer,
} from './wire.ts';

/**
 * Decoder of `istio.mcp.v1alpha1.Resource` (metadata + body Any) written for the wire format, equivalent to
 * protobufjs's generated `Resource.decode` as decodeEnvelope uses it (strict UTF-8, empty strings as absent,
 * repeated sub-messages merged, map entries with missing key or value as ""), but reading in place: the body
 * is returned as a byte range of the input, not a copy, and no message instances are built. Throws on
 * malformed input, as Resource.decode does.
 */

/** The body Any: type URL and its value as a range of `buf` (`value` makes a view on demand). */
export class BodyRef {
  constructor(
    readonly type_url: string,
    readonly buf: WireBuffer,
    readonly start: number,
    readonly end: number,
  ) {}

  get value(): Uint8Array {
    return this.buf.subarray(this.start, this.end);
  }
}

export interface DecodedResourceMessage {
  readonly name: string;
  readonly version: string;
  /** Seconds of metadata.create_time (0 when given without seconds), undefined when absent. */
  readonly createSeconds: number | undefined;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly body: BodyRef | undefined;
}

const EMPTY_MAP: Readonly<Record<string, string>> = Object.freeze({});

/** Enters a length-delimited sub-message: returns the outer end, to restore with `leave`. */
function enter(c: Cursor): number {
  const end = delimitedEnd(c);
  const outer = c.end;
  c.end = end;
  return outer;
}

function leave(c: Cursor, outer: number): void {
  if (c.pos !== c.end) throw new RangeError('index out of range');
  c.end = outer;
}

/** Skips an unknown field as generated decoders do (field number 0 and mismatched group ends throw). */
function skipField(c: Cursor, tag: number): void {
  skipType(c, tag & 7, 0, tag >>> 3);
}

/** A signed int64 varint as a number (Long.toNumber semantics: high * 2^32 + unsigned low). */
function int64Number(c: Cursor): number {
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < 10; i++) {
    if (c.pos >= c.end) throw new RangeError('index out of range');
    const b = c.buf[c.pos++] as number;
    const bits = b & 127;
    if (i < 4) lo = (lo | (bits << (7 * i))) >>> 0;
    else if (i === 4) {
      lo = (lo | (bits << 28)) >>> 0;
      hi = bits >>> 4;
    } else hi = (hi | (bits << (7 * i - 32))) >>> 0;
    if (b < 128) return (hi | 0) * 4_294_967_296 + lo;
  }
  throw new Error('invalid varint encoding');
}

function readMapEntry(c: Cursor, target: Record<string, string>): void {
  const outer = enter(c);
  let k = '';
  let v = '';
  while (c.pos < c.end) {
    const tag = readTag(c);
    const wire = tag & 7;
    const id = tag >>> 3;
    if (id === 1 && wire === 2) k = readStrictString(c);
    else if (id === 2 && wire === 2) v = readStrictString(c);
    else skipField(c, tag);
  }
  leave(c, outer);
  if (k === '__proto__') {
    Object.defineProperty(target, k, { value: v, enumerable: true, configurable: true, writable: true });
  } else target[k] = v;
}

/** Decodes the bytes of one MCP Resource. */
export function decodeResourceMessage(bytes: Uint8Array): DecodedResourceMessage {
  const buf = asBuffer(bytes);
  const c = new Cursor(buf, 0, buf.length);
  let name = '';
  let version = '';
  let createSeconds: number | undefined;
  let labels: Record<string, string> | undefined;
  let annotations: Record<string, string> | undefined;
  let hasBody = false;
  let typeUrl = '';
  let bodyStart = 0;
  let bodyEnd = 0;
  while (c.pos < c.end) {
    const tag = readTag(c);
    const wire = tag & 7;
    const id = tag >>> 3;
    if (id === 1 && wire === 2) {
      // Metadata
      const mdOuter = enter(c);
      while (c.pos < c.end) {
        const t = readTag(c);
        const w = t & 7;
        switch (w === 2 ? t >>> 3 : 0) {
          case 1:
            name = readStrictString(c);
            continue;
          case 2: {
            createSeconds ??= 0; // present: seconds default to 0 (protobufjs prototype default)
            const tsOuter = enter(c);
            while (c.pos < c.end) {
              const tt = readTag(c);
              if (tt === 8) createSeconds = int64Number(c);
              else skipField(c, tt); // nanos (field 2) and anything else: not used
            }
            leave(c, tsOuter);
            continue;
          }
          case 3:
            version = readStrictString(c);
            continue;
          case 4:
            readMapEntry(c, (labels ??= {}));
            continue;
          case 5:
            readMapEntry(c, (annotations ??= {}));
            continue;
          default:
            skipField(c, t);
        }
      }
      leave(c, mdOuter);
    } else if (id === 2 && wire === 2) {
      // google.protobuf.Any
      hasBody = true;
      const anyOuter = enter(c);
      while (c.pos < c.end) {
        const t = readTag(c);
        if (t === 10) typeUrl = readStrictString(c);
        else if (t === 18) {
          const end = delimitedEnd(c);
          bodyStart = c.pos;
          bodyEnd = end;
          c.pos = end;
        } else skipField(c, t);
      }
      leave(c, anyOuter);
    } else skipField(c, tag);
  }
  return {
    name,
    version,
    createSeconds,
    labels: labels ?? EMPTY_MAP,
    annotations: annotations ?? EMPTY_MAP,
    body: hasBody ? new BodyRef(typeUrl, buf, bodyStart, bodyEnd) : undefined,
  };
}

/**
 * The `metadata.name` of an encoded Resource, read without decoding the rest (the last one given wins, as in
 * decodeResourceMessage); '' when absent, undefined when the bytes cannot be read. A hint for finding the
 * previous state of a resource: callers compare bytes before trusting it.
 */
export function peekResourceName(bytes: Uint8Array): string | undefined {
  const buf = asBuffer(bytes);
  const c = new Cursor(buf, 0, buf.length);
  let name = '';
  try {
    while (c.pos < c.end) {
      const tag = readTag(c);
      if (tag !== 10) {
        skipField(c, tag);
        continue;
      }
      const outer = enter(c);
      while (c.pos < c.end) {
        const t = readTag(c);
        if (t === 10) name = readStrictString(c);
        else skipField(c, t);
      }
      leave(c, outer);
    }
  } catch {
    return undefined;
  }
  return name;
}
