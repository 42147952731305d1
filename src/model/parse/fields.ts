/**
 * Typed field readers for parsing untrusted Kubernetes-style JSON. Every reader records wrong types as
 * ConfigIssues (with the dotted field path) on the Fields collector and returns undefined (or a default);
 * none throws. Absent and `null` values count as "not given".
 */
import { isPlainObject } from '../../util/json.ts';
import { toProtoDuration } from './duration.ts';
import { issue, type ConfigIssue, type ObjectRef } from '../result.ts';

export type Raw = Record<string, unknown>;

/** The empty string map every parsed object shares (frozen: no reader may add to it). */
export const NO_STRINGS: Readonly<Record<string, string>> = Object.freeze({});

export class Fields {
  readonly issues: ConfigIssue[] = [];
  constructor(readonly ref: ObjectRef) {}

  error(path: string, message: string): void {
    this.issues.push(issue(this.ref, path, message));
  }

  /** An object field; absent/null → undefined; anything else not an object → issue. */
  object(parent: Raw, key: string, path: string): Raw | undefined {
    const v = parent[key];
    if (v === undefined || v === null) return undefined;
    if (!isPlainObject(v)) {
      this.error(path, `expected an object, got ${describe(v)}`);
      return undefined;
    }
    return v;
  }

  string(parent: Raw, key: string, path: string): string | undefined {
    const v = parent[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') {
      this.error(path, `expected a string, got ${describe(v)}`);
      return undefined;
    }
    return v;
  }

  requiredString(parent: Raw, key: string, path: string): string | undefined {
    const v = this.string(parent, key, path);
    if (v === undefined && (parent[key] === undefined || parent[key] === null)) {
      this.error(path, 'required field is missing');
    }
    return v;
  }

  boolean(parent: Raw, key: string, path: string): boolean | undefined {
    const v = parent[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') {
      this.error(path, `expected a boolean, got ${describe(v)}`);
      return undefined;
    }
    return v;
  }

  number(parent: Raw, key: string, path: string): number | undefined {
    const v = parent[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      this.error(path, `expected a number, got ${describe(v)}`);
      return undefined;
    }
    return v;
  }

  /** An integer in [min, max]. */
  integer(parent: Raw, key: string, path: string, min: number, max: number): number | undefined {
    const v = this.number(parent, key, path);
    if (v === undefined) return undefined;
    if (!Number.isInteger(v) || v < min || v > max) {
      this.error(path, `expected an integer between ${min} and ${max}, got ${v}`);
      return undefined;
    }
    return v;
  }

  uint32(parent: Raw, key: string, path: string): number | undefined {
    return this.integer(parent, key, path, 0, 4294967295);
  }

  port(parent: Raw, key: string, path: string): number | undefined {
    return this.integer(parent, key, path, 0, 65535);
  }

  /** A list; absent/null → []; each item mapped by `item` (undefined results are dropped). */
  list<T>(parent: Raw, key: string, path: string, item: (v: unknown, path: string) => T | undefined): T[] {
    const v = this.array(parent, key, path);
    if (v === undefined) return [];
    const out: T[] = [];
    for (const [i, x] of v.entries()) {
      const mapped = item(x, `${path}[${i}]`);
      if (mapped !== undefined) out.push(mapped);
    }
    return out;
  }

  /** A list of objects, each read by `item`. */
  objectList<T>(parent: Raw, key: string, path: string, item: (o: Raw, path: string) => T | undefined): T[] {
    return this.objects(parent, key, path, (_f, o, p) => item(o, p));
  }

  /** objectList with a reader that takes the collector. */
  objects<T>(
    parent: Raw,
    key: string,
    path: string,
    item: (f: Fields, o: Raw, path: string) => T | undefined,
  ): T[] {
    const v = this.array(parent, key, path);
    if (v === undefined) return [];
    const out: T[] = [];
    for (const [i, x] of v.entries()) {
      const p = `${path}[${i}]`;
      if (!isPlainObject(x)) {
        this.error(p, `expected an object, got ${describe(x)}`);
        continue;
      }
      const mapped = item(this, x, p);
      if (mapped !== undefined) out.push(mapped);
    }
    return out;
  }

  /** A list of strings. */
  stringList(parent: Raw, key: string, path: string): string[] {
    return this.list(parent, key, path, (x, p) => {
      if (typeof x === 'string') return x;
      this.error(p, `expected a string, got ${describe(x)}`);
      return undefined;
    });
  }

  /** The list at `key`; absent/null → undefined; anything else not a list → issue and undefined. */
  private array(parent: Raw, key: string, path: string): readonly unknown[] | undefined {
    const v = parent[key];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) {
      this.error(path, `expected a list, got ${describe(v)}`);
      return undefined;
    }
    return v as unknown[];
  }

  /** A map of string values (labels, annotations, selectors); absent → {}. Keys are kept in sorted order. */
  /**
   * A map of strings, its keys sorted. Absent, null or empty: NO_STRINGS, one frozen object shared by every parsed
   * object (most labels and annotations maps are empty, and each empty object costs as much as a short string).
   */
  stringMap(parent: Raw, key: string, path: string): Readonly<Record<string, string>> {
    const o = this.object(parent, key, path);
    if (!o) return NO_STRINGS;
    const out: Record<string, string> = {};
    let any = false;
    for (const k of Object.keys(o).sort()) {
      const v = o[k];
      if (typeof v === 'string') {
        out[k] = v;
        any = true;
      } else this.error(`${path}.${k}`, `expected a string, got ${describe(v)}`);
    }
    return any ? out : NO_STRINGS;
  }

  /** A duration field converted to proto3 JSON (`"60s"`, `"0.100s"`). */
  duration(parent: Raw, key: string, path: string): string | undefined {
    const text = this.string(parent, key, path);
    if (text === undefined) return undefined;
    const d = toProtoDuration(text, this.ref, path);
    if (d.ok) return d.value;
    this.issues.push(...d.issues);
    return undefined;
  }
}

export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return `string ${JSON.stringify(v)}`;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return `${typeof v} ${v}`;
  return typeof v;
}
