/**
 * YAML merge keys (`<<: *base`, YAML 1.1's merge type) are not read: config files are YAML 1.2 core schema
 * (controller/config-file.ts), where `<<` is a plain key, so an object written with one lost the fields it meant to
 * merge and failed later with a confusing "metadata.name: required field is missing". An object of a kind read here
 * with a `<<` key anywhere is refused, as files are read (controller/file-source.ts readRawObjects), with an error at
 * that key instead; other kinds are not looked at. Pure.
 */
import { isPlainObject } from '../../util/json.ts';
import type { KindSpec } from '../kinds.ts';
import { issue, type ConfigIssue } from '../result.ts';
import { DEFAULT_NAMESPACE, readKinds, recognisedKind } from './parse.ts';

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

function objectAt(v: unknown, key: string): Record<string, unknown> | undefined {
  const child = isPlainObject(v) ? v[key] : undefined;
  return isPlainObject(child) ? child : undefined;
}

function text(o: Record<string, unknown> | undefined, key: string): string | undefined {
  const v = o?.[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * The error of `raw` when it is an object of a kind read (the core's and `kinds`) holding a merge key, named as
 * parsing names it (its name and namespace taken from a merged `metadata` when that is where they were written);
 * undefined otherwise.
 */
export function mergeKeyIssue(raw: unknown, kinds?: readonly KindSpec[]): ConfigIssue | undefined {
  const kind = recognisedKind(raw, kinds);
  if (kind === undefined) return undefined;
  const path = mergeKeyPath(raw);
  if (path === undefined) return undefined;
  const own = objectAt(raw, 'metadata');
  const merged = objectAt(own, '<<');
  const clusterScoped = readKinds(kinds).some((k) => k.kind === kind && k.clusterScoped);
  const namespace = clusterScoped
    ? ''
    : (text(own, 'namespace') ?? text(merged, 'namespace') ?? DEFAULT_NAMESPACE);
  const name = text(own, 'name') ?? text(merged, 'name') ?? '';
  return issue({ kind, namespace, name }, path, MERGE_KEY_MESSAGE);
}
