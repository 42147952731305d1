import protobuf from 'protobufjs';

/**
 * A minimal protobuf wire-format cursor over a Buffer, for the MCP hot path (10,000s of resources per
 * response): reads in place (no sub-buffers, no message instances). Varints, skipping and bounds checks follow
 * protobufjs's Reader, so malformed input throws where protobufjs would. Rare scalar kinds (64-bit, fixed,
 * float, double) are delegated to a protobufjs Reader positioned at the same offset.
 */
/** Node's Buffer has `utf8Slice` (what protobufjs's BufferReader uses); @types/node does not declare it. */
export type WireBuffer = Buffer & { utf8Slice(start: number, end: number): string };

export class Cursor {
  pos: number;
  /** End of the readable region (the end of the innermost message being read). */
  end: number;
  constructor(
    readonly buf: WireBuffer,
    start: number,
    end: number,
  ) {
    this.pos = start;
    this.end = end;
  }
}

/** A Buffer view of `bytes` (no copy). */
export function asBuffer(bytes: Uint8Array): WireBuffer {
  return (
    Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  ) as WireBuffer;
}

function outOfRange(): RangeError {
  return new RangeError('index out of range');
}

/** An unsigned 32-bit varint (longer varints are truncated to their low 32 bits, as protobufjs does). */
export function varint32(c: Cursor): number {
  const buf = c.buf;
  let pos = c.pos;
  const end = c.end;
  if (pos >= end) throw outOfRange();
  let b = buf[pos++] as number;
  if (b < 128) {
    c.pos = pos;
    return b;
  }
  let value = b & 127;
  for (let shift = 7; shift < 35; shift += 7) {
    if (pos >= end) throw outOfRange();
    b = buf[pos++] as number;
    value = (value | ((b & 127) << shift)) >>> 0;
    if (b < 128) {
      c.pos = pos;
      return value;
    }
  }
  // Bytes 6..10 of a 64-bit varint: skipped.
  for (let i = 0; i < 5; i++) {
    if (pos >= end) throw outOfRange();
    if ((buf[pos++] as number) < 128) {
      c.pos = pos;
      return value;
    }
  }
  throw new Error('invalid varint encoding');
}

/** The end offset of a length-delimited field whose length prefix is at the cursor. */
export function delimitedEnd(c: Cursor): number {
  const len = varint32(c);
  const end = c.pos + len;
  if (end > c.end) throw outOfRange();
  return end;
}

/**
 * Short ASCII strings recur across resources (label keys, port names, protocols, enum-like values): a small
 * direct-mapped table hands back the string already decoded for the same bytes, so the objects of a response
 * share one copy of each. Bounded: CACHE_SLOTS strings of at most CACHE_MAX_LENGTH characters.
 */
const CACHE_SLOTS = 4096;
const CACHE_MAX_LENGTH = 64;
const cache: string[] = new Array<string>(CACHE_SLOTS).fill('');

/** The cache slot of `buf[start, end)` (a hash of its length and four of its bytes). */
function cacheSlot(buf: WireBuffer, start: number, end: number): number {
  const n = end - start;
  const h =
    Math.imul(n ^ (buf[start] as number), 31) ^
    Math.imul(buf[end - 1] as number, 131) ^
    Math.imul(buf[start + (n >> 1)] as number, 1031) ^
    Math.imul(buf[end - 1 - (n >> 2)] as number, 8191);
  return h & (CACHE_SLOTS - 1);
}

/**
 * The cached string equal to `buf[start, end)`, or undefined. Cached strings have one char per byte, each
 * ASCII or U+FFFD (never equal to a byte), so a hit means ASCII bytes: the same text, valid UTF-8.
 */
function cached(buf: WireBuffer, start: number, end: number, slot: number): string | undefined {
  const hit = cache[slot] as string;
  const n = end - start;
  if (hit.length !== n) return undefined;
  for (let j = 0; j < n; j++) if (hit.charCodeAt(j) !== buf[start + j]) return undefined;
  return hit;
}

