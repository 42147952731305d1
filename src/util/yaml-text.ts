/**
 * YAML text of a JSON value, byte for byte as the `yaml` library's `stringify(value, { lineWidth: 0 })` writes
 * it, about ten times faster: the structure (block maps, sequences indented under their key, `- ` items, `{}` and
 * `[]` for empty collections) is written here; plain strings of the common shape and safe integers are written
 * directly, and every other scalar and map key is written by the library once (memoized per call). What this
 * writer does not know (a top level that is not a map, a key the library writes in explicit `? ` form) is handed
 * to the library whole. test/util/yaml-text.test.ts compares both on the fixtures and on generated values.
 */
import { stringify } from 'yaml';

const OPTIONS = { lineWidth: 0 } as const;
/** Plain in YAML 1.2 core and not a keyword: starts with a letter, no space, colon, `#` or flow indicator. */
const PLAIN = /^[A-Za-z][A-Za-z0-9_./-]*$/;
const KEYWORD = /^(?:true|True|TRUE|false|False|FALSE|null|Null|NULL)$/;

class Unsupported extends Error {}

/** `stringify(value, { lineWidth: 0 })` of the `yaml` library, for JSON values (plain objects, arrays, scalars). */
export function yamlText(value: unknown): string {
  if (!isMap(value) || Object.keys(value).length === 0) return stringify(value, OPTIONS);
  const writer = new Writer();
  try {
    writer.map(value, 0, false);
  } catch (err) {
    if (err instanceof Unsupported) return stringify(value, OPTIONS);
    throw err;
  }
  return writer.text();
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isEmpty(v: unknown): boolean {
  return Array.isArray(v) ? v.length === 0 : isMap(v) && Object.keys(v).length === 0;
}

class Writer {
  private out = '';
  private readonly scalars = new Map<string, string>();
  private readonly keys = new Map<string, string>();

  text(): string {
    return this.out;
  }

  /** A non-empty map at `indent`; `inline`: its first pair continues the current line (after `- `). */
  map(m: Record<string, unknown>, indent: number, inline: boolean): void {
    const pad = ' '.repeat(indent);
    let first = inline;
    for (const k of Object.keys(m)) {
      const v = m[k];
      if (v === undefined) continue;
      this.out += `${first ? '' : pad}${this.key(k)}:`;
      first = false;
      this.value(v, indent, true);
    }
  }

  /** A non-empty sequence at `indent` (its `- ` at that column); `inline` as for map. */
  seq(items: readonly unknown[], indent: number, inline: boolean): void {
    const pad = ' '.repeat(indent);
    let first = inline;
    for (const item of items) {
      this.out += first ? '- ' : `${pad}- `;
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
    const pad = ' '.repeat(indent);
    const lines = text.includes('\n')
      ? text
          .split('\n')
          .map((l, i) => (i === 0 || l === '' ? l : pad + l))
          .join('\n')
      : text;
    this.out += inMap ? ` ${lines}\n` : `${lines}\n`;
  }

  private scalar(v: unknown): string {
    if (typeof v === 'string') {
      if (PLAIN.test(v) && !KEYWORD.test(v)) return v;
      // As the value of a key at column 0 (a block scalar's indentation is relative to its parent).
      return this.memo(this.scalars, v, () => stringify({ k: v }, OPTIONS).slice(3).replace(/\n$/, ''));
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
    if (PLAIN.test(k) && !KEYWORD.test(k)) return k;
    return this.memo(this.keys, k, () => {
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
