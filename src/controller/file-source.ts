/**
 * The directory/file config source: reads `-f` files and directories (recursively, `*.yaml`, `*.yml`, `*.json`,
 * sorted by path), multi-document YAML, JSON and `kind: List` items; parses every object it recognises and the
 * mesh ConfigMap of the root namespace. Problems are returned as issues: a file that cannot be read, decoded or
 * parsed, or that is over a limit (config-file.ts), is one issue naming the file (and the parser's line and column)
 * and contributes no object; nothing throws on bad input. Objects defined more than once: the last definition wins,
 * with a warning (duplicates.ts).
 */
import { readdirSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import {
  DEFAULT_FILE_LIMITS,
  describeFileError,
  parseConfigText,
  readConfigFile,
  type FileError,
  type FileLimits,
} from './config-file.ts';
import type { KindSpec } from '../model/kinds.ts';
import type { ConfigKind } from '../model/objects.ts';
import { compareStrings } from '../model/order.ts';
import { withNamespace } from '../model/parse/namespace-flag.ts';
import { DEFAULT_PARSE_OPTIONS } from '../model/parse/parse.ts';
import { parseRawObjects, type ParsedObjects } from '../model/parse/objects.ts';
import { mergeKeyIssue } from '../model/parse/merge-keys.ts';
import { issue, type ConfigIssue, type ObjectRef } from '../model/result.ts';
import { isPlainObject } from '../util/json.ts';
import { describeIoError, STDIN_PATH } from '../util/read-input.ts';
import type { ConfigStore } from './store.ts';
import { fillAmbient, readAmbientObjects, type AmbientRead } from './ambient-reads.ts';
import { duplicateWarnings, type Definition } from './duplicates.ts';

export { parseRawObjects } from '../model/parse/objects.ts';

const EXTENSIONS: ReadonlySet<string> = new Set(['.yaml', '.yml', '.json']);

/** What the files hold: objects in file order; issues include file errors and YAML syntax errors. */
export type FileSourceResult = ParsedObjects;

function fileRef(path: string): ObjectRef {
  return { kind: 'File', namespace: '', name: path };
}

/** Expands files and directories into the sorted list of config files; missing paths are issues. */
export function listConfigFiles(paths: readonly string[], issues: ConfigIssue[]): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    const entries = readdirSync(dir, { withFileTypes: true })
      .map((e) => ({ name: e.name, dir: e.isDirectory(), file: e.isFile() }))
      .sort((a, b) => compareStrings(a.name, b.name));
    for (const e of entries) {
      const full = join(dir, e.name);
      if (e.dir) walk(full);
      else if (e.file && EXTENSIONS.has(extname(e.name).toLowerCase())) out.push(full);
    }
  };
  for (const p of paths) {
    if (p === STDIN_PATH) {
      out.push(p);
      continue;
    }
    try {
      if (statSync(p).isDirectory()) walk(p);
      else out.push(p);
    } catch (err) {
      issues.push(issue(fileRef(p), '', `cannot read: ${describeIoError(err)}`));
    }
  }
  return out;
}

/** The issue of a file that cannot be used: `File <path>: line 3, column 5: invalid YAML: ...`. */
export function fileIssue(e: FileError): ConfigIssue {
  return issue(fileRef(e.path), '', describeFileError(e));
}

/** Parses the documents of one file's text into plain JS values (a file error is one issue naming the file). */
export function parseDocuments(path: string, text: string, issues: ConfigIssue[]): unknown[] {
  const read = parseConfigText(path, text, DEFAULT_FILE_LIMITS);
  if (read.ok) return read.documents;
  issues.push(fileIssue(read.error));
  return [];
}

/**
 * One file's decoded objects (`kind: List` flattened) and the issues of its documents, or why the file cannot be
 * used at all.
 */
export type FileObjects =
  | { readonly ok: true; readonly raws: unknown[]; readonly issues: ConfigIssue[] }
  | { readonly ok: false; readonly error: FileError };

export function readFileObjects(file: string, limits: FileLimits = DEFAULT_FILE_LIMITS): FileObjects {
  const read = readConfigFile(file, limits);
  return read.ok ? objectsOf(file, read.documents) : read;
}

/** The objects of a file's documents (`kind: List` flattened); a document that is no object is an issue. */
export function objectsOf(file: string, documents: readonly unknown[]): FileObjects & { ok: true } {
  const raws: unknown[] = [];
  const issues: ConfigIssue[] = [];
  documents.forEach((doc, i) => flatten(doc, file, `documents[${i}]`, issues, raws));
  return { ok: true, raws, issues };
}