/** A length-delimited string; invalid UTF-8 becomes U+FFFD (as protobufjs's non-verifying string()). */
export function readString(c: Cursor): string {
  const end = delimitedEnd(c);
  const start = c.pos;
  c.pos = end;
  if (start === end) return '';
  const buf = c.buf;
  if (end - start > CACHE_MAX_LENGTH) return buf.utf8Slice(start, end);
  const slot = cacheSlot(buf, start, end);
  const hit = cached(buf, start, end, slot);
  if (hit !== undefined) return hit;
  const s = buf.utf8Slice(start, end);
  if (s.length === end - start) cache[slot] = s; // a U+FFFD in it never equals a byte: no false hits
  return s;
}

const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A length-delimited string; invalid UTF-8 throws (as protobufjs's stringVerify(), used by generated decoders). */
export function readStrictString(c: Cursor): string {
  const end = delimitedEnd(c);
  const start = c.pos;
  c.pos = end;
  if (start === end) return '';
  const buf = c.buf;
  const n = end - start;
  const slot = n <= CACHE_MAX_LENGTH ? cacheSlot(buf, start, end) : -1;
  if (slot >= 0) {
    const hit = cached(buf, start, end, slot);
    if (hit !== undefined) return hit;
  }
  const s = buf.utf8Slice(start, end);
  // Valid UTF-8 decodes the same either way; utf8Slice marks invalid bytes with U+FFFD, so only then (or when
  // the text really holds U+FFFD) the strict decoder has to decide (it throws when invalid).
  if (s.includes('\uFFFD')) return strictDecoder.decode(buf.subarray(start, end));
  if (slot >= 0 && s.length === n) cache[slot] = s; // one char per byte and valid: ASCII
  return s;
}

/** A field tag, checked as protobufjs's Reader.tag() (at most 5 bytes, no bits beyond 32). */
export function readTag(c: Cursor): number {
  const start = c.pos;
  const tag = varint32(c);
  const n = c.pos - start;
  if (n > 5 || (n === 5 && ((c.buf[c.pos - 1] as number) & 112) !== 0)) {
    throw new Error('invalid tag encoding');
  }
  return tag;
}

/**
 * Skips one field value of the given wire type, as protobufjs's Reader.skipType: `field` (when given) is the
 * field number being skipped (0 throws; a group must end with its own number); nested fields numbered 0 throw.
 */
export function skipType(c: Cursor, wireType: number, depth = 0, field?: number): void {
  if (depth > protobuf.Reader.recursionLimit) throw new Error('max depth exceeded');
  if (field === 0) throw new Error('illegal tag: field number 0');
  switch (wireType) {
    case 0:
      for (;;) {
        if (c.pos >= c.end) throw outOfRange();
        if ((c.buf[c.pos++] as number) < 128) return;
      }
    case 1:
      skipBytes(c, 8);
      return;
    case 2:
      c.pos = delimitedEnd(c);
      return;
    case 3:
      for (;;) {
        const tag = readTag(c);
        const nested = tag >>> 3;
        if (nested === 0) throw new Error('illegal tag: field number 0');
        if ((tag & 7) === 4) {
          if (field !== undefined && nested !== field) throw new Error('invalid end group tag');
          return;
        }
        skipType(c, tag & 7, depth + 1, nested);
      }
    case 5:
      skipBytes(c, 4);
      return;
    default:
      throw new Error(`invalid wire type ${wireType} at offset ${c.pos}`);
  }
}

function skipBytes(c: Cursor, n: number): void {
  if (c.pos + n > c.end) throw outOfRange();
  c.pos += n;
}

/** A protobufjs Reader at the cursor's position (rare scalar kinds); call `sync` after reading. */
export function protobufReaderAt(c: Cursor): protobuf.Reader {
  const r = protobuf.Reader.create(c.buf);
  r.pos = c.pos;
  r.len = c.end;
  return r;
}
