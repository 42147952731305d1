// A seeded PRNG (mulberry32) and input mutators for the fuzz suites. FUZZ_SEED reproduces a run (every suite
// prints its seed); FUZZ_ITERATIONS makes the suites run longer than the default few seconds of `npm test`.

export interface Rng {
  readonly seed: number;
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
  bytes(n: number): Buffer;
}

export function rng(seed: number): Rng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return {
    seed,
    next,
    int,
    pick: (items) => items[int(items.length)]!,
    bytes: (n) => Buffer.from(Array.from({ length: n }, () => int(256))),
  };
}

/** The seed of this run: FUZZ_SEED, or a fresh one; printed so a failure can be replayed. */
export function fuzzSeed(suite: string): number {
  const fixed = process.env['FUZZ_SEED'];
  const seed =
    fixed !== undefined && fixed !== '' ? Number(fixed) >>> 0 : (Date.now() ^ (process.pid << 16)) >>> 0;
  console.log(`# fuzz ${suite}: FUZZ_SEED=${seed}`);
  return seed;
}

/** FUZZ_ITERATIONS, or `fallback` (the small count `npm test` runs). */
export function iterations(fallback: number): number {
  const n = Number(process.env['FUZZ_ITERATIONS'] ?? '');
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** A mutated copy: bit flips, truncation, duplication of a slice, inserted random bytes, or a length varint
 *  overwritten with a huge value. */
export function mutate(r: Rng, input: Uint8Array): Buffer {
  const b = Buffer.from(input);
  switch (r.int(5)) {
    case 0: {
      for (let i = 0, n = 1 + r.int(4); i < n && b.length > 0; i++) b[r.int(b.length)]! ^= 1 << r.int(8);
      return b;
    }
    case 1:
      return b.subarray(0, r.int(b.length + 1));
    case 2: {
      const at = r.int(b.length + 1);
      const len = r.int(Math.max(1, b.length - at));
      return Buffer.concat([b.subarray(0, at + len), b.subarray(at, at + len), b.subarray(at + len)]);
    }
    case 3: {
      const at = r.int(b.length + 1);
      return Buffer.concat([b.subarray(0, at), r.bytes(1 + r.int(16)), b.subarray(at)]);
    }
    default: {
      const at = r.int(b.length + 1);
      return Buffer.concat([b.subarray(0, at), Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]), b.subarray(at)]);
    }
  }
}
