/**
 * What exists in the API server, as the reconciler plans against it between full resyncs: the managed objects
 * (label `manager: Aeraki`) kept up to date by the drift watch (managed-watch.ts) and by the answers to the
 * reconciler's own writes, so a reconcile needs no list call and the next one does not write the same object
 * again.
 *
 * Watch events and write answers race: the answer to an update may arrive before the watch event of an older
 * edit. Resource versions are opaque in Kubernetes, but every API server in use (etcd revisions, the fake) hands
 * out increasing integers; when both versions are integers an older one never replaces a newer one. Any other
 * version is taken as it comes, and the periodic full resync (a real list) repairs what that gets wrong.
 */
import { SOURCE_ANNOTATION } from '../model/constants.ts';
import { olderVersion, replacesVersion } from '../kit/kube/resource-version.ts';
import type { ExistingObject, ManagedKind } from './diff.ts';
import { objectKey } from '../kit/owned-content.ts';

/** An object's identity as the cache reports changes. */
export interface ObjectRefKey {
  readonly kind: ManagedKind;
  readonly namespace: string;
  readonly name: string;
}

const sourceOf = (e: ExistingObject) => e.annotations[SOURCE_ANNOTATION] ?? '';

/** Records the keys (`objectKey`) whose cached version changes, from `track()` until `stop()`. */
export interface CacheTracker {
  /** The keys recorded so far (a live view, until `stop()`). */
  readonly keys: ReadonlySet<string>;
  /** Stops recording and returns the keys recorded. */
  stop(): ReadonlySet<string>;
}

export class ManagedCache {
  private readonly objects = new Map<string, ExistingObject>();
  /**
   * SOURCE_ANNOTATION ('' for none) → its objects, in the order recorded. A Set of the objects, not a second map by
   * key: a key made again for each update would be a second copy of every object's key.
   */
  private readonly bySourceIndex = new Map<string, Set<ExistingObject>>();
  /** Objects whose cached version changed (upserted or removed) since the last `takeChanged`. */
  private changed = new Map<string, ObjectRefKey>();
  /** Keys with a write of the controller in flight → how many. */
  private readonly inFlight = new Map<string, number>();
  /** The key sets of the trackers in use. */
  private readonly trackers = new Set<Set<string>>();
  private isSynced = false;
  private stale = false;

  /** True once the watch listed every managed kind, and not marked stale since. */
  get synced(): boolean {
    return this.isSynced && !this.stale;
  }

  get size(): number {
    return this.objects.size;
  }

  /** Called by the watch once every kind it watches was listed. */
  markSynced(): void {
    this.isSynced = true;
  }

  /**
   * The cache cannot be trusted until the next full list (a write whose answer carried no object): `synced` is
   * false until `repaired()`.
   */
  markStale(): void {
    this.stale = true;
  }

  /** Called after a full list was planned against (and its objects recorded): `synced` again. */
  repaired(): void {
    this.stale = false;
  }

  /** A snapshot of every object (a new array; the objects themselves are shared, never mutated). */
  list(): ExistingObject[] {
    return [...this.objects.values()];
  }

  get(kind: ManagedKind, namespace: string, name: string): ExistingObject | undefined {
    return this.objects.get(objectKey(kind, namespace, name));
  }

  /** The cached objects whose SOURCE_ANNOTATION is `source` ('' for those without one); a new array. */
  bySource(source: string): ExistingObject[] {
    return [...(this.bySourceIndex.get(source)?.values() ?? [])];
  }

  /**
   * The objects the cache recorded a change of (watch events, list items, write answers, deletions) since the
   * last call, and forgets them: what a change-driven reconcile re-checks besides the sources that changed.
   */
  takeChanged(): ObjectRefKey[] {
    const out = [...this.changed.values()];
    this.changed = new Map();
    return out;
  }

  /** Starts recording the keys whose cached version changes (to tell them apart in a list taken meanwhile). */
  track(): CacheTracker {
    const keys = new Set<string>();
    this.trackers.add(keys);
    return {
      keys,
      stop: () => {
        this.trackers.delete(keys);
        return keys;
      },
    };
  }

  /** The controller starts writing this object (its answer will be recorded). */
  beginWrite(kind: ManagedKind, namespace: string, name: string): void {
    const key = objectKey(kind, namespace, name);
    this.inFlight.set(key, (this.inFlight.get(key) ?? 0) + 1);
  }

  /** The write started by `beginWrite` is over (answered or failed). */
  endWrite(kind: ManagedKind, namespace: string, name: string): void {
    const key = objectKey(kind, namespace, name);
    const n = (this.inFlight.get(key) ?? 1) - 1;
    if (n > 0) this.inFlight.set(key, n);
    else this.inFlight.delete(key);
  }

  /**
   * True while the controller writes this object: a watch event for it is most likely the write itself, seen
   * before its answer, and needs no reconcile of its own.
   */
  writing(kind: ManagedKind, namespace: string, name: string): boolean {
    return this.inFlight.has(objectKey(kind, namespace, name));
  }

  /**
   * Records an object as it exists now (a watch event, a list item or a write answer). Returns true when that
   * changed what the cache holds (false for an older or the same resourceVersion). `ownWrite`: the answer to the
   * controller's own write, which holds what the run planned; it is not reported by `takeChanged` (the next run
   * need not re-check it: a change of its source or someone else's edit is reported anyway).
   */
  upsert(e: ExistingObject, ownWrite = false): boolean {
    const key = objectKey(e.kind, e.namespace, e.name);
    const cur = this.objects.get(key);
    if (cur && !replacesVersion(e.resourceVersion, cur.resourceVersion)) return false;
    if (cur) this.unindex(cur);
    this.objects.set(key, e);
    let bucket = this.bySourceIndex.get(sourceOf(e));
    if (bucket === undefined) this.bySourceIndex.set(sourceOf(e), (bucket = new Set<ExistingObject>()));
    bucket.add(e);
    if (ownWrite) this.noteTouched(key);
    else this.noteChange(key, { kind: e.kind, namespace: e.namespace, name: e.name });
    return true;
  }

  /**
   * Records a deletion. `resourceVersion` is the last version of the deleted object (watch events carry it): a
   * cached newer version (re-created since) stays. Returns true when an object was removed.
   */
  remove(kind: ManagedKind, namespace: string, name: string, resourceVersion = ''): boolean {
    const key = objectKey(kind, namespace, name);
    const cur = this.objects.get(key);
    if (!cur || olderVersion(resourceVersion, cur.resourceVersion)) return false;
    this.unindex(cur);
    this.noteChange(key, { kind, namespace, name });
    return this.objects.delete(key);
  }

  private noteChange(key: string, ref: ObjectRefKey): void {
    this.changed.set(key, ref);
    this.noteTouched(key);
  }

  private noteTouched(key: string): void {
    for (const t of this.trackers) t.add(key);
  }

  private unindex(e: ExistingObject): void {
    const bucket = this.bySourceIndex.get(sourceOf(e));
    bucket?.delete(e);
    if (bucket?.size === 0) this.bySourceIndex.delete(sourceOf(e));
  }
}
