/**
 * Where an object, and a field inside it, were written in the text of a file: the `yaml` library parses the text
 * again with a LineCounter (the config reader, js-yaml, keeps no positions), and a field path (`spec.ports[1].name`,
 * as ConfigIssue paths are written) is walked down the object's nodes to the key that holds the field (or the
 * list item). Where the path leaves what was written (a required field that is missing), the deepest part that
 * exists is named; an empty path names the object's `kind:`. An object defined more than once in a file is
 * located at its last definition (the one that wins, as in parsing). JSON files are YAML here too. Pure.
 */
import {
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  parseAllDocuments,
  type Document,
  type Node,
  type YAMLMap,
} from 'yaml';

/** 1-based line and column. */
export interface TextPosition {
  readonly line: number;
  readonly column: number;
}

interface Placed {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly node: YAMLMap;
}

/** A file's documents and the objects in them, with what turns offsets into lines and columns. */
export interface TextIndex {
  /** The non-empty documents' roots, in order (as the reader's `documents[i]` counts them). */
  readonly documents: readonly Node[];
  readonly objects: readonly Placed[];
  readonly lineCounter: LineCounter;
}

function get(map: YAMLMap, key: string): Node | undefined {
  for (const pair of map.items) {
    if (isScalar(pair.key) && String(pair.key.value) === key)
      return (pair.value ?? undefined) as Node | undefined;
  }
  return undefined;
}

function scalarText(node: Node | undefined): string {
  if (!isScalar(node)) return '';
  const v = node.value;
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
}

/** `metadata.<key>`, or the same key of a mapping merged into it (`<<: *meta`), as text. */
function metadataText(md: Node | undefined, key: string, doc: Document): string {
  if (!isMap(md)) return '';
  const own = scalarText(get(md, key));
  if (own !== '') return own;
  const merged = get(md, '<<');
  const target = isAlias(merged) ? merged.resolve(doc) : undefined;
  return isMap(target) ? scalarText(get(target, key)) : '';
}

function collect(node: Node | null | undefined, out: Placed[], doc: Document): void {
  if (!isMap(node)) return;
  const kind = scalarText(get(node, 'kind'));
  const items = get(node, 'items');
  if ((kind === 'List' || kind.endsWith('List')) && isSeq(items)) {
    for (const item of items.items) collect(item as Node, out, doc);
    return;
  }
  const md = get(node, 'metadata');
  const name = metadataText(md, 'name', doc);
  const namespace = metadataText(md, 'namespace', doc);
  out.push({ kind, namespace, name, node });
}

/** Parses `text` for positions (never throws: a document with syntax errors keeps the nodes read). */
export function indexText(text: string): TextIndex {
  const lineCounter = new LineCounter();
  const documents: Node[] = [];
  const objects: Placed[] = [];
  try {
    for (const doc of parseAllDocuments(text, { lineCounter, uniqueKeys: false })) {
      const root = doc.contents as Node | null;
      if (root === null || (isScalar(root) && root.value === null)) continue;
      documents.push(root);
      collect(root, objects, doc);
    }
  } catch {
    // Positions are a nicety: without them, messages name the file only.
  }
  return { documents, objects, lineCounter };
}

/**
 * The text index of each file, made once per file on first use from `read` (a file that cannot be read any more
 * indexes as empty: the places in it are the file alone).
 */
export function fileIndexes(read: (file: string) => string): (file: string) => TextIndex {
  const indexes = new Map<string, TextIndex>();
  return (file) => {
    let index = indexes.get(file);
    if (index === undefined) {
      let text = '';
      try {
        text = read(file);
      } catch {
        // Gone since it was read.
      }
      indexes.set(file, (index = indexText(text)));
    }
    return index;
  };
}

/** `spec.ports[1].name` → ['spec', 'ports', 1, 'name']; `a["b.c"]` → ['a', 'b.c']. */
export function pathSegments(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  const re = /\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]|([^.[\]]+)/g;
  for (let m = re.exec(path); m !== null; m = re.exec(path)) {
    if (m[1] !== undefined) out.push(Number(m[1]));
    else if (m[2] !== undefined) out.push(m[2].replace(/\\(.)/g, '$1'));
    else if (m[3] !== undefined) out.push(m[3]);
  }
  return out;
}