/** Flattens `kind: List` objects into their items. */
function flatten(value: unknown, path: string, where: string, issues: ConfigIssue[], out: unknown[]): void {
  if (!isPlainObject(value)) {
    issues.push(issue(fileRef(path), where, 'expected a Kubernetes object'));
    return;
  }
  if (value['kind'] === 'List' || (typeof value['kind'] === 'string' && value['kind'].endsWith('List'))) {
    const items = value['items'];
    if (items === undefined || items === null) return;
    if (!Array.isArray(items)) {
      issues.push(issue(fileRef(path), `${where}.items`, 'expected a list'));
      return;
    }
    items.forEach((item: unknown, i) => flatten(item, path, `${where}.items[${i}]`, issues, out));
    return;
  }
  out.push(value);
}

/** What readRawObjects may be told. */
export interface ReadRawOptions {
  /** Told the file of each object, in order. */
  readonly onObject?: (raw: unknown, file: string) => void;
  /** The plugins' kinds (plugins/registry.ts): objects of these and the core's defined twice are warned about. */
  readonly kinds?: readonly KindSpec[];
  /** `-n`: objects without a namespace take it; one of another namespace is an issue (namespace-flag.ts). */
  readonly namespace?: string;
}

/**
 * Reads every file into decoded objects (`kind: List` flattened), without parsing them; problems go to `issues`
 * (an object of a kind read written with a YAML merge key is one, and left out: model/parse/merge-keys.ts), then a
 * warning for each object of a kind read that is defined more than once (duplicates.ts; the last wins). With
 * `namespace` (`-n`), objects are read as `kubectl apply -n` reads them (model/parse/namespace-flag.ts).
 */
export function readRawObjects(
  paths: readonly string[],
  issues: ConfigIssue[],
  limits: FileLimits = DEFAULT_FILE_LIMITS,
  o: ReadRawOptions = {},
): unknown[] {
  const raws: unknown[] = [];
  const defs: Definition[] = [];
  for (const file of listConfigFiles(paths, issues)) {
    const read = readFileObjects(file, limits);
    if (!read.ok) {
      issues.push(fileIssue(read.error));
      continue;
    }
    issues.push(...read.issues);
    for (const each of read.raws) {
      const raw = o.namespace === undefined ? each : withNamespace(each, o.namespace, file, issues);
      if (raw === undefined) continue;
      o.onObject?.(raw, file);
      const merge = mergeKeyIssue(raw, o.kinds);
      if (merge !== undefined) {
        // Refused as read: parsing it would report the fields the merge key stands for as missing.
        issues.push(merge);
        continue;
      }
      raws.push(raw);
      defs.push({ raw, file });
    }
  }
  issues.push(...duplicateWarnings(defs, o.kinds));
  return raws;
}

/** What the files hold, and with `ambient` their ambient inputs (Namespaces, Gateway API Gateways, GatewayClasses). */
export interface LoadedFiles extends FileSourceResult {
  /** Present only when asked for (`opts.ambient`); its issues are not among `issues`. */
  readonly ambient?: AmbientRead;
}

/**
 * Reads every file and parses every object (Kubernetes Services with `opts.clusterDomain`, default cluster.local;
 * the plugins' kinds `opts.kinds`, plugins/registry.ts); with `opts.ambient` the ambient inputs too
 * (ambient-reads.ts). Without it, Namespaces and Gateway API kinds are skipped silently, as any kind not read.
 */
export function loadConfigFiles(
  paths: readonly string[],
  opts: {
    rootNamespace: string;
    clusterDomain?: string;
    kinds?: readonly KindSpec[];
    limits?: FileLimits;
    ambient?: boolean;
    /** `-n`: see readRawObjects. */
    namespace?: string;
  },
): LoadedFiles {
  const issues: ConfigIssue[] = [];
  const raws = readRawObjects(paths, issues, opts.limits, {
    ...(opts.kinds ? { kinds: opts.kinds } : {}),
    ...(opts.namespace !== undefined ? { namespace: opts.namespace } : {}),
  });
  const parseOptions = {
    clusterDomain: opts.clusterDomain ?? DEFAULT_PARSE_OPTIONS.clusterDomain,
    ...(opts.kinds ? { kinds: opts.kinds } : {}),
  };
  const parsed = parseRawObjects(raws, opts.rootNamespace, issues, parseOptions);
  return opts.ambient === true ? { ...parsed, ambient: readAmbientObjects(raws) } : parsed;
}

/**
 * Replaces the whole content of `store` with `result` (full state of every kind the store reads, and of any other
 * kind `result` holds; and the mesh config); with `result.ambient`, the store's ambient inputs too.
 */
export function fillStore(store: ConfigStore, result: LoadedFiles): void {
  store.setMesh(result.mesh);
  if (result.ambient) fillAmbient(store.readsAmbient(), result.ambient);
  const kinds = new Set<ConfigKind>(store.configKinds);
  for (const o of result.objects) kinds.add(o.kind);
  for (const r of result.rejected) kinds.add(r.ref.kind as ConfigKind);
  for (const kind of kinds) {
    store.replaceKind(
      kind,
      result.objects.filter((o) => o.kind === kind),
      result.rejected.filter((r) => r.ref.kind === kind),
    );
  }
}
