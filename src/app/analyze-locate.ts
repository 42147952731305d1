/**
 * The files of an offline analysis with a locator: each object's file (the last one defining it wins, as in
 * parsing) and the line and column of a field in it (analyze/locate.ts, each file indexed once, when a message
 * first needs it); for a file that cannot be parsed, the parser's own line and column (config-file.ts).
 */
import { readFileSync } from 'node:fs';
import { fileIndexes, positionInDocuments, positionInObject } from '../model/parse/positions.ts';
import type { SourceLocation } from '../analyze/types.ts';
import { readConfigFile, type FileLimits } from '../controller/config-file.ts';
import { readRawObjects } from '../controller/file-source.ts';
import type { ConfigIssue, ObjectRef } from '../model/result.ts';
import { createPluginKinds } from '../plugins/registry.ts';
import { isPlainObject } from '../util/json.ts';

/** `Kind/namespace/name` of a raw object as written (namespace '' when absent). */
function rawKey(raw: unknown): { kind: string; namespace: string; name: string } | undefined {
  if (!isPlainObject(raw)) return undefined;
  const own = isPlainObject(raw['metadata']) ? raw['metadata'] : {};
  // A merged metadata (`<<: *meta`, refused by parsing) still tells which object it is.
  const md = { ...(isPlainObject(own['<<']) ? own['<<'] : {}), ...own };
  const kind = raw['kind'];
  const name = md['name'];
  if (typeof kind !== 'string' || typeof name !== 'string') return undefined;
  const ns = md['namespace'];
  return { kind, namespace: typeof ns === 'string' ? ns : '', name };
}

export type Locate = (ref: ObjectRef, path: string) => SourceLocation | undefined;

/** The files' objects, the issues of reading them, and where each object's fields were written. */
export function readLocatedObjects(
  paths: readonly string[],
  limits: FileLimits,
  namespace?: string,
): { raws: unknown[]; issues: ConfigIssue[]; locate: Locate } {
  const issues: ConfigIssue[] = [];
  const fileOf = new Map<string, string>();
  const onObject = (raw: unknown, file: string): void => {
    const k = rawKey(raw);
    if (k === undefined) return;
    fileOf.set(`${k.kind}/${k.namespace}/${k.name}`, file);
    fileOf.set(`${k.kind}//${k.name}`, file);
  };
  const raws = readRawObjects(paths, issues, limits, {
    onObject,
    kinds: createPluginKinds(),
    ...(namespace !== undefined ? { namespace } : {}),
  });
  const indexOf = fileIndexes((file) => readFileSync(file, 'utf8'));
  const locateFile = (file: string, path: string): SourceLocation => {
    if (path !== '') return { file, ...positionInDocuments(indexOf(file), path) };
    const read = readConfigFile(file, limits);
    if (read.ok || read.error.line === undefined) return { file };
    return { file, line: read.error.line, column: read.error.column ?? 1 };
  };
  const locate: Locate = (ref, path) => {
    if (ref.kind === 'File') return locateFile(ref.name, path);
    const file =
      fileOf.get(`${ref.kind}/${ref.namespace}/${ref.name}`) ?? fileOf.get(`${ref.kind}//${ref.name}`);
    if (file === undefined) return undefined;
    return { file, ...positionInObject(indexOf(file), ref, path) };
  };
  return { raws, issues, locate };
}
