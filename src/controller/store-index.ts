/**
 * Ordering and multi-value indexes used by the ConfigStore. Index buckets stay sorted in the D6 order (oldest
 * creationTimestamp first, unknown timestamps last, then namespace/name), so a lookup is the first element.
 */
import type { ConfigObject } from '../model/objects.ts';

export { compareByName, compareOldestFirst } from '../model/order.ts';

export function objectKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** key → objects, each bucket kept sorted by `compare`. Adding and removing is O(bucket size). */
export class MultiIndex<T extends ConfigObject> {
  private readonly buckets = new Map<string, T[]>();

  constructor(private readonly compare: (a: T, b: T) => number) {}

  add(key: string, obj: T): void {
    const bucket = this.buckets.get(key);
    if (!bucket) {
      this.buckets.set(key, [obj]);
      return;
    }
    let i = 0;
    while (i < bucket.length && this.compare(bucket[i] as T, obj) <= 0) i++;
    bucket.splice(i, 0, obj);
  }

  remove(key: string, obj: T): void {
    const bucket = this.buckets.get(key);
    if (!bucket) return;
    const i = bucket.indexOf(obj);
    if (i >= 0) bucket.splice(i, 1);
    if (bucket.length === 0) this.buckets.delete(key);
  }

  first(key: string): T | undefined {
    return this.buckets.get(key)?.[0];
  }

  all(key: string): readonly T[] {
    return this.buckets.get(key) ?? [];
  }
}
