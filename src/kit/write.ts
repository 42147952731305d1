/**
 * The contract of every write the controller makes (EnvoyFilters, gateway VirtualServices, bootstrap ConfigMaps):
 * a failed write is a SinkError, transient (retried with backoff) or terminal (reported, not retried until the
 * next change), and a run reports each failed object as a WriteFailure. Plans come from kit/diff.ts; kit/apply.ts
 * writes them.
 */
import type { ClosedGate, ControllerLoopOptions, RunOutcome } from './controller-loop.ts';
import type { RateLimiter } from '../util/rate-limit.ts';

/**
 * A failed sink operation. `transient` failures (conflicts, throttling, server errors, network) are retried with
 * backoff; the others (an invalid object) are reported and not retried until the next change, except refusals
 * (401, 403: isRefusedStatus), whose runs are retried with backoff too (classifyWriteRun).
 */
export class SinkError extends Error {
  readonly transient: boolean;
  readonly code: number | undefined;
  readonly reason: string | undefined;

  constructor(
    message: string,
    opts: { transient: boolean; code?: number; reason?: string; cause?: unknown },
  ) {
    super(message, { cause: opts.cause });
    this.name = 'SinkError';
    this.transient = opts.transient;
    this.code = opts.code;
    this.reason = opts.reason;
  }
}

/** HTTP status codes worth retrying: conflicts (re-list and re-plan), timeouts, throttling, server errors. */
export function isTransientStatus(code: number): boolean {
  return code === 409 || code === 408 || code === 429 || code >= 500;
}

export type WriteVerb = 'create' | 'update' | 'delete';

/** What one object's write failure looks like in a run report. */
export interface WriteFailure {
  readonly op: WriteVerb;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly error: SinkError;
}

/** One write of a plan: what it touches (for reports and logs) and how to do it. */
export interface WriteOp {
  readonly op: WriteVerb;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  /** The source the written object comes from (its SOURCE_ANNOTATION), when known: for convergence metrics. */
  readonly source?: string | undefined;
  /** Performs the write; a rejection of any kind becomes a WriteFailure (asSinkError). */
  readonly write: () => Promise<void>;
}

export interface ApplyOptions<O extends WriteOp> {
  /** Writes in flight at once (at least 1); ops start in list order. */
  readonly concurrency: number;
  /** Checked immediately before each write; false stops the remaining writes at once. */
  readonly mayWrite: () => boolean;
  /** Called after each write attempt, with the error when it failed. */
  readonly onWrite?: (op: O, error: SinkError | undefined) => void;
  /** Paces the writes (the process-wide `--kube-api-qps`/`--kube-api-burst` bucket): one token per write. */
  readonly limiter?: RateLimiter;
}

export interface ApplyResult {
  readonly created: number;
  readonly updated: number;
  readonly deleted: number;
  /** Every failed write, in the order they failed. */
  readonly failures: readonly WriteFailure[];
  /** True when writing stopped because mayWrite() turned false. */
  readonly interrupted: boolean;
}

/** The counts a write run reports (the reconciler's and the registry output's reports extend them). */
export interface WriteCounts {
  readonly created: number;
  readonly updated: number;
  readonly deleted: number;
  /** Objects left alone because they were current. */
  readonly unchanged: number;
  /** Objects kept although not desired (their source failed or is held). */
  readonly kept: number;
  readonly failures: readonly WriteFailure[];
  readonly interrupted: boolean;
}

/** The counts of a run that wrote, kept and failed nothing. */
export const NO_WRITES: WriteCounts = {
  created: 0,
  updated: 0,
  deleted: 0,
  unchanged: 0,
  kept: 0,
  failures: [],
  interrupted: false,
};

/** Executes writes (kit/apply.ts applyWrites, or limitedApply paced by the process-wide limit). Never rejects. */
export type ApplyWrites = <O extends WriteOp>(
  ops: readonly O[],
  options: ApplyOptions<O>,
) => Promise<ApplyResult>;

/** Anything a write threw, as a SinkError (unknown errors count as transient). */
export function asSinkError(op: string, err: unknown): SinkError {
  if (err instanceof SinkError) return err;
  return new SinkError(`${op}: ${err instanceof Error ? err.message : String(err)}`, {
    transient: true,
    cause: err,
  });
}

/** What a write controller's run report says for ControllerLoop's classification. */
export interface WriteRunLike {
  readonly skipped?: string;
  readonly listError?: SinkError;
  readonly failures: readonly WriteFailure[];
  readonly interrupted: boolean;
}

/**
 * HTTP status codes of a refusal that clears by itself (DESIGN habit 18): 403 while a ClusterRole is re-applied or
 * a binding is late, 401 while a token is rotated. Not a reason to give up: such a run is retried with the loop's
 * capped, jittered backoff, never left for the next change or the periodic resync.
 */
export function isRefusedStatus(code: number | undefined): boolean {
  return code === 401 || code === 403;
}

/** True when the run that met `e` is retried with backoff: a transient failure or a refusal. */
export function isRetried(e: SinkError): boolean {
  return e.transient || isRefusedStatus(e.code);
}

/**
 * The outcome of a run that lists, plans and writes: transient list or write failures (409 included) and
 * refusals (401, 403) retry with backoff; a run interrupted by a stop (lost leadership) re-checks soon; anything else failed or skipped waits for
 * the next change.
 */
export function classifyWriteRun(r: WriteRunLike): RunOutcome {
  if ((r.listError !== undefined && isRetried(r.listError)) || r.failures.some((f) => isRetried(f.error)))
    return 'transient';
  if (r.interrupted) return 'retry-soon';
  return r.skipped || r.listError || r.failures.length > 0 ? 'terminal' : 'ok';
}

/**
 * The loop options every list-plan-write controller shares: a run that threw becomes `empty` with a transient list
 * error naming `what`, a run skipped by a closed gate becomes `empty` with that gate, and runs are classified by
 * classifyWriteRun.
 */
export function writeRunHandlers<R extends WriteRunLike>(
  empty: R,
  what: string,
): Pick<ControllerLoopOptions<R>, 'failed' | 'skipped' | 'classify'> {
  return {
    failed: (err) => ({ ...empty, listError: asSinkError(what, err) }),
    skipped: (gate: ClosedGate) => ({ ...empty, skipped: gate }),
    classify: classifyWriteRun,
  };
}
