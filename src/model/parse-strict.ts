/**
 * Strict reading for the kinds whose CRDs are structural and refuse unknown fields (a strict `kubectl apply`
 * rejects them, the API server prunes them) and whose Go decoding rejects bad enum names: such a field or value in
 * the input is an error rather than silently ignored.
 */
import type { Fields, Raw } from './parse-fields.ts';

/**
 * Records an issue at `<path>.<key>` for every key of `o` not in `known` (in sorted key order). `hint` may add a
 * sentence for a key that users are known to write by mistake.
 */
export function rejectUnknownFields(
  f: Fields,
  o: Raw,
  known: ReadonlySet<string> | readonly string[],
  path: string,
  hint: (key: string) => string | undefined = () => undefined,
): void {
  const isKnown = (key: string) => ('has' in known ? known.has(key) : known.includes(key));
  for (const key of Object.keys(o).sort()) {
    if (isKnown(key)) continue;
    const extra = hint(key);
    f.error(`${path}.${key}`, `unknown field${extra ? `: ${extra}` : ''}`);
  }
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
