/**
 * Protobuf wire encoding of the few fields the xDS servers write by hand (responses.ts for the per-stream fields of
 * DiscoveryResponse / DeltaDiscoveryResponse, ads-encode.ts for the Any and Resource wrappers of the waypoint's
 * resources): a length-delimited field is its tag (`field << 3 | 2`) and length as varints, then the bytes
 * (https://protobuf.dev/programming-guides/encoding/).
 */

/** An unsigned varint's bytes, 7 bits each, least significant first. */
export function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

/** The total length of `chunks`. */
export function byteLength(chunks: readonly Uint8Array[]): number {
  let n = 0;
  for (const c of chunks) n += c.length;
  return n;
}

/** A length-delimited field made of `chunks` (not copied): the header, then the chunks. */
export function lengthDelimited(field: number, chunks: readonly Uint8Array[]): Uint8Array[] {
  return [Buffer.from([...varint((field << 3) | 2), ...varint(byteLength(chunks))]), ...chunks];
}

/** A length-delimited string field; an empty string is left out (proto3 default). */
export function stringField(field: number, value: string): Uint8Array[] {
  return value === '' ? [] : lengthDelimited(field, [Buffer.from(value, 'utf8')]);
}
