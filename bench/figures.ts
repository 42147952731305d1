// Small helpers for the figures benchmarks print, shared by bench/generate.ts and bench/incremental.ts.

/** The median of `xs` (the lower middle for an even count; NaN when empty). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)] ?? NaN;
}

/** `x` rounded to two decimals. */
export function round(x: number): number {
  return Math.round(x * 100) / 100;
}
