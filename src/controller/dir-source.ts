/**
 * The directory config source of `aeraki serve --config-source dir`: loads every file under a directory into the
 * store (full replacement, src/controller/file-source.ts fillStore) at start, then re-loads after every change,
 * debounced. An object naming a Secret the files do not hold, or one that cannot serve it, is rejected as the
 * Kubernetes source rejects it (secret-gate.ts): its last valid version stays, or its hosts are held. Each file keeps its last good read (dir-files.ts): a file that cannot be read, decoded or parsed keeps
 * its objects in effect and is reported (error log once per change, `problems()` for /debug/config and the
 * metric); a file failing since start makes the source `partial` (the reconciler holds deletions meanwhile), unless
 * the state file (`stateFile`, dir-state-keeper.ts) holds its last good read of before the restart: then that read
 * is in effect, reported as such. The state file is written after every load whose good reads changed.
 * Changes are noticed by fs.watch (recursive) and, as a safety net for file systems where watch
 * events are lost, by polling a cheap signature (paths, sizes, mtimes) every `pollMs`. The store emits events
 * only for objects that really changed, so a spurious reload costs nothing downstream. The re-loads are the runs
 * of a ControllerLoop (its debounce, on the clock), and the polling is on the same clock.
 */
import { watch, type FSWatcher } from 'node:fs';
import { statSync } from 'node:fs';
import { DEFAULT_FILE_LIMITS, describeFileError, type FileLimits } from './config-file.ts';
import { DirFiles, type FileProblem } from './dir-files.ts';
import { fillAmbient, readAmbientObjects } from './ambient-reads.ts';
import { DirStateKeeper } from './dir-state-keeper.ts';
import { fileIssue, fillStore, listConfigFiles } from './file-source.ts';
import { parseRawObjects } from '../model/parse/objects.ts';
import { mergeKeyIssue } from '../model/parse/merge-keys.ts';
import type { ConfigStore } from './store.ts';
import { errorFields, type Logger } from '../util/logger.ts';
import { formatIssue, type ConfigIssue } from '../model/result.ts';
import { systemClock, type Clock, type TimerHandle } from '../util/clock.ts';
import { ControllerLoop } from '../kit/controller-loop.ts';
import { secretRefReader } from '../model/kinds.ts';
import type { ConfigKind } from '../model/objects.ts';
import { gateSecretRefs, type SecretGateOptions } from './secret-gate.ts';

export interface DirSourceOptions {
  readonly dir: string;
  readonly store: ConfigStore;
  readonly rootNamespace: string;
  /** Quiet period after the last change before re-reading (ms). */
  readonly debounceMs: number;
  /** Signature poll interval (ms; 0 disables polling). Default: 4 × debounceMs, at least 500. */
  readonly pollMs?: number;
  /** What one file may cost (default DEFAULT_FILE_LIMITS). */
  readonly limits?: FileLimits;
  /** The clock of the debounce and of the polling (default the system clock). */
  readonly clock?: Clock;
  /** The state file keeping the files' last good reads across restarts (dir-state.ts); absent: none. */
  readonly stateFile?: string;
  /**
   * Read ambient inputs too (Namespaces, Gateway API Gateways and GatewayClasses: ambient-reads.ts) into the
   * store's AmbientView (default false: read only what is referenced).
   */
  readonly ambient?: boolean;
  /** The largest state file read or written (default MAX_DIR_STATE_BYTES). */
  readonly stateMaxBytes?: number;
  readonly logger: Logger;
}

export class DirSource {
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly loop: ControllerLoop<void>;
  private watcher: FSWatcher | undefined;
  private poller: TimerHandle | undefined;
  private signature = '';
  private lastIssues = new Set<string>();
  private readonly files: DirFiles;
  private readonly state: DirStateKeeper | undefined;
  private lastProblems = new Map<string, string>();
  private readonly listeners = new Set<() => void>();
  private loadedOnce = false;
  /** The Secrets the plugins' kinds name (secret-gate.ts). */
  private readonly secretRefs: SecretGateOptions;
  /** Number of loads so far. */
  loads = 0;

  constructor(private readonly o: DirSourceOptions) {
    this.log = o.logger.child({ component: 'dir-source', dir: o.dir });
    const ctx = {
      rootNamespace: o.rootNamespace,
      options: { clusterDomain: o.store.clusterDomain, kinds: o.store.kinds },
    };
    this.state =
      o.stateFile === undefined || o.stateFile === ''
        ? undefined
        : new DirStateKeeper(o.stateFile, ctx, this.log, o.stateMaxBytes);
    this.files = new DirFiles(o.dir, o.limits ?? DEFAULT_FILE_LIMITS, this.state?.restore());
    this.clock = o.clock ?? systemClock;
    this.secretRefs = secretRefReader(o.store.kinds);
    // No gates, no retries (a file that cannot be read keeps its last good objects; the next change re-reads), no
    // resync (the polling is the safety net).
    this.loop = new ControllerLoop<void>({
      run: () => new Promise((resolve) => resolve(this.reload())),
      failed: () => undefined,
      skipped: () => undefined,
      classify: () => 'ok',
      quietMs: o.debounceMs,
      maxWaitMs: Math.max(o.debounceMs * 10, 1000),
      pollMs: 0,
      resyncMs: 0,
      retry: { initialMs: 500, maxMs: 30_000 },
      clock: this.clock,
      logger: this.log,
    });
  }

  get synced(): boolean {
    return this.loadedOnce;
  }

