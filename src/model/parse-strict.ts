/**
 * Strict reading for kinds whose CRDs are structural and whose Go decoding rejects bad values (RedisService,
 * RedisDestination): a field the schema does not define and an enum name that does not exist are input errors,
 * never silently ignored.
 */
import type { Fields, Raw } from './parse-fields.ts';

/** Records an issue for every key of `o` not in `known` (the path names the field). */
export function rejectUnknownFields(f: Fields, o: Raw, path: string, known: readonly string[]): void {
  for (const key of Object.keys(o)) {
    if (!known.includes(key)) f.error(`${path}.${key}`, 'unknown field');
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
  if (o) rejectUnknownFields(f, o, path, known);
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
