/**
 * Where a reconcile reads what exists: the managed cache once it synced, else (and whenever a list is due) a
 * list through the sink, whose objects are then recorded in the cache. A list is due for the first run and after
 * a failed or interrupted write (`listNext`).
 *
 * A periodic resync (`resyncNext`) with a synced cache lists in the background instead, so runs for changes go on
 * against the cache while the list is in flight (at 30,000 objects it takes seconds). The cache records every key
 * that changes meanwhile (watch events, write answers): for those the cache is at least as new as the list. Once
 * the list is in, `onListed` is called and the next read repairs the cache from it (objects the watch missed,
 * changed or deleted without an event), counts each difference, and hands back the whole repaired set so the run
 * plans everything against it.
 *
 * Filling and repairing the cache from a list runs in slices that yield to the loop (util/slices.ts): watch events
 * and write answers delivered meanwhile are recorded by the cache as they come (and reported to the next run by
 * `takeChanged`); a repair leaves alone every key the cache saw change since its list began, during the repair too.
 */
import { objectKey } from '../kit/owned-content.ts';
import type { ExistingObject } from './diff.ts';
import type { CacheTracker, ManagedCache } from './managed-cache.ts';
import type { EnvoyFilterSink, KnownObjects } from './sink.ts';
import { Slicer } from '../util/slices.ts';

/** What a run plans against. */
export interface ExistingRead {
  readonly existing: readonly ExistingObject[];
  /** True when read by a list call (inline, or a periodic resync's background list). */
  readonly listed: boolean;
  /** For a periodic resync: the differences between the cache and the list, repaired in the cache. */
  readonly repairs?: number;
}

export interface ExistingReaderOptions {
  /** Called when a background list is in and the next read would repair from it (not called after a failure). */
  readonly onListed?: () => void;
  /** Called when a background list failed; the next read lists inline. */
  readonly onListFailed?: (err: unknown) => void;
}

interface BackgroundList {
  readonly tracker: CacheTracker;
  /** Set once the list is in. */
  listed?: readonly ExistingObject[];
}

export class ExistingReader {
  private listDue = true;
  private background: BackgroundList | undefined;
  /** The cached objects, for a list to take the spec hash of an object at an unchanged resourceVersion. */
  private readonly known: KnownObjects | undefined;

  constructor(
    private readonly sink: EnvoyFilterSink,
    private readonly cache: ManagedCache | undefined,
    private readonly o: ExistingReaderOptions = {},
  ) {
    this.known = cache ? (kind, namespace, name) => cache.get(kind, namespace, name) : undefined;
  }

  /** The next read lists (a write failed: the cache may be behind). A background list in flight is dropped. */
  listNext(): void {
    this.listDue = true;
    this.dropBackground();
  }

  /**
   * A periodic resync: a background list when the cache synced (one at a time), else the next read lists.
   */
  resyncNext(): void {
    const cache = this.cache;
    if (!cache?.synced || this.listDue) {
      this.listDue = true;
      return;
    }
    if (this.background) return;
    const job: BackgroundList = { tracker: cache.track() };
    this.background = job;
    // Called from a microtask: a sink that throws instead of rejecting is handled the same way.
    Promise.resolve()
      .then(() => this.sink.list(this.known))
      .then(
        (listed) => {
          if (this.background !== job) return;
          job.listed = listed;
          this.o.onListed?.();
        },
        (err: unknown) => {
          if (this.background !== job) return;
          this.listNext();
          this.o.onListFailed?.(err);
        },
      );
  }

  /** True when the next read comes from the cache alone (synced, no list due, no resync list to apply). */
  cacheReady(): boolean {
    return this.cache?.synced === true && !this.listDue && this.background?.listed === undefined;
  }

  /**
   * Reads what exists; a failed list rejects and stays due. The cache is filled or repaired in `slicer`'s slices (a
   * stop during a yield rejects with SlicesStopped and the next read lists).
   */
  async read(slicer: Slicer = new Slicer()): Promise<ExistingRead> {
    const cache = this.cache;
    if (cache?.synced && !this.listDue) {
      const job = this.background;
      if (job?.listed === undefined) return { existing: cache.list(), listed: false };
      this.background = undefined;
      try {
        const repairs = await slicer.run(repairSteps(cache, job.listed, job.tracker.keys));
        return { existing: cache.list(), listed: true, repairs };
      } catch (err) {
        this.listDue = true; // a repair left half done: the next read lists
        throw err;
      } finally {
        job.tracker.stop();
      }
    }
    this.dropBackground();
    const existing = await this.sink.list(this.known);
    slicer.restart();
    if (cache) {
      this.listDue = true; // until the cache holds the whole list
      await slicer.each(existing, (e) => cache.upsert(e));
      cache.repaired();
    }
    this.listDue = false;
    return { existing, listed: true };
  }

  private dropBackground(): void {
    this.background?.tracker.stop();
    this.background = undefined;
  }
}

/**
 * Makes the cache agree with a list taken while `touched` keys changed in the cache (those stay as cached: the
 * cache saw them after the list began; `touched` is live, so keys that change between slices are left alone too).
 * Returns the number of keys repaired: listed but missing or at another resourceVersion in the cache, or cached but
 * not listed. A pass (util/slices.ts): pauses after each object.
 */
function* repairSteps(
  cache: ManagedCache,
  listed: readonly ExistingObject[],
  touched: ReadonlySet<string>,
): Generator<void, number, undefined> {
  let repairs = 0;
  const keys = new Set<string>();
  for (const e of listed) {
    yield;
    const key = objectKey(e.kind, e.namespace, e.name);
    keys.add(key);
    if (touched.has(key)) continue;
    if (cache.get(e.kind, e.namespace, e.name)?.resourceVersion === e.resourceVersion) continue;
    repairs++;
    cache.upsert(e);
  }
  for (const e of cache.list()) {
    yield;
    const key = objectKey(e.kind, e.namespace, e.name);
    if (keys.has(key) || touched.has(key)) continue;
    repairs++;
    cache.remove(e.kind, e.namespace, e.name);
  }
  return repairs;
}
