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

/** A length-delimited string; invalid UTF-8 becomes U+FFFD (as protobufjs's non-verifying string()). */
export function readString(c: Cursor): string {
  const end = delimitedEnd(c);
  const start = c.pos;
  c.pos = end;
  return start === end ? '' : c.buf.utf8Slice(start, end);
}

const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A length-delimited string; invalid UTF-8 throws (as protobufjs's stringVerify(), used by generated decoders). */
export function readStrictString(c: Cursor): string {
  const end = delimitedEnd(c);
  const start = c.pos;
  c.pos = end;
  const buf = c.buf;
  for (let i = start; i < end; i++) {
    if ((buf[i] as number) >= 128) return strictDecoder.decode(buf.subarray(start, end));
  }
  return start === end ? '' : buf.utf8Slice(start, end);
}

/** Skips one field value of the given wire type (groups included, as protobufjs's skipType). */
export function skipType(c: Cursor, wireType: number, depth = 0): void {
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
      if (depth > protobuf.Reader.recursionLimit) throw new Error('max depth exceeded');
      for (;;) {
        const tag = varint32(c);
        if ((tag & 7) === 4) return;
        skipType(c, tag & 7, depth + 1);
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
