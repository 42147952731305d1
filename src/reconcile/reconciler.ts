/**
 * The only writer of EnvoyFilters (and gateway VirtualServices): store events are debounced, then each run
 * computes the complete desired set, lists what exists (label `manager: Aeraki`), plans with the pure diff and
 * applies the plan. Runs never overlap; a trigger during a run causes one more run after it.
 *
 * Safety: nothing is written before `isSynced()`; nothing is written unless `isLeader()` right before the write;
 * while either gate is closed the reconciler re-checks every `quietMs` (no list, no generation) so it converges
 * soon after the gate opens (calling trigger() then is still useful: it skips the wait);
 * the output of a failed or currently invalid source is kept (diff.ts). Transient write failures are retried
 * with capped, jittered backoff until a run succeeds; terminal ones wait for the next change.
 */
import type { ConfigIssue, ObjectRef } from '../model/result.ts';
import { formatIssue } from '../model/result.ts';
import type { OutputObject } from '../model/objects.ts';
import type { Logger } from '../util/logger.ts';
import { errorFields } from '../util/logger.ts';
import { Backoff, type BackoffOptions } from '../util/backoff.ts';
import { systemClock, type Clock, type TimerHandle } from '../util/clock.ts';
import { createDebouncer, type Debouncer } from '../util/debounce.ts';
import { applyPlan } from './apply.ts';
import { diff } from './diff.ts';
import { sourceKey } from '../model/names.ts';
import { SinkError, type WriteFailure } from '../model/write.ts';
import type { EnvoyFilterSink } from './sink.ts';

/** What generateAll returns (src/envoyfilter/generate-all.ts); structural so tests can inject anything. */
export interface DesiredSet {
  readonly objects: readonly OutputObject[];
  readonly issues: readonly ConfigIssue[];
  readonly failedSources: ReadonlySet<string>;
}

export interface ReconcilerOptions {
  readonly sink: EnvoyFilterSink;
  /** Computes the complete desired set (pure; called once per run). */
  readonly desired: () => DesiredSet;
  /** Source keys (`ServiceEntry/<ns>/<name>`) that are invalid right now (store rejections): output kept. */
  readonly heldSources?: () => Iterable<string>;
  /** Every source has synced once (re-checked every quietMs while false). */
  readonly isSynced: () => boolean;
  /** Leadership, checked before each write (default: always leader; re-checked every quietMs while false). */
  readonly isLeader?: () => boolean;
  readonly quietMs?: number;
  readonly maxWaitMs?: number;
  /** Periodic full resync (default 5 minutes; 0 disables). */
  readonly resyncMs?: number;
  readonly retry?: BackoffOptions;
  readonly concurrency?: number;
  readonly clock?: Clock;
  readonly logger: Logger;
}

export type SkipReason = 'not-synced' | 'not-leader' | 'desired-failed';

export interface RunReport {
  readonly skipped?: SkipReason;
  readonly created: number;
  readonly updated: number;
  readonly deleted: number;
  readonly unchanged: number;
  readonly kept: number;
  readonly failures: readonly WriteFailure[];
  readonly interrupted: boolean;
  readonly issues: number;
  /** Wall time of the run by the reconciler's clock (planning and writes; 0 for skipped runs). */
  readonly durationMs?: number;
}

/**
 * Source keys of the ServiceEntries and Gateways a store currently rejects as invalid (ConfigStore.rejected()):
 * pass as `heldSources` so their previous output is kept.
 */
export function heldSourceKeys(rejected: readonly { readonly ref: ObjectRef }[]): string[] {
  const out: string[] = [];
  for (const { ref } of rejected) {
    if (ref.kind === 'ServiceEntry' || ref.kind === 'Gateway')
      out.push(sourceKey(ref.kind, ref.namespace, ref.name));
  }
  return out;
}

const EMPTY: Omit<RunReport, 'skipped'> = {
  created: 0,
  updated: 0,
  deleted: 0,
  unchanged: 0,
  kept: 0,
  failures: [],
  interrupted: false,
  issues: 0,
};

export class Reconciler {
  private readonly opts: ReconcilerOptions;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly debouncer: Debouncer;
  private readonly backoff: Backoff;
  private readonly pollMs: number;
  private readonly hashMemo = new Map<string, string>();
  private readonly listeners: ((r: RunReport) => void)[] = [];
  private running: Promise<void> | undefined;
  private rerun = false;
  private stopped = false;
  private retryTimer: TimerHandle | undefined;
  private resyncTimer: TimerHandle | undefined;
  private lastIssues = '';
  /** Cumulative write counters (all runs). */
  readonly totals = { runs: 0, created: 0, updated: 0, deleted: 0, failures: 0 };

  constructor(options: ReconcilerOptions) {
    this.opts = options;
    this.clock = options.clock ?? systemClock;
    this.log = options.logger.child({ component: 'reconciler', sink: options.sink.name });
    this.debouncer = createDebouncer(() => this.kick(), {
      quietMs: options.quietMs ?? 1000,
      maxWaitMs: options.maxWaitMs ?? 10_000,
    });
    this.pollMs = options.quietMs ?? 1000;
    this.backoff = new Backoff({ initialMs: 500, maxMs: 30_000, ...options.retry });
  }

  /** Marks the desired state dirty; a run follows after the debounce. Never blocks. */
  trigger(): void {
    if (!this.stopped) this.debouncer.trigger();
  }

