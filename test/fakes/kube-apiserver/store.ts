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
    const t = this.table(rt);
    return [...t.keys()]
      .sort()
      .map((k) => t.get(k)!)
      .filter((o) => namespace === undefined || o.metadata.namespace === namespace)
      .map((o) => structuredClone(o));
  }

  /** Like list(), but the stored objects themselves: callers must copy before changing anything. */
  scan(rt: ResourceType, namespace?: string): readonly KubeObject[] {
    const t = this.table(rt);
    return [...t.keys()]
      .sort()
      .map((k) => t.get(k)!)
      .filter((o) => namespace === undefined || o.metadata.namespace === namespace);
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
