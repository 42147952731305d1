/**
 * Durations as Kubernetes users write them for the Aeraki CRDs (Go `time.ParseDuration` syntax: `60s`, `100ms`,
 * `1.5s`, `1m30s`, and the proto3 JSON form `0.100s`), converted to proto3 JSON (`"60s"`, `"0.100s"`,
 * `"1.500s"`): whole seconds, then 0, 3, 6 or 9 fractional digits.
 */
import { fail, issue, ok, type ObjectRef, type Result } from '../result.ts';

const UNIT_NANOS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const PART = /^(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;
/** proto3 Duration limit: 315,576,000,000 seconds. */
const MAX_NANOS = 315_576_000_000n * 1_000_000_000n;

/**
 * Parses a Go-style duration into nanoseconds. Negative durations are rejected (none of ours may be negative).
 * Failures are reported as an issue at `path` of the object `ref`.
 */
export function parseDurationNanos(text: string, ref: ObjectRef, path: string): Result<bigint> {
  const bad = fail<bigint>([
    issue(ref, path, `invalid duration "${text}" (expected e.g. "60s", "100ms", "1.5s")`),
  ]);
  if (text === '0') return ok(0n);
  if (text === '') return bad;
  let rest = text;
  let total = 0n;
  while (rest.length > 0) {
    const m = PART.exec(rest);
    if (!m) return bad;
    const [whole, num = '', unit = ''] = m;
    const scale = UNIT_NANOS[unit];
    if (scale === undefined) return bad;
    total += decimalTimes(num, scale);
    rest = rest.slice(whole.length);
  }
  if (total > MAX_NANOS) return fail([issue(ref, path, `duration "${text}" is out of range`)]);
  return ok(total);
}

/** `num` (decimal text) times `scale`, truncated to whole nanoseconds. */
function decimalTimes(num: string, scale: bigint): bigint {
  const [intPart = '', fracPart = ''] = num.split('.');
  let value = BigInt(intPart === '' ? '0' : intPart) * scale;
  if (fracPart !== '') {
    const denom = 10n ** BigInt(fracPart.length);
    value += (BigInt(fracPart) * scale) / denom;
  }
  return value;
}

/** proto3 JSON form of a non-negative duration in nanoseconds. */
export function formatProtoDuration(nanos: bigint): string {
  const seconds = nanos / 1_000_000_000n;
  const frac = nanos % 1_000_000_000n;
  if (frac === 0n) return `${seconds}s`;
  const digits = frac.toString().padStart(9, '0');
  if (frac % 1_000_000n === 0n) return `${seconds}.${digits.slice(0, 3)}s`;
  if (frac % 1_000n === 0n) return `${seconds}.${digits.slice(0, 6)}s`;
  return `${seconds}.${digits}s`;
}

/** Go-style duration text to proto3 JSON duration text; failures as in parseDurationNanos. */
export function toProtoDuration(text: string, ref: ObjectRef, path: string): Result<string> {
  const parsed = parseDurationNanos(text.trim(), ref, path);
  return parsed.ok ? ok(formatProtoDuration(parsed.value)) : parsed;
}
