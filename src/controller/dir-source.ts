/**
 * The directory config source of `aeraki serve --config-source dir`: loads every file under a directory into the
 * store (full replacement, src/controller/file-source.ts fillStore) at start, then re-loads after every change,
 * debounced. Changes are noticed by fs.watch (recursive) and, as a safety net for file systems where watch
 * events are lost, by polling a cheap signature (paths, sizes, mtimes) every `pollMs`. The store emits events
 * only for objects that really changed, so a spurious reload costs nothing downstream.
 */
import { watch, type FSWatcher } from 'node:fs';
import { statSync } from 'node:fs';
import { fillStore, listConfigFiles, loadConfigFiles } from './file-source.ts';
import type { ConfigStore } from './store.ts';
import { errorFields, type Logger } from '../util/logger.ts';
import { formatIssue, type ConfigIssue } from '../model/result.ts';
import { createDebouncer, type Debouncer } from '../util/debounce.ts';

export interface DirSourceOptions {
  readonly dir: string;
  readonly store: ConfigStore;
  readonly rootNamespace: string;
  /** Quiet period after the last change before re-reading (ms). */
  readonly debounceMs: number;
  /** Signature poll interval (ms; 0 disables polling). Default: 4 × debounceMs, at least 500. */
  readonly pollMs?: number;
  readonly logger: Logger;
}

export class DirSource {
  private readonly log: Logger;
  private readonly debouncer: Debouncer;
  private watcher: FSWatcher | undefined;
  private poller: NodeJS.Timeout | undefined;
  private signature = '';
  private lastIssues = new Set<string>();
  private loadedOnce = false;
  /** Number of loads so far. */
  loads = 0;

  constructor(private readonly o: DirSourceOptions) {
    this.log = o.logger.child({ component: 'dir-source', dir: o.dir });
    this.debouncer = createDebouncer(() => this.load(), {
      quietMs: o.debounceMs,
      maxWaitMs: Math.max(o.debounceMs * 10, 1000),
    });
  }

  get synced(): boolean {
    return this.loadedOnce;
  }

  /** Loads once (synchronously) and starts watching. */
  start(): void {
    this.load();
    try {
      this.watcher = watch(this.o.dir, { recursive: true }, () => this.debouncer.trigger());
      this.watcher.on('error', (err) => {
        this.log.warn('watch failed; relying on polling', errorFields(err));
        this.watcher?.close();
        this.watcher = undefined;
      });
    } catch (err) {
      this.log.warn('cannot watch the directory; relying on polling', errorFields(err));
    }
    const pollMs = this.o.pollMs ?? Math.max(500, this.o.debounceMs * 4);
    if (pollMs > 0) {
      this.poller = setInterval(() => {
        if (this.currentSignature() !== this.signature) this.debouncer.trigger();
      }, pollMs);
      this.poller.unref();
    }
  }

  stop(): Promise<void> {
    this.debouncer.cancel();
    this.watcher?.close();
    this.watcher = undefined;
    if (this.poller) clearInterval(this.poller);
    this.poller = undefined;
    return Promise.resolve();
  }

  /** Re-reads the directory now and replaces the store's content. */
  load(): void {
    this.signature = this.currentSignature();
    const loaded = loadConfigFiles([this.o.dir], {
      rootNamespace: this.o.rootNamespace,
      clusterDomain: this.o.store.clusterDomain,
    });
    fillStore(this.o.store, loaded);
    this.loads++;
    this.reportIssues(loaded.issues);
    const counts: Record<string, number> = {};
    for (const obj of loaded.objects) counts[obj.kind] = (counts[obj.kind] ?? 0) + 1;
    const fields = { objects: loaded.objects.length, rejected: loaded.rejected.length, byKind: counts };
    if (this.loadedOnce) this.log.info('config directory re-read', fields);
    else this.log.info('config directory loaded', fields);
    this.loadedOnce = true;
  }

  private reportIssues(issues: readonly ConfigIssue[]): void {
    const now = new Set(issues.map(formatIssue));
    for (const text of now) if (!this.lastIssues.has(text)) this.log.warn('config issue', { issue: text });
    this.lastIssues = now;
  }

  private currentSignature(): string {
    const files = listConfigFiles([this.o.dir], []);
    return files
      .map((f) => {
        try {
          const s = statSync(f);
          return `${f}:${s.size}:${s.mtimeMs}`;
        } catch {
          return `${f}:gone`;
        }
      })
      .join('\n');
  }
}
