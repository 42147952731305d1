// The object store: one map per resource type, a global resourceVersion and a bounded event log.
import type { KubeObject, ResourceType, StoredEvent } from './types.ts';

export type StoreListener = (rt: ResourceType, ev: StoredEvent) => void;

function typeKey(rt: ResourceType): string {
  return `${rt.group}/${rt.plural}`;
}

export function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

/**
 * Contract: every committed change gets the next resourceVersion (global, strictly increasing), is kept in
 * the event log until `eventWindow` newer events push it out (or `compact()`), and is delivered
 * synchronously to the listeners in commit order. Objects going in and out are copies.
 */
export class ObjectStore {
  private rv: number;
  private readonly data = new Map<string, Map<string, KubeObject>>();
  /** Each table's keys in order, kept until a key is added or removed (a list of 30,000 pages without sorting). */
  private readonly sortedKeys = new Map<string, string[]>();
  private readonly log: { type: string; ev: StoredEvent }[] = [];
  private compactedRv: number;
  private readonly listeners = new Set<StoreListener>();

  constructor(
    private readonly eventWindow: number,
    startRv = 1000,
  ) {
    this.rv = startRv;
    this.compactedRv = startRv;
  }

  currentRv(): number {
    return this.rv;
  }

  /** The oldest resourceVersion a watch may still start from (older ones get 410 Expired). */
  oldestWatchableRv(): number {
    return this.compactedRv;
  }

  private table(rt: ResourceType): Map<string, KubeObject> {
    const k = typeKey(rt);
    let t = this.data.get(k);
    if (!t) {
      t = new Map();
      this.data.set(k, t);
    }
    return t;
  }

  get(rt: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    const o = this.table(rt).get(objectKey(namespace, name));
    return o && structuredClone(o);
  }

  /** Objects ordered by namespace/name; all namespaces when `namespace` is undefined. */
  list(rt: ResourceType, namespace?: string): KubeObject[] {
    return [...this.iterate(rt, namespace)].map((o) => structuredClone(o));
  }

  /** Like list(), but the stored objects themselves: callers must copy before changing anything. */
  scan(rt: ResourceType, namespace?: string): readonly KubeObject[] {
    return [...this.iterate(rt, namespace)];
  }

  /**
   * The stored objects (callers must copy before changing anything) ordered by namespace/name, from the first key
   * after `after` (`objectKey`) when given; lazily, so a page stops reading where it ends.
   */
  *iterate(rt: ResourceType, namespace?: string, after?: string): Generator<KubeObject> {
    const t = this.table(rt);
    const keys = this.keysOf(rt);
    for (let i = after === undefined ? 0 : firstAfter(keys, after); i < keys.length; i++) {
      const o = t.get(keys[i]!);
      if (o && (namespace === undefined || o.metadata.namespace === namespace)) yield o;
    }
  }

  private keysOf(rt: ResourceType): string[] {
    let keys = this.sortedKeys.get(typeKey(rt));
    if (!keys) {
      keys = [...this.table(rt).keys()].sort();
      this.sortedKeys.set(typeKey(rt), keys);
    }
    return keys;
  }

  count(rt: ResourceType): number {
    return this.table(rt).size;
  }

  /** Stores `obj` (its metadata.resourceVersion is set here) and logs ADDED or MODIFIED. */
  put(rt: ResourceType, obj: KubeObject): KubeObject {
    const t = this.table(rt);
    const key = objectKey(obj.metadata.namespace, obj.metadata.name ?? '');
    const previous = t.get(key);
    const stored = structuredClone(obj);
    stored.metadata.resourceVersion = String(++this.rv);
    if (!previous) this.sortedKeys.delete(typeKey(rt));
    t.set(key, stored);
    this.append(rt, { rv: this.rv, type: previous ? 'MODIFIED' : 'ADDED', key, object: stored, previous });
    return structuredClone(stored);
  }

  /** Removes an object and logs DELETED; the returned last state carries the deletion's resourceVersion. */
  remove(rt: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    const t = this.table(rt);
    const key = objectKey(namespace, name);
    const previous = t.get(key);
    if (!previous) return undefined;
    t.delete(key);
    this.sortedKeys.delete(typeKey(rt));
    const last = structuredClone(previous);
    last.metadata.resourceVersion = String(++this.rv);
    this.append(rt, { rv: this.rv, type: 'DELETED', key, object: last, previous });
    return structuredClone(last);
  }

  private append(rt: ResourceType, ev: StoredEvent): void {
    this.log.push({ type: typeKey(rt), ev });
    while (this.log.length > this.eventWindow) this.compactedRv = this.log.shift()!.ev.rv;
    for (const l of [...this.listeners]) l(rt, ev);
  }

  /** Events of `rt` newer than `rv`, or 'expired' when some of them were already dropped. */
  eventsSince(rt: ResourceType, rv: number): StoredEvent[] | 'expired' {
    if (rv < this.compactedRv) return 'expired';
    const k = typeKey(rt);
    return this.log.filter((e) => e.type === k && e.ev.rv > rv).map((e) => e.ev);
  }

  /** Drops the whole event log: any watch from an older resourceVersion now gets 410 Expired. */
  compact(): void {
    this.log.length = 0;
    this.compactedRv = this.rv;
  }

  subscribe(listener: StoreListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** Index of the first key greater than `after` in sorted `keys` (binary search). */
function firstAfter(keys: readonly string[], after: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
