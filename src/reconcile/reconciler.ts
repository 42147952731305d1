/**
 * The only writer of EnvoyFilters (and gateway VirtualServices): store events are debounced, then each run
 * computes the complete desired set, reads what exists (label `manager: Aeraki`), plans with the pure diff and
 * applies the plan. Runs never overlap; a trigger during a run causes one more run right after it (a change
 * that arrives during a long first sync is applied as soon as that sync ends).
 *
 * What exists comes from the `cache` (managed-cache.ts, kept by the drift watch and by the answers to the
 * writes) once it synced; without one, or before, every run lists.
 * When the desired set carries its changes since the previous run (IncrementalGenerator) and the run saw every
 * earlier change set, it plans only what they touch against the cache (incremental-plan.ts): the sources whose
 * output or failed/held state changed, and the objects the cache saw change; `objects` stays unread. A break in
 * the change sets (a run that could not plan, a full regeneration) makes the next run list and plan everything.
 * The first run and the run after any failed write list anyway. The periodic resync (the safety net) lists in the
 * background while runs go on against the cache (existing.ts); once the list is in, a run starts at once (taking
 * every change noted so far), repairs the cache from the list, reports each difference (`onResyncRepairs`, which
 * should stay 0) and plans everything against the repaired cache.
 *
 * Safety: nothing is written before `isSynced()`; nothing is written once `stop()` was called (checked right before
 * each write: the runtime stops the reconciler on lost leadership, kit/runtime.ts, and starts it again on
 * election); while not synced the reconciler re-checks every `quietMs` (no list, no generation) so it converges
 * soon after the gate opens (calling trigger() then is still useful: it skips the wait);
 * the output of a failed or currently invalid source is kept (diff.ts); while `holdDeletes()` nothing is deleted. Transient write failures are retried
 * with capped, jittered backoff until a run succeeds; so are writes the API server refused (403, 401, 404:
 * refusals.ts, said once, counted and named by `refusalDetails()` until written); other terminal ones wait for the
 * next change. The timing is the ControllerLoop's (kit/controller-loop.ts).
 *
 * Never holding the loop (issue 40): a run's long passes (the desired set when it regenerates everything, filling
 * or repairing the cache from a list, the full diff and its ordering) run in slices of one Slicer (util/slices.ts)
 * that yield to the event loop every 20 ms. What a run plans from is fixed before its first yield (the desired
 * set, the cache's changed keys, a snapshot of what exists); a change delivered during a yield triggers the run
 * after this one, which picks it up (runs never overlap, so it waits for this one). A `stop()` during a yield ends
 * the run at that yield: nothing more is planned or written, and the next run lists.
 */
import type { ConfigIssue } from '../model/result.ts';
import { formatIssue, severityOf } from '../model/result.ts';
import type { OutputObject } from '../model/objects.ts';
import type { Logger } from '../util/logger.ts';
import { errorFields } from '../util/logger.ts';
import { systemClock, type Clock } from '../util/clock.ts';
import { ControllerLoop } from '../kit/controller-loop.ts';
import { applyWrites } from '../kit/apply.ts';
import { planWrites } from './apply.ts';
import { ConvergenceTracker, type ChangeLike, type ConvergenceRun } from './convergence.ts';
import { diffSliced, type DiffOptions, type ExistingObject, type Plan } from './diff.ts';
import { Slicer, SlicesStopped } from '../util/slices.ts';
import { ExistingReader } from './existing.ts';
import { planChangedSliced, toggled } from './incremental-plan.ts';
import { asRetried, onlyRefusals, WriteRefusals, type WriteRefusal } from './refusals.ts';
import { WriteProgress } from './progress.ts';
import { SinkError, type WriteOp } from '../kit/write.ts';
import {
  classify,
  EMPTY_RUN,
  type DesiredSet,
  type ReconcilerOptions,
  type RunReport,
} from './run-report.ts';

