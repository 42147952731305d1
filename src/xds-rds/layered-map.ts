/**
 * An immutable map in key order (code-unit order), made of a flat base map and a small layer of changes (a
 * removed key maps to undefined), so that a map differing from the previous one in a few keys shares the previous
 * one's entries instead of copying them: what a patched RDS snapshot holds its resources in (patchSnapshot).
 * Lookups read the layer, then the base. Iteration builds the flat map once (debug documents, tests). `with`
 * flattens when the layer holds more than √(base size) keys (at least 64): one change costs O(√n) amortised.
 */
import { compareStrings } from '../model/order.ts';

const MIN_LAYER = 64;

export class LayeredMap<V> implements ReadonlyMap<string, V> {
  private flat: ReadonlyMap<string, V> | undefined;

  private constructor(
    private readonly base: ReadonlyMap<string, V>,
    private readonly layer: ReadonlyMap<string, V | undefined>,
    readonly size: number,
  ) {
    if (layer.size === 0) this.flat = base;
  }

  /** A layered map over `base`, which must be in key order and is not copied (nor changed). */
  static of<V>(base: ReadonlyMap<string, V>): LayeredMap<V> {
    if (base instanceof LayeredMap) return base as LayeredMap<V>;
    return new LayeredMap<V>(base, new Map<string, V | undefined>(), base.size);
  }

  get(key: string): V | undefined {
    return this.layer.has(key) ? this.layer.get(key) : this.base.get(key);
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /** This map with `updates` applied (undefined removes a key). */
  with(updates: ReadonlyMap<string, V | undefined>): LayeredMap<V> {
    const layer = new Map(this.layer);
    let size = this.size;
    for (const [key, value] of updates) {
      size += (value !== undefined ? 1 : 0) - (this.has(key) ? 1 : 0);
      layer.set(key, value);
    }
    const next = new LayeredMap(this.base, layer, size);
    if (layer.size <= Math.max(MIN_LAYER, Math.sqrt(this.base.size))) return next;
    return new LayeredMap<V>(next.flatMap(), new Map<string, V | undefined>(), size);
  }

  forEach(callback: (value: V, key: string, map: ReadonlyMap<string, V>) => void, thisArg?: unknown): void {
    this.flatMap().forEach((value, key) => callback.call(thisArg, value, key, this));
  }

  entries(): MapIterator<[string, V]> {
    return this.flatMap().entries();
  }

  keys(): MapIterator<string> {
    return this.flatMap().keys();
  }

  values(): MapIterator<V> {
    return this.flatMap().values();
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  /** The base with the layer merged in, in key order; built once. */
  private flatMap(): ReadonlyMap<string, V> {
    if (this.flat) return this.flat;
    const out = new Map<string, V>();
    const layer = [...this.layer].sort(([a], [b]) => compareStrings(a, b));
    let i = 0;
    const flushBefore = (key: string | undefined) => {
      for (; i < layer.length; i++) {
        const [k, v] = layer[i] as [string, V | undefined];
        if (key !== undefined && compareStrings(k, key) >= 0) return;
        if (v !== undefined) out.set(k, v);
      }
    };
    for (const [key, value] of this.base) {
      flushBefore(key);
      if (!this.layer.has(key)) out.set(key, value);
    }
    flushBefore(undefined);
    this.flat = out;
    return out;
  }
}
