/**
 * YAML text of a JSON value, byte for byte as the `yaml` library's `stringify(value, { lineWidth: 0 })` writes
 * it, about ten times faster: the structure (block maps, sequences indented under their key, `- ` items, `{}` and
 * `[]` for empty collections) is written here; plain strings of the common shape and safe integers are written
 * directly, and every other scalar and map key is written by the library once (memoized per call). What this
 * writer does not know (a top level that is not a map, a key the library writes in explicit `? ` form) is handed
 * to the library whole. test/util/yaml-text.test.ts compares both on the fixtures and on generated values.
 */
import { stringify } from 'yaml';
import { sortedKeys, sortKeys } from './json.ts';

const OPTIONS = { lineWidth: 0 } as const;
/** Plain in YAML 1.2 core and not a keyword: starts with a letter, no space, colon, `#` or flow indicator. */
const PLAIN = /^[A-Za-z][A-Za-z0-9_./-]*$/;
const KEYWORD = /^(?:true|True|TRUE|false|False|FALSE|null|Null|NULL)$/;

const MAX_IMPLICIT_KEY = 1024;

class Unsupported extends Error {}

export interface YamlOptions {
  /** Write `sortKeys(value)` (util/json.ts), without making that sorted copy. */
  readonly sorted?: boolean;
}

/** `stringify(value, { lineWidth: 0 })` of the `yaml` library, for JSON values (plain objects, arrays, scalars). */
export function yamlText(value: unknown, options: YamlOptions = {}): string {
  const chunks: string[] = [];
  writeYaml(value, (chunk) => chunks.push(chunk), options);
  return chunks.join('');
}

/**
 * yamlText(value) in pieces, in order: a top-level list (a `kind: List`'s `items`) one item at a time, so a large
 * document is written without ever being one string (its pieces die young). A piece this writer does not know is
 * written by the library, alone: what it writes for one item does not depend on the others.
 */
export function writeYaml(value: unknown, write: (chunk: string) => void, options: YamlOptions = {}): void {
  const sorted = options.sorted === true;
  const copy = (v: unknown): unknown => (sorted ? sortKeys(v) : v);
  if (!isMap(value) || isEmpty(value)) {
    write(stringify(copy(value), OPTIONS));
    return;
  }
  const memo: Memo = { scalars: new Map(), keys: new Map() };
  const piece = (draw: (w: Writer) => void, fallback: () => string): string => {
    const writer = new Writer(sorted, memo);
    try {
      draw(writer);
      return writer.text();
    } catch (err) {
      if (err instanceof Unsupported) return fallback();
      throw err;
    }
  };
  for (const k of sorted ? sortedKeys(value) : Object.keys(value)) {
    const v = value[k];
    if (v === undefined) continue;
    const entry = () => stringify({ [k]: copy(v) }, OPTIONS);
    if (!Array.isArray(v) || v.length === 0) {
      write(piece((w) => w.map({ [k]: v }, 0, false), entry));
      continue;
    }
    const head = piece(
      (w) => w.map({ [k]: null }, 0, false),
      () => '',
    );
    if (head === '') {
      write(entry());
      continue;
    }
    write(head.replace(/ null\n$/, '\n'));
    for (const item of v) {
      const alone = () => stringify({ [k]: [copy(item)] }, OPTIONS).replace(/^[^\n]*\n/, '');
      write(piece((w) => w.seq([item], 2, false), alone));
    }
  }
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An empty sequence, or a map without a defined member (written `{}`, as sortKeys leaves undefined out). */
function isEmpty(v: unknown): boolean {
  if (Array.isArray(v)) return v.length === 0;
  if (!isMap(v)) return false;
  for (const k in v) if (v[k] !== undefined) return false;
  return true;
}

/** `indent` spaces, made once per width. */
const PADS: string[] = [];
function pad(indent: number): string {
  return (PADS[indent] ??= ' '.repeat(indent));
}

/** The text of scalars and keys written by the library, shared by the writers of one document. */
interface Memo {
  readonly scalars: Map<string, string>;
  readonly keys: Map<string, string>;
}

class Writer {
  private out = '';

  /** `sorted`: maps are written in sortedKeys order. */
  constructor(
    private readonly sorted: boolean,
    private readonly memos: Memo,
  ) {}

  text(): string {
    return this.out;
  }

  /** A non-empty map at `indent`; `inline`: its first pair continues the current line (after `- `). */
  map(m: Record<string, unknown>, indent: number, inline: boolean): void {
    const spaces = pad(indent);
    let first = inline;
    for (const k of this.sorted ? sortedKeys(m) : Object.keys(m)) {
      const v = m[k];
      if (v === undefined) continue;
      this.out += `${first ? '' : spaces}${this.key(k)}:`;
      first = false;
      this.value(v, indent, true);
    }
  }

  /** A non-empty sequence at `indent` (its `- ` at that column); `inline` as for map. */
  seq(items: readonly unknown[], indent: number, inline: boolean): void {
    const spaces = pad(indent);
    let first = inline;
    for (const item of items) {
      this.out += first ? '- ' : `${spaces}- `;
      first = false;
      this.value(item === undefined ? null : item, indent, false);
    }
  }

  /** The rest of a line holding `v`, after `key:` (inMap) or `- `, then the lines below it. */
  private value(v: unknown, indent: number, inMap: boolean): void {
    if (typeof v === 'object' && v !== null && !isEmpty(v)) {
      if (inMap) this.out += '\n';
      if (Array.isArray(v)) this.seq(v, indent + 2, !inMap);
      else this.map(v as Record<string, unknown>, indent + 2, !inMap);
      return;
    }
    const text = this.scalar(v);
    // A block scalar's lines are written for a key at column 0 (scalar()): shifted to this one's column.
    const spaces = pad(indent);
    const lines = text.includes('\n')
      ? text
          .split('\n')
          .map((l, i) => (i === 0 || l === '' ? l : spaces + l))
          .join('\n')
      : text;
    this.out += inMap ? ` ${lines}\n` : `${lines}\n`;
  }

  private scalar(v: unknown): string {
    if (typeof v === 'string') {
      if (PLAIN.test(v) && !KEYWORD.test(v)) return v;
      // As the value of a key at column 0 (a block scalar's indentation is relative to its parent).
      return this.memo(this.memos.scalars, v, () => stringify({ k: v }, OPTIONS).slice(3).replace(/\n$/, ''));
    }
    if (typeof v === 'number' && Number.isSafeInteger(v) && !Object.is(v, -0)) return String(v);
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (v === null) return 'null';
    if (Array.isArray(v)) return '[]';
    if (isMap(v)) return '{}';
    if (typeof v === 'number') return stringify(v, OPTIONS).replace(/\n$/, '');
    throw new Unsupported();
  }

  private key(k: string): string {
    // The library writes a key of more than 1024 characters in explicit `? ` form (YAML's implicit key limit).
    if (k.length <= MAX_IMPLICIT_KEY && PLAIN.test(k) && !KEYWORD.test(k)) return k;
    return this.memo(this.memos.keys, k, () => {
      const text = stringify({ [k]: 1 }, OPTIONS);
      if (!text.endsWith(': 1\n') || text.startsWith('? ') || text.slice(0, -4).includes('\n'))
        throw new Unsupported();
      return text.slice(0, -4);
    });
  }

  private memo(cache: Map<string, string>, k: string, make: () => string): string {
    let text = cache.get(k);
    if (text === undefined) {
      text = make();
      cache.set(k, text);
    }
    return text;
  }
}