/** The key node of `segments[0..k]` joined by dots in `map` (longest first: label keys hold dots), and k. */
function keyOf(
  map: YAMLMap,
  segments: readonly (string | number)[],
): { key: Node; value: Node | undefined; used: number } | undefined {
  for (let k = segments.length; k >= 1; k--) {
    const parts = segments.slice(0, k);
    if (parts.some((p) => typeof p !== 'string')) continue;
    const key = parts.join('.');
    for (const pair of map.items) {
      if (scalarText(pair.key as Node) === key) {
        return { key: pair.key as Node, value: (pair.value ?? undefined) as Node | undefined, used: k };
      }
    }
  }
  return undefined;
}

/** The node naming the deepest part of `segments` written under `start` (a key, or a list item), or `start`. */
function walk(start: Node, segments: readonly (string | number)[]): Node {
  let at: Node = start;
  let node: Node | undefined = start;
  let rest = segments;
  while (rest.length > 0 && node !== undefined) {
    const head = rest[0];
    if (isSeq(node) && typeof head === 'number') {
      const item = node.items[head] as Node | undefined;
      if (item === undefined) break;
      at = item;
      node = item;
      rest = rest.slice(1);
    } else if (isMap(node)) {
      const found = keyOf(node, rest);
      if (found === undefined) break;
      at = found.key;
      node = found.value;
      rest = rest.slice(found.used);
    } else break;
  }
  return at;
}

function positionOfNode(node: Node, index: TextIndex): TextPosition | undefined {
  const offset = node.range?.[0];
  if (offset === undefined) return undefined;
  const p = index.lineCounter.linePos(offset);
  return { line: p.line, column: p.col };
}

function sameNamespace(written: string, namespace: string): boolean {
  return written === namespace || (written === '' && (namespace === 'default' || namespace === ''));
}

/** The last object of `index` with this kind and name, in `namespace` (or written without one). */
function objectOf(index: TextIndex, kind: string, namespace: string, name: string): Placed | undefined {
  let loose: Placed | undefined;
  let exact: Placed | undefined;
  for (const o of index.objects) {
    if (o.kind !== kind || o.name !== name) continue;
    if (sameNamespace(o.namespace, namespace)) exact = o;
    loose = o;
  }
  return exact ?? loose;
}

/** The position of the `kind:` of every definition of the object in `index`, in order. */
export function definitionsOf(
  index: TextIndex,
  ref: { readonly kind: string; readonly namespace: string; readonly name: string },
): TextPosition[] {
  return index.objects
    .filter((o) => o.kind === ref.kind && o.name === ref.name && sameNamespace(o.namespace, ref.namespace))
    .map((o) => positionOfNode(keyOf(o.node, ['kind'])?.key ?? o.node, index))
    .filter((p): p is TextPosition => p !== undefined);
}

/**
 * The position of field `path` of the object (`kind`, `namespace`, `name`) in `index`: the key (or list item) of
 * the deepest part of the path written, the object's `kind:` for an empty path; undefined when the object is not
 * in the text.
 */
export function positionInObject(
  index: TextIndex,
  ref: { readonly kind: string; readonly namespace: string; readonly name: string },
  path: string,
): TextPosition | undefined {
  const o = objectOf(index, ref.kind, ref.namespace, ref.name);
  if (o === undefined) return undefined;
  const segments = pathSegments(path);
  const start = segments.length === 0 ? (keyOf(o.node, ['kind'])?.key ?? o.node) : walk(o.node, segments);
  return positionOfNode(start, index);
}

/** The position of a path about a file's documents (`documents[1].items[0]`, as the reader names them). */
export function positionInDocuments(index: TextIndex, path: string): TextPosition | undefined {
  const [head, n, ...rest] = pathSegments(path);
  if (head !== 'documents' || typeof n !== 'number') return undefined;
  const doc = index.documents[n];
  return doc === undefined ? undefined : positionOfNode(walk(doc, rest), index);
}
