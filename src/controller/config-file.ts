/**
 * Reads one config file into its YAML/JSON documents, with bounded cost: js-yaml (YAML 1.2 core schema, as the
 * `yaml` library read it before: no timestamps, no merge keys, `on`/`yes` are strings, `0755` is 755), a file size
 * limit, a document count limit, js-yaml's nesting limit (100) and a limit on what aliases add when expanded (js-yaml
 * shares an aliased node by reference, so a "billion laughs" document parses in microseconds and explodes only
 * when walked; the walk here counts the expanded size without expanding it). Every failure is a FileError with
 * the parser's line and column where there is one; nothing here throws on bad input.
 */
import { isUtf8 } from 'node:buffer';
import yaml from 'js-yaml';
import { readInput } from '../util/read-input.ts';

/** What one file may cost. Defaults (DEFAULT_FILE_LIMITS) are far above any real config. */
export interface FileLimits {
  /** Largest file, in bytes. */
  readonly maxFileBytes: number;
  /** Most documents (`---`-separated, empty ones not counted) in one file. */
  readonly maxFileDocuments: number;
  /** Most nodes that YAML aliases may add to one file once expanded (a node used twice adds its size once). */
  readonly maxYamlAliasNodes: number;
}

export const DEFAULT_FILE_LIMITS: FileLimits = Object.freeze({
  maxFileBytes: 64 * 1024 * 1024,
  maxFileDocuments: 100_000,
  maxYamlAliasNodes: 100_000,
});

/** `o`'s limits, each defaulted from DEFAULT_FILE_LIMITS. */
export function fileLimitsOf(o: Partial<FileLimits>): FileLimits {
  return {
    maxFileBytes: o.maxFileBytes ?? DEFAULT_FILE_LIMITS.maxFileBytes,
    maxFileDocuments: o.maxFileDocuments ?? DEFAULT_FILE_LIMITS.maxFileDocuments,
    maxYamlAliasNodes: o.maxYamlAliasNodes ?? DEFAULT_FILE_LIMITS.maxYamlAliasNodes,
  };
}

/** Why a file could not be used: `line` and `column` (1-based) where the parser names a position. */
export interface FileError {
  readonly path: string;
  readonly message: string;
  readonly line?: number;
  readonly column?: number;
}

export type FileRead =
  { readonly ok: true; readonly documents: unknown[] } | { readonly ok: false; readonly error: FileError };

/** `line 3, column 5: message` (or the message alone): the text after `File <path>: `. */
export function describeFileError(e: FileError): string {
  return e.line !== undefined ? `line ${e.line}, column ${e.column ?? 1}: ${e.message}` : e.message;
}

/** Reads, decodes and parses one file (empty documents dropped). */
export function readConfigFile(path: string, limits: FileLimits = DEFAULT_FILE_LIMITS): FileRead {
  const read = readConfigBytes(path, limits);
  return read.ok ? parseConfigText(path, read.bytes, limits) : read;
}

/**
 * The bytes of one file (or `-`, standard input, or a pipe: util/read-input.ts), within the size limit (checked
 * before reading a regular file, and on what was read).
 */
export function readConfigBytes(
  path: string,
  limits: FileLimits,
): { readonly ok: true; readonly bytes: Buffer } | { readonly ok: false; readonly error: FileError } {
  const read = readInput(path, limits.maxFileBytes);
  if (!read.ok) return fail(path, `cannot read: ${read.message}`);
  if (read.size > limits.maxFileBytes) return fail(path, tooBig(read.size, limits.maxFileBytes));
  return { ok: true, bytes: read.bytes };
}

/** Decodes (strict UTF-8) and parses a file's bytes or text; see readConfigFile. */
export function parseConfigText(path: string, input: Buffer | string, limits: FileLimits): FileRead {
  let text: string;
  if (typeof input === 'string') text = input;
  else {
    text = input.toString('utf8');
    if (!isUtf8(input))
      return {
        ok: false,
        error: { path, ...positionOf(text, text.indexOf('\uFFFD')), message: 'invalid UTF-8' },
      };
  }
  let documents: unknown[];
  try {
    documents = yaml.loadAll(text, undefined, { schema: yaml.CORE_SCHEMA });
  } catch (err) {
    return { ok: false, error: parserError(path, err) };
  }
  const present = documents.filter((d) => d !== null && d !== undefined);
  if (present.length > limits.maxFileDocuments)
    return fail(
      path,
      `${present.length} documents, more than the limit of ${limits.maxFileDocuments} (--max-file-documents)`,
    );
  // Aliases are written `*name` after a space, `[`, `{`, `,`, `:` or `-`; without one, no node is shared.
  if (!/[\s[{,:-]\*/.test(text)) return { ok: true, documents: present };
  const out: unknown[] = [];
  let budget = limits.maxYamlAliasNodes;
  for (const doc of present) {
    const expanded = expandAliases(doc, budget, limits.maxYamlAliasNodes);
    if (typeof expanded === 'string') return fail(path, expanded);
    budget -= expanded.added;
    out.push(expanded.value);
  }
  return { ok: true, documents: out };
}

function fail(path: string, message: string): { readonly ok: false; readonly error: FileError } {
  return { ok: false, error: { path, message } };
}

function tooBig(size: number, max: number): string {
  return `${size} bytes, more than the limit of ${max} (--max-file-size)`;
}

function parserError(path: string, err: unknown): FileError {
  if (err instanceof yaml.YAMLException) {
    const mark = err.mark as { line?: number; column?: number } | undefined;
    const at = mark?.line !== undefined ? { line: mark.line + 1, column: (mark.column ?? 0) + 1 } : {};
    return { path, ...at, message: `invalid YAML: ${err.reason}` };
  }
  return { path, message: `cannot parse: ${err instanceof Error ? err.message : String(err)}` };
}

/** 1-based line and column of a character offset (nothing when the offset is unknown). */
function positionOf(text: string, offset: number): { line?: number; column?: number } {
  if (offset < 0) return {};
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
}

/**
 * A copy of `doc` where every shared node (an alias) is its own tree, when what the aliases add stays within
 * `budget` nodes; otherwise (or for a node that contains itself) the error text. Sizes are counted once per shared
 * node (memo), so a billion-laughs document costs its written size, not its expanded one.
 */
function expandAliases(
  doc: unknown,
  budget: number,
  limit: number,
): { value: unknown; added: number } | string {
  if (doc === null || typeof doc !== 'object') return { value: doc, added: 0 };
  const sizes = new Map<object, number>();
  const open = new Set<object>();
  let written = 0;
  const size = (v: unknown): number => {
    if (v === null || typeof v !== 'object') return 1;
    const known = sizes.get(v);
    if (known !== undefined) return known;
    if (open.has(v)) throw new RecursiveAlias();
    open.add(v);
    let n = 1;
    written++;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child === null || typeof child !== 'object') written++;
      n += size(child);
    }
    open.delete(v);
    sizes.set(v, n);
    return n;
  };
  let total: number;
  try {
    total = size(doc);
  } catch (err) {
    if (err instanceof RecursiveAlias) return 'a YAML alias refers to a node that contains it';
    throw err;
  }
  const added = total - written;
  if (added > budget)
    return `YAML aliases add more than ${limit} nodes when expanded (the limit of --max-yaml-alias-nodes)`;
  return { value: added > 0 ? copyTree(doc) : doc, added };
}

class RecursiveAlias extends Error {}

function copyTree(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(copyTree);
  const out: Record<string, unknown> = {};
  for (const [k, child] of Object.entries(v)) out[k] = copyTree(child);
  return out;
}
