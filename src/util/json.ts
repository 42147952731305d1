import { createHash } from 'node:crypto';

/** A JSON value as produced by JSON.parse. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/**
 * JSON with object keys sorted recursively: identical content always gives identical bytes, whatever the
 * insertion order of the keys. `undefined` members are left out, as JSON.stringify does.
 */
export function stableStringify(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of sortedKeys(value)) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

/** Hex SHA-256 of the stable JSON of a value. */
export function contentHash(value: unknown): string {
  return sha256Hex(stableStringify(value));
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Freezes a value and everything reachable from it (stops at parts already frozen, which are frozen deeply by
 * construction). Returns the value.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (typeof v === 'object' && v !== null) deepFreeze(v); // leaves (strings, numbers) need nothing
    }
  } else {
    const o = value as Record<string, unknown>;
    for (const k in o) {
      const v = o[k];
      if (typeof v === 'object' && v !== null) deepFreeze(v);
    }
  }
  return value;
}

/** The own enumerable keys of `o`, sorted by UTF-16 code units (the order of `Array.prototype.sort`). */
export function sortedKeys(o: object): string[] {
  return Object.keys(o).sort();
}