  /** Starts the periodic resync. */
  start(): void {
    this.stopped = false;
    this.scheduleResync();
  }

  /** Stops timers and waits for a run in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.debouncer.cancel();
    if (this.retryTimer) this.clock.clearTimeout(this.retryTimer);
    if (this.resyncTimer) this.clock.clearTimeout(this.resyncTimer);
    this.retryTimer = this.resyncTimer = undefined;
    await this.running;
  }

  /** Called after every run (including skipped ones). */
  onRun(listener: (r: RunReport) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  /** Runs now (serialised with other runs) and resolves when the run (and any re-run it caused) is over. */
  async runNow(): Promise<void> {
    this.kick();
    await this.running;
  }

  private kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.rerun = true;
      return;
    }
    this.running = this.loop();
  }

  private async loop(): Promise<void> {
    try {
      do {
        this.rerun = false;
        const started = this.clock.now();
        const report = await this.runOnce().catch((err: unknown) => this.failedRun(err));
        this.afterRun({ ...report, durationMs: report.skipped ? 0 : this.clock.now() - started });
      } while (this.rerun && !this.stopped);
    } finally {
      // Synchronously after the last check of `rerun`: a kick() from now on starts a new loop.
      this.running = undefined;
    }
  }

  private afterRun(report: RunReport): void {
    this.totals.runs++;
    this.totals.created += report.created;
    this.totals.updated += report.updated;
    this.totals.deleted += report.deleted;
    this.totals.failures += report.failures.length;
    if (this.retryTimer) this.clock.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const transient = report.skipped === 'desired-failed' || report.failures.some((f) => f.error.transient);
    let delay: number | undefined;
    if (transient) {
      delay = this.backoff.next();
      this.log.warn('reconcile incomplete, retrying', { delayMs: delay, failures: report.failures.length });
    } else if (report.skipped === 'not-synced' || report.skipped === 'not-leader' || report.interrupted) {
      // Cheap re-check (no list happens before both gates pass): converges even if nobody calls trigger().
      delay = this.pollMs;
    } else if (report.failures.length === 0) {
      this.backoff.reset();
    }
    if (delay !== undefined && !this.stopped) {
      this.retryTimer = this.clock.setTimeout(() => {
        this.retryTimer = undefined;
        this.kick();
      }, delay);
    }
    for (const l of [...this.listeners]) l(report);
  }

  private scheduleResync(): void {
    const every = this.opts.resyncMs ?? 300_000;
    if (every <= 0 || this.stopped) return;
    this.resyncTimer = this.clock.setTimeout(() => {
      this.trigger();
      this.scheduleResync();
    }, every);
  }

  private mayWrite(): boolean {
    return !this.stopped && (this.opts.isLeader?.() ?? true);
  }

  private async runOnce(): Promise<RunReport> {
    if (!this.opts.isSynced()) return { ...EMPTY, skipped: 'not-synced' };
    if (!this.mayWrite()) return { ...EMPTY, skipped: 'not-leader' };
    let desired: DesiredSet;
    let existing;
    try {
      desired = this.opts.desired();
      existing = await this.opts.sink.list();
    } catch (err) {
      return this.failedRun(err);
    }
    this.reportIssues(desired.issues);
    const failed = new Set(desired.failedSources);
    for (const s of this.opts.heldSources?.() ?? []) failed.add(s);
    this.pruneMemo(existing.length);
    const plan = diff(desired.objects, existing, { failedSources: failed, hashMemo: this.hashMemo });
    const result = await applyPlan(plan, this.opts.sink, {
      concurrency: this.opts.concurrency ?? 16,
      mayWrite: () => this.mayWrite(),
      logger: this.log,
    });
    for (const f of result.failures) {
      this.log.warn('write failed', {
        op: f.op,
        kind: f.kind,
        namespace: f.namespace,
        name: f.name,
        ...errorFields(f.error),
      });
    }
    if (result.interrupted) this.log.warn('writes stopped: no longer leader');
    const report: RunReport = {
      created: result.created,
      updated: result.updated,
      deleted: result.deleted,
      unchanged: plan.unchanged,
      kept: plan.kept.length,
      failures: result.failures,
      interrupted: result.interrupted,
      issues: desired.issues.length,
    };
    if (report.created + report.updated + report.deleted + report.failures.length > 0) {
      this.log.info('reconciled', { ...report, failures: report.failures.length });
    } else {
      this.log.debug('reconciled, nothing to write', { unchanged: report.unchanged, kept: report.kept });
    }
    return report;
  }

  /** A run that could not plan (list failed, or a bug): retried with backoff. */
  private failedRun(err: unknown): RunReport {
    this.log.error('reconcile: cannot compute or list', errorFields(err));
    const error =
      err instanceof SinkError ? err : new SinkError(String(err), { transient: true, cause: err });
    return {
      ...EMPTY,
      skipped: 'desired-failed',
      failures: [{ op: 'create', kind: '', namespace: '', name: '', error }],
    };
  }

  private reportIssues(issues: readonly ConfigIssue[]): void {
    const text = issues.map(formatIssue).join('\n');
    if (text === this.lastIssues) return;
    this.lastIssues = text;
    for (const i of issues) this.log.warn('config issue', { issue: formatIssue(i) });
  }

  /** Keeps the memo bounded: entries of old resourceVersions are dropped once it outgrows the existing set. */
  private pruneMemo(existingCount: number): void {
    if (this.hashMemo.size > existingCount * 2 + 1000) this.hashMemo.clear();
  }
}
