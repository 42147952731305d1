/**
 * The directory/file config source: reads `-f` files and directories (recursively, `*.yaml`, `*.yml`, `*.json`,
 * sorted by path), multi-document YAML, JSON and `kind: List` items; parses every object it recognises and the
 * mesh ConfigMap of the root namespace. Problems are returned as issues (a YAML syntax error names the file);
 * nothing throws on bad input. Objects defined more than once: the last definition wins.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { DEFAULT_MESH_CONFIG } from '../model/mesh.ts';
import type { ConfigKind, ConfigObject, MeshConfig } from '../model/objects.ts';
import {
  DEFAULT_PARSE_OPTIONS,
  meshConfigFromConfigMap,
  parseConfigObject,
  recognisedKind,
  type ParseOptions,
} from '../model/parse.ts';
import { compareStrings } from '../model/order.ts';
import { issue, type ConfigIssue, type ObjectRef } from '../model/result.ts';
import { isPlainObject } from '../util/json.ts';
import type { ConfigStore, RejectedObject } from './store.ts';
import { CONFIG_KINDS } from '../model/objects.ts';

const EXTENSIONS: ReadonlySet<string> = new Set(['.yaml', '.yml', '.json']);

export interface FileSourceResult {
  /** Valid objects, in file order (a later definition of the same object replaces the earlier one). */
  readonly objects: readonly ConfigObject[];
  /** Recognised objects that failed validation. */
  readonly rejected: readonly RejectedObject[];
  /** Every problem: file errors, YAML syntax errors, invalid objects, an invalid mesh config. */
  readonly issues: readonly ConfigIssue[];
  /** The mesh config from `<rootNamespace>/istio` (Istio defaults when absent or invalid). */
  readonly mesh: MeshConfig;
}

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
    try {
      if (statSync(p).isDirectory()) walk(p);
      else out.push(p);
    } catch (err) {
      issues.push(issue(fileRef(p), '', `cannot read: ${errMessage(err)}`));
    }
  }
  return out;
}

/** Parses the documents of one file's text into plain JS values (issues for syntax errors name the file). */
export function parseDocuments(path: string, text: string, issues: ConfigIssue[]): unknown[] {
  const docs: unknown[] = [];
  const all = parseAllDocuments(text, { prettyErrors: false });
  const list = Array.isArray(all) ? all : [all];
  list.forEach((doc, i) => {
    if (doc.errors.length > 0) {
      for (const e of doc.errors)
        issues.push(issue(fileRef(path), `documents[${i}]`, `invalid YAML: ${e.message}`));
      return;
    }
    const value: unknown = doc.toJS({ maxAliasCount: 1000 });
    if (value !== null && value !== undefined) docs.push(value);
  });
  return docs;
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

/** Reads every file and parses every object (Kubernetes Services with `opts.clusterDomain`, default cluster.local). */
export function loadConfigFiles(
  paths: readonly string[],
  opts: { rootNamespace: string; clusterDomain?: string },
): FileSourceResult {
  const issues: ConfigIssue[] = [];
  const raws: unknown[] = [];
  for (const file of listConfigFiles(paths, issues)) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      issues.push(issue(fileRef(file), '', `cannot read: ${errMessage(err)}`));
      continue;
    }
    parseDocuments(file, text, issues).forEach((doc, i) =>
      flatten(doc, file, `documents[${i}]`, issues, raws),
    );
  }
  const parseOptions = opts.clusterDomain !== undefined ? { clusterDomain: opts.clusterDomain } : undefined;
  return parseRawObjects(raws, opts.rootNamespace, issues, parseOptions);
}

/** Parses already-decoded objects (shared by the file source and tests). */
export function parseRawObjects(
  raws: readonly unknown[],
  rootNamespace: string,
  issues: ConfigIssue[] = [],
  parseOptions: ParseOptions = DEFAULT_PARSE_OPTIONS,
): FileSourceResult {
  const byKey = new Map<string, ConfigObject>();
  const rejected = new Map<string, RejectedObject>();
  let mesh: MeshConfig = { ...DEFAULT_MESH_CONFIG, rootNamespace };
  for (const raw of raws) {
    const meshResult = meshConfigFromConfigMap(raw, rootNamespace);
    if (meshResult) {
      if (meshResult.ok) mesh = meshResult.value;
      issues.push(...meshResult.issues);
      continue;
    }
    const parsed = parseConfigObject(raw, parseOptions);
    if (!parsed) continue;
    const kind = recognisedKind(raw) as ConfigKind;
    if (parsed.ok) {
      const key = `${kind}/${parsed.value.metadata.namespace}/${parsed.value.metadata.name}`;
      byKey.delete(key);
      byKey.set(key, parsed.value);
      rejected.delete(key);
    } else {
      const ref = parsed.issues[0]?.ref ?? { kind, namespace: '', name: '' };
      const key = `${kind}/${ref.namespace}/${ref.name}`;
      byKey.delete(key);
      rejected.set(key, { ref, issues: parsed.issues });
    }
    issues.push(...parsed.issues);
  }
  return { objects: [...byKey.values()], rejected: [...rejected.values()], issues, mesh };
}

/** Replaces the whole content of `store` with `result` (full state of every kind, and the mesh config). */
export function fillStore(store: ConfigStore, result: FileSourceResult): void {
  store.setMesh(result.mesh);
  for (const kind of CONFIG_KINDS) {
    store.replaceKind(
      kind,
      result.objects.filter((o) => o.kind === kind),
      result.rejected.filter((r) => r.ref.kind === kind),
    );
  }
}

function errMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
