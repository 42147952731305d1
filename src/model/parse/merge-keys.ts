/**
 * YAML merge keys (`<<: *base`, YAML 1.1's merge type) are not read: config files are YAML 1.2 core schema
 * (controller/config-file.ts), where `<<` is a plain key, so an object written with one lost the fields it meant to
 * merge and failed later with a confusing "metadata.name: required field is missing". An object of a kind read here
 * with a `<<` key anywhere is refused with an error at that key instead; other kinds are not looked at.
 */
import { isPlainObject } from '../../util/json.ts';
import type { ConfigObject } from '../objects.ts';
import { fail, issue, refOf, type ObjectRef, type Result } from '../result.ts';

export const MERGE_KEY_MESSAGE = 'merge keys (<<) are not supported: write the merged fields out';

/** The path of the first `<<` key in `v` (depth first, in key order), or undefined. */
export function mergeKeyPath(v: unknown, path = ''): string | undefined {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const found = mergeKeyPath(v[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isPlainObject(v)) return undefined;
  for (const [k, child] of Object.entries(v)) {
    const here = path === '' ? k : `${path}.${k}`;
    if (k === '<<') return here;
    const found = mergeKeyPath(child, here);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * `parsed` (the result of parsing `raw`), or, when `raw` holds a merge key, its refusal: one error at the key, on
 * the object as parsing named it (its name and namespace taken from a merged `metadata` when that is where they
 * were written).
 */
export function refuseMergeKeys(raw: unknown, parsed: Result<ConfigObject>): Result<ConfigObject> {
  const path = mergeKeyPath(raw);
  if (path === undefined) return parsed;
  const named: ObjectRef | undefined = parsed.ok ? refOf(parsed.value) : parsed.issues[0]?.ref;
  if (named === undefined) return fail([]);
  const own = objectAt(raw, 'metadata');
  const merged = objectAt(own, '<<');
  const ref: ObjectRef = {
    kind: named.kind,
    namespace:
      named.namespace !== '' && own?.['namespace'] === undefined && typeof merged?.['namespace'] === 'string'
        ? merged['namespace']
        : named.namespace,
    name: named.name || (typeof merged?.['name'] === 'string' ? merged['name'] : ''),
  };
  return fail([issue(ref, path, MERGE_KEY_MESSAGE)]);
}

function objectAt(v: unknown, key: string): Record<string, unknown> | undefined {
  const child = isPlainObject(v) ? v[key] : undefined;
  return isPlainObject(child) ? child : undefined;
}
