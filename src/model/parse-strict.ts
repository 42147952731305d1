/**
 * Strict reading for the kinds whose CRDs are structural and refuse unknown fields (a strict `kubectl apply`
 * rejects them, the API server prunes them): such a field in the input is an error rather than silently ignored.
 */
import type { Fields, Raw } from './parse-fields.ts';

/**
 * Records an issue at `<path>.<key>` for every key of `o` not in `known` (in sorted key order). `hint` may add a
 * sentence for a key that users are known to write by mistake.
 */
export function rejectUnknownFields(
  f: Fields,
  o: Raw,
  known: ReadonlySet<string>,
  path: string,
  hint: (key: string) => string | undefined = () => undefined,
): void {
  for (const key of Object.keys(o).sort()) {
    if (known.has(key)) continue;
    const extra = hint(key);
    f.error(`${path}.${key}`, `unknown field${extra ? `: ${extra}` : ''}`);
  }
}
