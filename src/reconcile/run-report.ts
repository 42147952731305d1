/**
 * The reconciler's contract (reconciler.ts): the desired set it plans from, its options, and the report of each
 * run, with how a report decides the next run.
 */
import type { OutputObject } from '../model/objects.ts';
import type { ConfigIssue, ObjectRef } from '../model/result.ts';
import { sourceKey } from '../model/names.ts';
import { NO_WRITES, type WriteCounts } from '../kit/write.ts';
import type { BackoffOptions } from '../util/backoff.ts';
import type { Clock } from '../util/clock.ts';
import type { Slicer, SliceOptions } from '../util/slices.ts';
import type { RunOutcome } from '../kit/controller-loop.ts';
import type { Logger } from '../util/logger.ts';
import type { RateLimiter } from '../util/rate-limit.ts';
import type { DesiredChanges } from '../kit/incremental/desired-changes.ts';
import type { ManagedCache } from './managed-cache.ts';
import type { EnvoyFilterSink } from './sink.ts';

/** What generateAll returns (src/envoyfilter/generate-all.ts); structural so tests can inject anything. */
export interface DesiredSet {
  readonly objects: readonly OutputObject[];
  readonly issues: readonly ConfigIssue[];
  readonly failedSources: ReadonlySet<string>;
  /**
   * What changed since the previous call (IncrementalGenerator): a run that saw every earlier change set and
   * plans against the synced cache diffs only what these changes touch (incremental-plan.ts) and leaves
   * `objects` unread.
   */
  readonly changes?: DesiredChanges;
}

export interface ReconcilerOptions {
  readonly sink: EnvoyFilterSink;
  /**
   * Computes the complete desired set (pure; called once per run). A long computation may run in the slices of
   * `slicer` (the run's: it rejects with SlicesStopped once the reconciler stopped during a yield).
   */
  readonly desired: (slicer: Slicer) => DesiredSet | Promise<DesiredSet>;
  /** Source keys (`ServiceEntry/<ns>/<name>`) that are invalid right now (store rejections): output kept. */
  readonly heldSources?: () => Iterable<string>;
  /**
   * True while a source knows only part of its content (a config file never read well): planned deletes are kept
   * instead, and once it turns false a run (triggered by the caller) plans everything again.
   */
  readonly holdDeletes?: () => boolean;
  /** Every source has synced once (re-checked every quietMs while false). */
  readonly isSynced: () => boolean;
  readonly quietMs?: number;
  readonly maxWaitMs?: number;
  /** Periodic full resync (default 5 minutes; 0 disables). */
  readonly resyncMs?: number;
  readonly retry?: BackoffOptions;
  /** Writes in flight at once (default 16). */
  readonly concurrency?: number;
  /** Paces every write (the process-wide `--kube-api-qps` bucket); default unlimited. */
  readonly limiter?: RateLimiter;
  /** The managed objects as the drift watch sees them; runs plan against it once synced (no list). */
  readonly cache?: ManagedCache;
  /** Called after each periodic resync with the number of differences it repaired. */
  readonly onResyncRepairs?: (count: number) => void;
  /** Called once per write the API server refused (403, 401, 404; refusals.ts), before its retry. */
  readonly onRefusal?: (r: { kind: string; verb: 'create' | 'update' | 'delete'; code: number }) => void;
  /** Called once per noted change with the ms from its store event to the write it caused. */
  readonly onConverged?: (ms: number) => void;
  /** Interval of the progress lines of a long run of writes (default 5 s). */
  readonly progressEveryMs?: number;
  /** How runs yield to the loop (util/slices.ts; tests inject the clock and the yield); default every 20 ms. */
  readonly slices?: Omit<SliceOptions, 'stopped'>;
  readonly clock?: Clock;
  readonly logger: Logger;
}

export type SkipReason = 'not-synced' | 'desired-failed';

export interface RunReport extends WriteCounts {
  readonly skipped?: SkipReason;
  /** Errors among the desired set's issues (warnings are logged, not counted). */
  readonly issues: number;
  /** True when the run listed what exists instead of reading the cache. */
  readonly listed?: boolean;
  /** True when the run planned only what the desired set's changes touch (its counts cover that part). */
  readonly incremental?: boolean;
  /** Differences between the cache and the API server found by a periodic resync (repaired by its writes). */
  readonly repairs?: number;
  /** Wall time of the run by the reconciler's clock (planning and writes; 0 for skipped runs). */
  readonly durationMs?: number;
}

/**
 * Source keys of the ServiceEntries, Services and Gateways a store currently rejects as invalid (ConfigStore.rejected()):
 * pass as `heldSources` so their previous output is kept.
 */
export function heldSourceKeys(rejected: readonly { readonly ref: ObjectRef }[]): string[] {
  const out: string[] = [];
  for (const { ref } of rejected) {
    if (ref.kind === 'ServiceEntry' || ref.kind === 'Service' || ref.kind === 'Gateway')
      out.push(sourceKey(ref.kind, ref.namespace, ref.name));
  }
  return out;
}

/** The counts of a run that wrote nothing. */
export const EMPTY_RUN: Omit<RunReport, 'skipped'> = { ...NO_WRITES, issues: 0 };

/** Transient failures (and runs that could not plan) retry; a run interrupted by a stop re-checks soon. */
export function classify(report: RunReport): RunOutcome {
  if (report.skipped === 'desired-failed' || report.failures.some((f) => f.error.transient))
    return 'transient';
  if (report.interrupted) return 'retry-soon';
  return report.failures.length === 0 ? 'ok' : 'terminal';
}
