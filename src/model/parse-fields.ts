/**
 * Typed field readers for parsing untrusted Kubernetes-style JSON. Every reader records wrong types as
 * ConfigIssues (with the dotted field path) on the Fields collector and returns undefined (or a default);
 * none throws. Absent and `null` values count as "not given".
 */
import * as utilJson from '../util/json.ts';
import { pinShape } from '../util/shape.ts';
import { toProtoDuration } from './duration.ts';
import { issue, type ConfigIssue, type ObjectRef } from './result.ts';

// Bound once (called per field; under a CommonJS transform each call through an import is a getter call).
const { isPlainObject } = utilJson;

export type Raw = Record<string, unknown>;

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

  /**
   * `*In` readers: the field path is `${base}.${key}`, built only when an issue is recorded (valid input is
   * the bulk case). Same results and issues as the plain reader with that path.
   */
  stringIn(parent: Raw, key: string, base: string): string | undefined {
    const v = parent[key];
    return typeof v === 'string' ? v : this.string(parent, key, `${base}.${key}`);
  }

  requiredStringIn(parent: Raw, key: string, base: string): string | undefined {
    const v = parent[key];
    return typeof v === 'string' ? v : this.requiredString(parent, key, `${base}.${key}`);
  }

  portIn(parent: Raw, key: string, base: string): number | undefined {
    const v = parent[key];
    return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 65535
      ? v
      : this.port(parent, key, `${base}.${key}`);
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
    const out = sized<T>(v.length);
    let n = 0;
    for (let i = 0; i < v.length; i++) {
      const mapped = item(v[i], `${path}[${i}]`);
      if (mapped !== undefined) out[n++] = mapped;
    }
    return fit(out, n);
  }

  /** A list of objects, each read by `item`. */
  objectList<T>(parent: Raw, key: string, path: string, item: (o: Raw, path: string) => T | undefined): T[] {
    return this.objects(parent, key, path, (_f, o, p) => item(o, p));
  }

  /** objectList with a reader taking the collector (no per-call closure on the bulk path). */
  objects<T>(
    parent: Raw,
    key: string,
    path: string,
    item: (f: Fields, o: Raw, path: string) => T | undefined,
  ): T[] {
    const v = this.array(parent, key, path);
    if (v === undefined) return [];
    const out = sized<T>(v.length);
    let n = 0;
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      const p = `${path}[${i}]`;
      if (!isPlainObject(x)) {
        this.error(p, `expected an object, got ${describe(x)}`);
        continue;
      }
      const mapped = item(this, x, p);
      if (mapped !== undefined) out[n++] = mapped;
    }
    return fit(out, n);
  }

  /** A list of strings (frozen). */
  stringList(parent: Raw, key: string, path: string): string[] {
    const v = this.array(parent, key, path);
    if (v === undefined) return [];
    const out = sized<string>(v.length);
    let n = 0;
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (typeof x === 'string') out[n++] = x;
      else this.error(`${path}[${i}]`, `expected a string, got ${describe(x)}`);
    }
    return Object.freeze(fit(out, n)) as string[]; // strings only: frozen now, deepFreeze stops here
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

  /** A map of string values (labels, annotations, selectors); absent → {}. Keys are kept in sorted order. Frozen. */
  stringMap(parent: Raw, key: string, path: string): Record<string, string> {
    const o = this.object(parent, key, path);
    const out: Record<string, string> = {};
    if (!o) return Object.freeze(out);
    // Usually already sorted (one or two labels): then the keys are read in place (for-in over own keys is
    // Object.keys order) rather than copied into a sorted array, one allocation less per map on the bulk path.
    if (ownKeysSorted(o)) {
      for (const k in o) if (Object.hasOwn(o, k)) this.copyString(o, k, out, path);
    } else {
      for (const k of Object.keys(o).sort()) this.copyString(o, k, out, path);
    }
    return Object.freeze(out); // strings only: frozen now, deepFreeze stops here
  }

  private copyString(o: Raw, k: string, out: Record<string, string>, path: string): void {
    const v = o[k];
    if (typeof v === 'string') out[k] = v;
    else this.error(`${path}.${k}`, `expected a string, got ${describe(v)}`);
  }

  /** A duration field converted to proto3 JSON (`"60s"`, `"0.100s"`). */
  duration(parent: Raw, key: string, path: string): string | undefined {
    const text = this.string(parent, key, path);
    if (text === undefined) return undefined;
    const d = toProtoDuration(text);
    if (!d.ok) {
      this.error(path, d.message);
      return undefined;
    }
    return d.value;
  }
}

/** True when the own enumerable keys of `o`, in Object.keys order, are sorted. */
function ownKeysSorted(o: Raw): boolean {
  let prev: string | undefined;
  for (const k in o) {
    if (!Object.hasOwn(o, k)) continue;
    if (prev !== undefined && prev > k) return false;
    prev = k;
  }
  return true;
}

/**
 * An array with room for exactly `length` items, filled by index. Parsed lists are held as long as their object
 * is stored, and an array grown by push from [] reserves 17 slots: for the bulk of one- and two-item lists that
 * is most of the memory of a stored object (and of what the scavenger copies while a large response is read).
 */
function sized<T>(length: number): T[] {
  return new Array<T>(length);
}

/** `out` cut to its first `n` items (when some were dropped as invalid): no holes are left. */
function fit<T>(out: T[], n: number): T[] {
  if (n < out.length) out.length = n;
  return out;
}

// One collector per parsed object, garbage right after (see pinShape).
pinShape(new Fields({ kind: 'ServiceEntry', namespace: '', name: '' }));

export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return `string ${JSON.stringify(v)}`;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return `${typeof v} ${v}`;
  return typeof v;
}