export { heldSourceKeys } from './run-report.ts';
export type { DesiredSet, ReconcilerOptions, RunReport, SkipReason } from './run-report.ts';

/** How a run planned. */
interface Planned {
  readonly plan: Plan;
  readonly listed: boolean;
  readonly incremental: boolean;
  readonly repairs?: number;
}

export class Reconciler {
  private readonly opts: ReconcilerOptions;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly loop: ControllerLoop<RunReport>;
  private readonly desiredMemo = new WeakMap<OutputObject, string>();
  private readonly equalMemo = new WeakMap<ExistingObject, OutputObject>();
  private lastIssues = '';
  private readonly convergence = new ConvergenceTracker();
  private readonly reader: ExistingReader;
  private readonly refusals: WriteRefusals;
  /** `changes.to` of the last run that planned (undefined: the next change-driven run lists instead). */
  private lastChanges: number | undefined;
  /** The failed and held sources of the last run that planned. */
  private lastFailed: ReadonlySet<string> = new Set();
  /** Cumulative write counters (all runs). */
  readonly totals = { runs: 0, created: 0, updated: 0, deleted: 0, failures: 0 };

  constructor(options: ReconcilerOptions) {
    this.opts = options;
    this.clock = options.clock ?? systemClock;
    this.log = options.logger.child({ component: 'reconciler', sink: options.sink.name });
    this.refusals = new WriteRefusals(this.log, options.onRefusal);
    this.reader = new ExistingReader(options.sink, options.cache, {
      // The repair run starts now and takes every change noted so far: nothing waits behind it for its debounce.
      onListed: () => {
        if (!this.loop.stopped) void this.loop.runNow();
      },
      onListFailed: (err) => {
        this.log.warn('resync list failed; the next run lists', errorFields(err));
        this.loop.trigger();
      },
    });
    const quietMs = options.quietMs ?? 1000;
    this.loop = new ControllerLoop<RunReport>({
      run: () => this.runOnce(),
      failed: (err) => this.failedRun(err),
      skipped: (gate) => ({ ...EMPTY_RUN, skipped: gate, durationMs: 0 }),
      classify,
      isSynced: options.isSynced,
      quietMs,
      maxWaitMs: options.maxWaitMs ?? 10_000,
      pollMs: quietMs,
      resyncMs: options.resyncMs ?? 300_000,
      onResync: () => this.reader.resyncNext(),
      retry: { initialMs: 500, maxMs: 30_000, ...options.retry },
      clock: this.clock,
      logger: this.log,
    });
    this.loop.onRun((report, after) => {
      this.count(report);
      if (after.outcome === 'transient')
        this.log[onlyRefusals(report) ? 'debug' : 'warn']('reconcile incomplete, retrying', {
          delayMs: after.nextInMs,
          failures: report.failures.length,
        });
    });
  }

  /** Marks the desired state dirty; a run follows after the debounce. Never blocks. */
  trigger(): void {
    this.loop.trigger();
  }

  /** Notes a store change (its `at` times the write it causes), then triggers; ignored while stopped (a standby). */
  changed(event: ChangeLike): void {
    if (this.loop.stopped) return; // its run would be a later term's, timing a change it never saw
    this.convergence.note(event);
    this.loop.trigger();
  }

  /** Starts the periodic resync and accepts triggers again (after `stop()`: a new term as leader). */
  start(): void {
    this.loop.start();
  }

  /**
   * Stops timers and waits for a run in progress; no write starts once this is called (the gate closes
   * synchronously). The refusals said so far are forgotten: the next term writes (and says) its own, and its first
   * run lists.
   */
  async stop(): Promise<void> {
    await this.loop.stop();
    this.refusals.forget();
    this.reader.listNext();
  }

  /** Called after every run (including skipped ones), after the retry or re-check of its outcome is armed. */
  onRun(listener: (r: RunReport) => void): () => void {
    return this.loop.onRun((r) => listener(r));
  }

