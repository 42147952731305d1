/**
 * Copies of bytes that live long (a resource's encoding held until it changes).
 *
 * Node hands out small Buffers (`Buffer.from`, `Buffer.concat`, `Buffer.allocUnsafe` under 4 KiB) as slices of a
 * shared 8 KiB pool block, and a block is freed only when none of its slices is reachable. A slice that lives for
 * hours keeps its whole block resident, and blocks are shared with short-lived buffers of every kind (gRPC frames,
 * encoders): under churn the retained slices end up spread over more and more blocks, outside the V8 heap
 * (`process.memoryUsage().arrayBuffers`). Long-lived bytes are therefore copied into blocks of their own.
 */

/** One copy of each part, all in one memory block of their own (never a slice of Node's shared pool). */
export function ownedCopies(...parts: readonly Uint8Array[]): Buffer[] {
  let total = 0;
  for (const p of parts) total += p.length;
  const block = Buffer.allocUnsafeSlow(total);
  const out: Buffer[] = [];
  let at = 0;
  for (const p of parts) {
    block.set(p, at);
    out.push(block.subarray(at, at + p.length));
    at += p.length;
  }
  return out;
}

/** A copy of `bytes` in a memory block of its own (never a slice of Node's shared pool). */
export function ownedCopy(bytes: Uint8Array): Buffer {
  return ownedCopies(bytes)[0] ?? Buffer.alloc(0);
}
