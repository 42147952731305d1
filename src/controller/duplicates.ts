/**
 * Objects defined more than once in the files read (the same kind, namespace and name, in several files or twice
 * in one): the last definition wins (files are read in path order, documents in file order, as `kubectl apply -f`
 * applies them), and nothing said so. Each such object of a kind read here gets one warning naming every place
 * (`file:line` of its `kind:`) and the one that wins, so a missing subset or route is not a mystery. Kinds not read
 * (a Deployment in a kustomize base and its overlay) are left alone.
 */
import { readFileSync } from 'node:fs';
import type { KindSpec } from '../model/kinds.ts';
import { DEFAULT_NAMESPACE, readKinds, recognisedKind } from '../model/parse/parse.ts';
import { definitionsOf, fileIndexes, type TextIndex } from '../model/parse/positions.ts';
import { warning, type ConfigIssue, type ObjectRef } from '../model/result.ts';
import { isPlainObject } from '../util/json.ts';

/** One object as read: the decoded value and its file. */
export interface Definition {
  readonly raw: unknown;
  readonly file: string;
}

/** The object as the parser names it: a namespaced kind written without a namespace is in `default`. */
function refOf(raw: Record<string, unknown>, kind: string, clusterScoped: boolean): ObjectRef | undefined {
  const md = isPlainObject(raw['metadata']) ? raw['metadata'] : {};
  const name = md['name'];
  const ns = md['namespace'];
  if (typeof name !== 'string' || name === '') return undefined;
  const namespace = clusterScoped ? '' : typeof ns === 'string' && ns !== '' ? ns : DEFAULT_NAMESPACE;
  return { kind, namespace, name };
}

/** `file:line` of each definition of `ref` among `files` (in order), the file alone where the line is not found. */
function placesOf(ref: ObjectRef, files: readonly string[], indexOf: (file: string) => TextIndex): string[] {
  const used = new Map<string, number>();
  return files.map((file) => {
    const nth = used.get(file) ?? 0;
    used.set(file, nth + 1);
    const at = definitionsOf(indexOf(file), ref)[nth];
    return at !== undefined ? `${file}:${at.line}` : file;
  });
}

/**
 * The warning of each object of a kind read (the core's and `kinds`) defined more than once among `defs`;
 * `readText` gives a file's text for the lines (default: read it again; only files with such objects are read).
 */
export function duplicateWarnings(
  defs: readonly Definition[],
  kinds?: readonly KindSpec[],
  readText: (file: string) => string = (file) => readFileSync(file, 'utf8'),
): ConfigIssue[] {
  const byKey = new Map<string, { ref: ObjectRef; files: string[] }>();
  let scoped: Set<string> | undefined;
  for (const d of defs) {
    const kind = recognisedKind(d.raw, kinds);
    if (kind === undefined || !isPlainObject(d.raw)) continue;
    scoped ??= new Set(
      readKinds(kinds)
        .filter((k) => k.clusterScoped)
        .map((k) => k.kind),
    );
    const ref = refOf(d.raw, kind, scoped.has(kind));
    if (ref === undefined) continue;
    const key = `${ref.kind}/${ref.namespace}/${ref.name}`;
    const seen = byKey.get(key);
    if (seen) seen.files.push(d.file);
    else byKey.set(key, { ref, files: [d.file] });
  }
  const indexOf = fileIndexes(readText);
  const out: ConfigIssue[] = [];
  for (const { ref, files } of byKey.values()) {
    if (files.length < 2) continue;
    const places = placesOf(ref, files, indexOf);
    const last = places[places.length - 1] ?? '';
    out.push(
      warning(
        ref,
        '',
        `defined ${files.length} times (${places.join(', ')}): ${last} wins, the last read (files in path order, documents in file order)`,
      ),
    );
  }
  return out;
}
