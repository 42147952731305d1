/**
 * Strict reading for the kinds whose CRDs are structural and refuse unknown fields (a strict `kubectl apply`
 * rejects them, the API server prunes them) and whose Go decoding rejects bad enum names: such a field or value in
 * the input is an error rather than silently ignored. An unknown field close to a known one (a typo, another case,
 * snake_case) names it: `spec.routes[0].mirrorPercentag: unknown field; did you mean mirrorPercentage?`.
 */
import { isPlainObject } from '../../util/json.ts';
import type { Fields, Raw } from './fields.ts';

/**
 * Records an issue at `<path>.<key>` for every key of `o` not in `known` (in sorted key order). `hint` may add a
 * sentence for a key that users are known to write by mistake; otherwise the closest known field is suggested.
 */
export function rejectUnknownFields(
  f: Fields,
  o: Raw,
  known: ReadonlySet<string> | readonly string[],
  path: string,
  hint: (key: string) => string | undefined = () => undefined,
): void {
  const names = 'has' in known ? [...known] : known;
  for (const key of Object.keys(o).sort()) {
    if (names.includes(key)) continue;
    const extra = hint(key);
    const near = extra === undefined ? closestName(key, names) : undefined;
    const message = extra
      ? `unknown field: ${extra}`
      : near
        ? `unknown field; did you mean ${near}?`
        : 'unknown field';
    f.error(`${path}.${key}`, message);
  }
}

/**
 * Rejects the unknown fields of `parent[key]` when it is an object (a value of another type is left to the
 * field's reader, which reports it).
 */
export function rejectUnknownFieldsAt(
  f: Fields,
  parent: Raw,
  key: string,
  path: string,
  known: readonly string[],
): void {
  const v = parent[key];
  if (isPlainObject(v)) rejectUnknownFields(f, v, known, path);
}

/** An object field read strictly: undefined when absent, unknown keys reported. */
export function strictObject(
  f: Fields,
  parent: Raw,
  key: string,
  path: string,
  known: readonly string[],
): Raw | undefined {
  const o = f.object(parent, key, path);
  if (o) rejectUnknownFields(f, o, known, path);
  return o;
}

/** An enum given by name; undefined when absent; a name not in `values` is an issue. */
export function readEnum<T extends string>(
  f: Fields,
  parent: Raw,
  key: string,
  path: string,
  values: readonly T[],
): T | undefined {
  const v = f.string(parent, key, path);
  if (v === undefined) return undefined;
  if ((values as readonly string[]).includes(v)) return v as T;
  f.error(path, `unknown value "${v}" (expected one of ${values.join(', ')})`);
  return undefined;
}

/**
 * The known name `key` was probably meant to be: the same ignoring case, `_` and `-` (snake_case for camelCase),
 * else the nearest within two edits (one for names of up to four letters); undefined when none, or when two are
 * as near.
 */
export function closestName(key: string, known: readonly string[]): string | undefined {
  const fold = (s: string) => s.replace(/[_-]/g, '').toLowerCase();
  let best: string | undefined;
  let bestDistance = key.length <= 4 ? 1 : 2;
  let tie = false;
  for (const k of known) {
    const d = fold(k) === fold(key) ? 0 : editDistance(fold(k), fold(key));
    if (d < bestDistance || (d === bestDistance && best === undefined)) {
      [best, bestDistance, tie] = [k, d, false];
    } else if (d === bestDistance) tie = true;
  }
  return tie ? undefined : best;
}

/**
 * Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours; 3 for any
 * distance above 2 (only small distances are asked about).
 */
export function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}