  /** True while a file fails with no last good read since start: deletions must wait (partial knowledge). */
  get partial(): boolean {
    return this.files.partial;
  }

  /** The files that cannot be used right now (path, parser position, whether last good objects stay). */
  problems(): FileProblem[] {
    return this.files.problems();
  }

  /** Calls `listener` after each load that changed the set of failing files (or `partial`). */
  onProblemsChanged(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Loads once (synchronously) and starts watching. */
  start(): void {
    this.load();
    try {
      this.watcher = watch(this.o.dir, { recursive: true }, () => this.loop.trigger());
      this.watcher.on('error', (err) => {
        this.log.warn('watch failed; relying on polling', errorFields(err));
        this.watcher?.close();
        this.watcher = undefined;
      });
    } catch (err) {
      this.log.warn('cannot watch the directory; relying on polling', errorFields(err));
    }
    const pollMs = this.o.pollMs ?? Math.max(500, this.o.debounceMs * 4);
    if (pollMs > 0) this.poll(pollMs);
  }

  /** Resolves once no re-load is pending or in progress (with a manual clock, advance it past the debounce first). */
  idle(): Promise<void> {
    return this.loop.idle();
  }

  async stop(): Promise<void> {
    this.watcher?.close();
    this.watcher = undefined;
    if (this.poller !== undefined) this.clock.clearTimeout(this.poller);
    this.poller = undefined;
    await this.loop.stop();
  }

  /** Every `pollMs`: a re-load is requested when the signature changed. */
  private poll(pollMs: number): void {
    this.poller = this.clock.setTimeout(() => {
      if (this.currentSignature() !== this.signature) this.loop.trigger();
      this.poll(pollMs);
    }, pollMs);
  }

  /** load() for the watch: a bug while loading is logged, never thrown into the timer (the process stays up). */
  private reload(): void {
    try {
      this.load();
    } catch (err) {
      this.log.error('cannot re-read the config directory', errorFields(err));
    }
  }

  /** Re-reads the directory now and replaces the store's content. */
  load(): void {
    this.signature = this.currentSignature();
    const content = this.files.read();
    // As render, validate and analyze read files (file-source.ts readRawObjects): an object written with a YAML
    // merge key is refused with an error at the key, not parsed into "required field is missing".
    const raws = content.raws.filter((raw) => {
      const merge = mergeKeyIssue(raw, this.o.store.kinds);
      if (merge !== undefined) content.issues.push(merge);
      return merge === undefined;
    });
    const parsed = parseRawObjects(raws, this.o.rootNamespace, content.issues, {
      clusterDomain: this.o.store.clusterDomain,
      kinds: this.o.store.kinds,
    });
    const store = this.o.store;
    const loaded = gateSecretRefs(parsed, this.secretRefs, (kind, namespace, name) =>
      store.get(kind as ConfigKind, namespace, name),
    );
    fillStore(this.o.store, loaded);
    const ambient = this.o.ambient === true ? readAmbientObjects(raws) : undefined;
    if (ambient) fillAmbient(this.o.store.readsAmbient(), ambient);
    this.loads++;
    this.state?.save(this.files.goodReads());
    this.reportProblems();
    const fileErrors = new Set(this.problems().map((p) => formatIssue(fileIssue(p))));
    const issues = ambient ? [...loaded.issues, ...ambient.issues] : loaded.issues;
    this.reportIssues(issues.filter((i) => !fileErrors.has(formatIssue(i))));
    const counts: Record<string, number> = {};
    for (const obj of loaded.objects) counts[obj.kind] = (counts[obj.kind] ?? 0) + 1;
    const fields = { objects: loaded.objects.length, rejected: loaded.rejected.length, byKind: counts };
    if (this.loadedOnce) this.log.info('config directory re-read', fields);
    else this.log.info('config directory loaded', fields);
    this.loadedOnce = true;
  }

  /** Logs each file that starts failing (or fails differently) at error, each that recovers at info. */
  private reportProblems(): void {
    const now = new Map(this.problems().map((p) => [p.path, p]));
    const texts = new Map(
      [...now].map(([path, p]) => [path, `${describeFileError(p)}/${p.lastGood}/${p.restored === true}`]),
    );
    for (const [path, p] of now) {
      if (this.lastProblems.get(path) === texts.get(path)) continue;
      const fields = {
        file: path,
        error: p.message,
        ...(p.line !== undefined ? { line: p.line, column: p.column } : {}),
      };
      if (p.restored)
        this.log.error(
          'config file cannot be used; its last good read of before the restart (from the state file) is in effect',
          { ...fields, stateFile: this.state?.file },
        );
      else if (p.lastGood)
        this.log.error('config file cannot be used; its last good objects stay in effect', fields);
      else
        this.log.error(
          'config file cannot be used and was never read well: its objects are unknown, deletions are held until it is fixed or removed',
          fields,
        );
    }
    for (const path of this.lastProblems.keys()) {
      if (now.has(path)) continue;
      if (this.files.has(path)) this.log.info('config file readable again', { file: path });
      else
        this.log.info('config file that could not be used was removed: nothing of it is in effect any more', {
          file: path,
        });
    }
    const changed = [...texts].join('\n') !== [...this.lastProblems].join('\n');
    this.lastProblems = texts;
    if (changed) for (const l of this.listeners) l();
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
          return `${f}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
        } catch {
          return `${f}:gone`;
        }
      })
      .join('\n');
  }
}
