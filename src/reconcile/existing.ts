/**
 * Where a reconcile reads what exists: the managed cache once it synced, else (and whenever a list is due) a
 * list through the sink, whose objects are then recorded in the cache. A list is due for the first run, after a
 * failed or interrupted write (`listNext`), and for a periodic resync (`resyncNext`), which also keeps the
 * cache's view so the reconciler can count what the list repaired.
 */
import type { ExistingObject } from './diff.ts';
import type { ManagedCache } from './managed-cache.ts';
import type { EnvoyFilterSink } from './sink.ts';

/** What a run plans against. */
export interface ExistingRead {
  readonly existing: readonly ExistingObject[];
  /** True when read by a list call. */
  readonly listed: boolean;
  /** The cache's view before a periodic resync's list (to count repairs); absent otherwise. */
  readonly cached?: readonly ExistingObject[];
}

export class ExistingReader {
  private listDue = true;
  private resyncDue = false;

  constructor(
    private readonly sink: EnvoyFilterSink,
    private readonly cache: ManagedCache | undefined,
  ) {}

  /** The next read lists (a write failed: the cache may be behind). */
  listNext(): void {
    this.listDue = true;
  }

  /** The next read is a periodic resync: it lists and keeps the cache's view. */
  resyncNext(): void {
    this.listDue = true;
    this.resyncDue = true;
  }

  /** True when the next read comes from the cache (synced, and no list due). */
  cacheReady(): boolean {
    return this.cache?.synced === true && !this.listDue;
  }

  /** Reads what exists; a failed list rejects and stays due. */
  async read(): Promise<ExistingRead> {
    const cache = this.cache;
    if (cache?.synced && !this.listDue) return { existing: cache.list(), listed: false };
    const cached = cache?.synced && this.resyncDue ? cache.list() : undefined;
    const existing = await this.sink.list();
    this.listDue = false;
    this.resyncDue = false;
    if (cache) {
      for (const e of existing) cache.upsert(e);
      cache.repaired();
    }
    return { existing, listed: true, ...(cached ? { cached } : {}) };
  }
}