  /** Runs now (serialised with other runs) and resolves when the run (and any re-run it caused) is over. */
  async runNow(): Promise<void> {
    if (!this.loop.stopped) await this.loop.runNow();
  }

  /** The writes refused by the API server now (their retries go on), ordered by kind, verb, code and object. */
  refused(): WriteRefusal[] {
    return this.refusals.current();
  }

  /** One `/readyz` detail per kind, verb and status code refused now (none once written). */
  refusalDetails(): string[] {
    return this.refusals.details();
  }

  /** Resolves once no run is in progress or waiting for its debounce (retry and resync timers excepted). */
  idle(): Promise<void> {
    return this.loop.idle();
  }

  private count(report: RunReport): void {
    this.totals.runs++;
    this.totals.created += report.created;
    this.totals.updated += report.updated;
    this.totals.deleted += report.deleted;
    this.totals.failures += report.failures.length;
  }

  private async runOnce(): Promise<RunReport> {
    const started = this.clock.now();
    const changes = this.convergence.begin((ms) => this.opts.onConverged?.(ms));
    const slicer = new Slicer({ ...this.opts.slices, stopped: () => this.loop.stopped });
    let desired: DesiredSet;
    let planned: Planned;
    try {
      desired = await this.opts.desired(slicer);
      planned = await this.planRun(desired, slicer);
    } catch (err) {
      this.lastChanges = undefined;
      this.convergence.restore(changes);
      if (!(err instanceof SlicesStopped)) return this.failedRun(err);
      this.reader.listNext();
      this.log.warn('run stopped while planning: the reconciler is stopping');
      return { ...EMPTY_RUN, interrupted: true, durationMs: this.clock.now() - started };
    }
    const { repairs } = planned;
    const plan = this.holdingDeletes(planned.plan);
    this.reportIssues(desired.issues);
    const result = await this.apply(plan, changes);
    this.refusals.end(!planned.incremental && !result.interrupted);
    if (result.failures.length > 0 || result.interrupted) this.reader.listNext();
    if (result.interrupted) this.log.warn('writes stopped: the reconciler is stopping');
    const report: RunReport = {
      created: result.created,
      updated: result.updated,
      deleted: result.deleted,
      unchanged: plan.unchanged,
      kept: plan.kept.length,
      failures: result.failures.map(asRetried),
      interrupted: result.interrupted,
      issues: desired.issues.filter((i) => severityOf(i) === 'error').length,
      durationMs: this.clock.now() - started,
      listed: planned.listed,
      ...(planned.incremental ? { incremental: true } : {}),
      ...(repairs !== undefined ? { repairs } : {}),
    };
    const wrote = report.created + report.updated + report.deleted > 0;
    if (!wrote && onlyRefusals(report)) {
      this.log.debug('reconciled, writes refused', { ...report, failures: report.failures.length });
    } else if (wrote || report.failures.length > 0) {
      this.log.info('reconciled', { ...report, failures: report.failures.length });
    } else {
      this.log.debug('reconciled, nothing to write', { unchanged: report.unchanged, kept: report.kept });
    }
    return report;
  }

  /**
   * The plan of a run: over the changes only when the cache is ready and this run saw every earlier change set;
   * otherwise the full desired set against the cache or, when a list is due or the change sets broke off, a list.
   */
  private async planRun(desired: DesiredSet, slicer: Slicer): Promise<Planned> {
    const failed = new Set(desired.failedSources);
    for (const s of this.opts.heldSources?.() ?? []) failed.add(s);
    const delta = desired.changes;
    const cache = this.opts.cache;
    // Taken before any list: what changes while one is in flight is re-checked by the next run.
    const existingChanged = cache?.takeChanged() ?? [];
    const continues = delta !== undefined && delta.from === this.lastChanges;
    this.lastChanges = delta?.to;
    const lastFailed = this.lastFailed;
    this.lastFailed = failed;
    if (cache && continues && this.reader.cacheReady()) {
      const sources = [...delta.sources, ...toggled(lastFailed, failed)];
      const scope = { sources, existingChanged };
      const plan = await planChangedSliced(delta, cache, scope, this.diffOptions(failed), slicer);
      return { plan, listed: false, incremental: true };
    }
    if (delta !== undefined && !continues) this.reader.listNext();
    const read = await this.reader.read(slicer);
    const plan = await diffSliced(desired.objects, read.existing, this.diffOptions(failed), slicer);
    const repairs = read.repairs;
    if (repairs !== undefined) this.reportRepairs(repairs);
    return { plan, listed: read.listed, incremental: false, ...(repairs !== undefined ? { repairs } : {}) };
  }

