/**
 * Ordering and multi-value indexes used by the ConfigStore. Index buckets stay sorted in the D6 order (oldest
 * creationTimestamp first, unknown timestamps last, then namespace/name), so a lookup is the first element.
 */
import type { ConfigObject, DestinationRule, MetaRouter, VirtualService } from '../model/objects.ts';
import { compareOldestFirst } from '../model/order.ts';

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
    if (!bucket) this.buckets.set(key, [obj]);
    else insertSorted(bucket, obj, this.compare);
  }

  remove(key: string, obj: T): void {
    const bucket = this.buckets.get(key);
    if (!bucket) return;
    removeFrom(bucket, obj);
    if (bucket.length === 0) this.buckets.delete(key);
  }

  first(key: string): T | undefined {
    return this.buckets.get(key)?.[0];
  }

  all(key: string): readonly T[] {
    return this.buckets.get(key) ?? [];
  }
}

/** Inserts after every element that does not sort after `obj` (equal elements keep their insertion order). */
function insertSorted<T>(bucket: T[], obj: T, compare: (a: T, b: T) => number): void {
  let i = 0;
  while (i < bucket.length && compare(bucket[i] as T, obj) <= 0) i++;
  bucket.splice(i, 0, obj);
}

function removeFrom<T>(bucket: T[], obj: T): void {
  const i = bucket.indexOf(obj);
  if (i >= 0) bucket.splice(i, 1);
}

/** What is configured for one (normalised) host, each list in the D6 order (oldest first, then namespace/name). */
export interface HostEntry {
  readonly virtualServices: VirtualService[];
  readonly destinationRules: DestinationRule[];
  readonly metaRouters: MetaRouter[];
}

export type HostList = keyof HostEntry;

/**
 * host → the VirtualServices, DestinationRules and MetaRouters for it. One index rather than one per kind: a
 * generator needs all three for a service, and ConfigView.configForHost finds them with one lookup.
 */
export class HostIndex {
  private readonly entries = new Map<string, HostEntry>();

  add(key: string, list: HostList, obj: ConfigObject): void {
    let entry = this.entries.get(key);
    if (entry === undefined) {
      entry = { virtualServices: [], destinationRules: [], metaRouters: [] };
      this.entries.set(key, entry);
    }
    insertSorted(entry[list] as ConfigObject[], obj, compareOldestFirst);
  }

  remove(key: string, list: HostList, obj: ConfigObject): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    removeFrom(entry[list] as ConfigObject[], obj);
    if (entry.virtualServices.length + entry.destinationRules.length + entry.metaRouters.length === 0) {
      this.entries.delete(key);
    }
  }

  get(key: string): HostEntry | undefined {
    return this.entries.get(key);
  }

  /** One of the three lists, indexed by host, as a KeyedIndex. */
  of(list: HostList): KeyedIndex {
    return { add: (key, obj) => this.add(key, list, obj), remove: (key, obj) => this.remove(key, list, obj) };
  }
}

/** What the store updates on every change: objects filed under keys. */
export interface KeyedIndex {
  add(key: string, obj: ConfigObject): void;
  remove(key: string, obj: ConfigObject): void;
}