  /** The plan with its deletes kept while `holdDeletes()`; the next run then plans everything (lists). */
  private holdingDeletes(plan: Plan): Plan {
    if (plan.deletes.length === 0 || !this.opts.holdDeletes?.()) return plan;
    this.log.warn('deletes held: a config source knows only part of its content', {
      held: plan.deletes.length,
    });
    this.lastChanges = undefined;
    return { ...plan, deletes: [], kept: [...plan.kept, ...plan.deletes] };
  }

  private diffOptions(failed: ReadonlySet<string>): DiffOptions {
    return {
      failedSources: failed,
      desiredMemo: this.desiredMemo,
      equalMemo: this.equalMemo,
    };
  }

  /** A periodic resync's count of what the cache had wrong (repaired before this run planned). */
  private reportRepairs(repairs: number): void {
    if (repairs > 0) this.log.warn('resync repaired differences the watch had missed', { repairs });
    this.opts.onResyncRepairs?.(repairs);
  }

  private async apply(plan: Plan, changes: ConvergenceRun) {
    const ops = planWrites(plan, this.opts.sink, this.opts.cache);
    const progress = new WriteProgress(ops.length, this.clock, this.log, this.opts.progressEveryMs);
    this.refusals.begin();
    const result = await applyWrites(ops, {
      concurrency: this.opts.concurrency ?? 16,
      mayWrite: () => this.loop.mayWrite(),
      ...(this.opts.limiter ? { limiter: this.opts.limiter } : {}),
      onWrite: (op, error) => {
        progress.wrote();
        if (!error) changes.wrote(op, this.clock.now());
        if (this.refusals.wrote(op, error)) this.log.debug('write refused', { op: op.op, kind: op.kind });
        else this.logWrite(op, error);
      },
    });
    changes.finish();
    return result;
  }

  private logWrite(op: WriteOp, error: SinkError | undefined): void {
    const at = { namespace: op.namespace, name: op.name };
    if (error) this.log.warn('write failed', { op: op.op, kind: op.kind, ...at, ...errorFields(error) });
    else this.log.info(`${op.op}d ${op.kind}`, at);
  }

  /** A run that could not plan (list failed, or a bug): retried with backoff. */
  private failedRun(err: unknown): RunReport {
    this.log.error('reconcile: cannot compute or list', errorFields(err));
    const error =
      err instanceof SinkError ? err : new SinkError(String(err), { transient: true, cause: err });
    return {
      ...EMPTY_RUN,
      skipped: 'desired-failed',
      failures: [{ op: 'create', kind: '', namespace: '', name: '', error }],
      durationMs: 0,
    };
  }

  /** Logs the issues at warn level when they differ from the last run's; a warning never fails its source. */
  private reportIssues(issues: readonly ConfigIssue[]): void {
    const text = issues.map((i) => `${severityOf(i)} ${formatIssue(i)}`).join('\n');
    if (text === this.lastIssues) return;
    this.lastIssues = text;
    for (const i of issues) {
      const what = severityOf(i) === 'warning' ? 'config warning' : 'config issue';
      this.log.warn(what, { issue: formatIssue(i) });
    }
  }
}
