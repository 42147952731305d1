/**
 * One controller loop on the Clock: debounced requests, serialised runs, classified outcomes (retry with backoff,
 * re-check a closed gate soon, or wait for the next change), a periodic resync, and a synced gate. Writes are
 * allowed while the loop is not stopped (`mayWrite()`): a part that needs the leader is started on election and
 * stopped on loss by the runtime (kit/runtime.ts), whose stop closes the gate synchronously.
 */
import { Backoff, type BackoffOptions } from '../util/backoff.ts';
import { systemClock, type Clock, type TimerHandle } from '../util/clock.ts';
import { errorFields, type Logger } from '../util/logger.ts';
import { createDebouncer, type Debouncer } from './debounce.ts';

/**
 * How a run ended, which decides when the next one comes without a new request:
 * - `ok`: nothing more to do; the retry backoff is reset;
 * - `transient`: retried after the next delay of the capped, jittered backoff;
 * - `retry-soon`: not finished through no fault (a gate closed); re-checked after `pollMs`, backoff unchanged;
 * - `terminal`: failed in a way retrying cannot fix; waits for the next request (or resync).
 */
export type RunOutcome = 'ok' | 'transient' | 'retry-soon' | 'terminal';

/** Why a run was skipped without calling `run`. */
export type ClosedGate = 'not-synced';

/** What the loop decided after a run: its outcome and, when one is armed, the delay of the next run. */
export interface AfterRun {
  readonly outcome: RunOutcome;
  readonly nextInMs?: number;
}

export type RunListener<R> = (result: R, after: AfterRun) => void;

export interface ControllerLoopOptions<R> {
  /** One run. Never called while another is in progress, and only when the synced gate is open. */
  readonly run: () => Promise<R>;
  /** The result of a run whose promise rejected (a bug or an unexpected error); classified like any result. */
  readonly failed: (err: unknown) => R;
  /** The result of a run skipped because a gate is closed (outcome `retry-soon`). */
  readonly skipped: (gate: ClosedGate) => R;
  readonly classify: (result: R) => RunOutcome;
  /** Checked before each run (default: always synced). */
  readonly isSynced?: (() => boolean) | undefined;
  /**
   * Debounce (kit/debounce.ts, on `clock`): a run follows `quietMs` after the last request, and at most `maxWaitMs`
   * after the first of a burst.
   */
  readonly quietMs: number;
  readonly maxWaitMs: number;
  /** Delay before re-checking after a `retry-soon` run. */
  readonly pollMs: number;
  /** Period of the resync after `start()` (a debounced request); 0 disables. */
  readonly resyncMs: number;
  /** Called when a periodic resync requests its run, before the request (the run it causes may be shared). */
  readonly onResync?: () => void;
  readonly retry: BackoffOptions;
  readonly clock: Clock;
  /** Where a throwing listener is reported. */
  readonly logger: Logger;
}

/**
 * Contract:
 * - runs never overlap; any number of requests during a run cause exactly one more run right after it;
 * - `run` may start synchronously inside `runNow()` (when idle) or inside a timer callback; never inside `trigger()`;
 * - listeners are called after every run (skipped ones included), in registration order, after the next timer
 *   is armed; a throwing listener is logged and the others still run;
 * - a run's outcome re-arms at most one timer (retry or poll), cleared when the next run ends.
 */
export class ControllerLoop<R> {
  private readonly o: ControllerLoopOptions<R>;
  private readonly backoff: Backoff;
  private readonly debouncer: Debouncer;
  private readonly listeners: RunListener<R>[] = [];
  /** Callers of runNow() waiting for the next run to start. */
  private waiting: ((result: R) => void)[] = [];
  private idleWaiters: (() => void)[] = [];
  private chain: Promise<void> | undefined;
  private running = false;
  private rerun = false;
  private stopping = false;
  private retryTimer: TimerHandle | undefined;
  private resyncTimer: TimerHandle | undefined;

  constructor(options: ControllerLoopOptions<R>) {
    this.o = options;
    this.backoff = new Backoff(options.retry);
    this.debouncer = createDebouncer(
      () => {
        this.kick();
        this.wakeIdle();
      },
      { quietMs: options.quietMs, maxWaitMs: options.maxWaitMs, clock: options.clock },
    );
  }

  /** True after `stop()` until the next `start()`: requests and timers are ignored, `mayWrite()` is false. */
  get stopped(): boolean {
    return this.stopping;
  }

  /** Requests a run after the debounce. Never runs inside this call; ignored when stopped. */
  trigger(): void {
    if (this.stopping) return;
    this.debouncer.trigger();
  }

  /**
   * Takes the pending debounced request, if any, out of the loop: true when there was one (the caller then does
   * the work itself, e.g. synchronously), false otherwise. A run in progress or requested by `runNow()` stays.
   */
  takeRequest(): boolean {
    const pending = this.debouncer.pending;
    this.debouncer.cancel();
    if (pending) this.wakeIdle();
    return pending;
  }

  /**
   * Requests a run now (after the run in progress, if any) and resolves with its result once it and the runs
   * requested while it ran are over. Honoured even when stopped (the run then sees `mayWrite()` false).
   */
  runNow(): Promise<R> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.kick();
    });
  }

  /**
   * Resolves once no run is in progress or requested (debounced requests included; pending retry, poll and
   * resync timers excepted): the current run and anything it caused. With a manual clock, advance it past a
   * pending debounce first.
   */
  async idle(): Promise<void> {
    while (this.chain !== undefined || this.debouncer.pending) {
      if (this.chain !== undefined) await this.chain;
      else await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    }
  }

  /**
   * Not stopped: checked by runs before every write. `stop()` turns it false synchronously, so a part stopped on
   * lost leadership writes nothing more, even in the middle of a run.
   */
  mayWrite(): boolean {
    return !this.stopping;
  }

  /** Called after every run with its result; returns the unsubscribe function. */
  onRun(listener: RunListener<R>): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  /** (Re)arms the periodic resync and accepts requests again. */
  start(): void {
    this.stopping = false;
    this.clear('resyncTimer');
    this.armResync();
  }

  /** Cancels every timer and pending request, then waits for the run in progress. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.debouncer.cancel();
    this.clear('retryTimer');
    this.clear('resyncTimer');
    this.wakeIdle();
    await this.chain;
  }

  private armResync(): void {
    if (this.o.resyncMs <= 0 || this.stopping) return;
    this.resyncTimer = this.o.clock.setTimeout(() => {
      this.resyncTimer = undefined;
      this.o.onResync?.();
      this.trigger();
      this.armResync();
    }, this.o.resyncMs);
  }

  private kick(): void {
    if (this.running) {
      this.rerun = true;
      return;
    }
    this.running = true;
    this.chain = this.drain();
  }

  private async drain(): Promise<void> {
    const served: (() => void)[] = [];
    try {
      do {
        this.rerun = false;
        const waiting = this.waiting;
        this.waiting = [];
        const result = await this.runOnce();
        for (const resolve of waiting) served.push(() => resolve(result));
      } while (this.rerun && (!this.stopping || this.waiting.length > 0));
    } finally {
      this.running = false;
      this.chain = undefined;
    }
    for (const resolve of served) resolve();
    this.wakeIdle();
  }

  private async runOnce(): Promise<R> {
    const gate = this.closedGate();
    let result: R;
    let outcome: RunOutcome;
    if (gate !== undefined) {
      result = this.o.skipped(gate);
      outcome = 'retry-soon';
    } else {
      result = await this.o.run().catch((err: unknown) => this.o.failed(err));
      outcome = this.o.classify(result);
    }
    const after = this.schedule(outcome);
    for (const listener of [...this.listeners]) {
      try {
        listener(result, after);
      } catch (err) {
        this.o.logger.error('run listener threw', errorFields(err));
      }
    }
    return result;
  }

  private closedGate(): ClosedGate | undefined {
    return (this.o.isSynced?.() ?? true) ? undefined : 'not-synced';
  }

  private schedule(outcome: RunOutcome): AfterRun {
    this.clear('retryTimer');
    if (outcome === 'ok') this.backoff.reset();
    const delay =
      outcome === 'transient' ? this.backoff.next() : outcome === 'retry-soon' ? this.o.pollMs : undefined;
    if (delay === undefined || this.stopping) return { outcome };
    this.retryTimer = this.o.clock.setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.stopping) this.kick();
    }, delay);
    return { outcome, nextInMs: delay };
  }

  private clear(timer: 'retryTimer' | 'resyncTimer'): void {
    const handle = this[timer];
    if (handle !== undefined) this.o.clock.clearTimeout(handle);
    this[timer] = undefined;
  }

  private wakeIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  }
}

/**
 * A controller whose runs are one ControllerLoop's: the lifecycle it offers callers. Subclasses implement `runOnce`
 * (called only by the loop, never during construction) and use `loop` for `mayWrite()`, `runNow()` and listeners.
 */
/**
 * The loop settings every LoopController takes in its options (each controller documents its own defaults for the
 * debounce): the sync gate, debounce, polling, resync, retry, clock, logger and the run callback. Leadership is
 * not a setting: a controller that needs the leader is a leader part of the runtime (kit/runtime.ts).
 */
export interface LoopControllerSettings<R> {
  /** Runs are skipped until true (default: always). */
  readonly isSynced?: () => boolean;
  /** Debounce of triggers: a run follows `quietMs` after the last, and at most `maxWaitMs` after the first. */
  readonly quietMs?: number;
  readonly maxWaitMs?: number;
  /** Re-check period while not synced (default 1 s). */
  readonly pollMs?: number;
  /** Periodic run after `start()` (default 10 minutes; 0 disables). */
  readonly resyncMs?: number;
  readonly retry?: BackoffOptions;
  readonly clock?: Clock;
  readonly logger: Logger;
  /** Called after every run with its report. */
  readonly onRun?: (report: R) => void;
}

/**
 * The loop options a LoopController hands its base, from its settings: the gate, its own debounce defaults, a
 * re-check every second, a resync every 10 minutes, retries from 0.5 s to 30 s, the system clock, and a child
 * logger named `component`; each overridable by the settings.
 */
export function loopSettings<R>(
  s: Omit<LoopControllerSettings<R>, 'onRun'>,
  own: { readonly quietMs: number; readonly maxWaitMs: number; readonly component: string },
): Omit<ControllerLoopOptions<R>, 'run' | 'failed' | 'skipped' | 'classify'> {
  return {
    isSynced: s.isSynced,
    quietMs: s.quietMs ?? own.quietMs,
    maxWaitMs: s.maxWaitMs ?? own.maxWaitMs,
    pollMs: s.pollMs ?? 1000,
    resyncMs: s.resyncMs ?? 600_000,
    retry: { initialMs: 500, maxMs: 30_000, ...s.retry },
    clock: s.clock ?? systemClock,
    logger: s.logger.child({ component: own.component }),
  };
}

export abstract class LoopController<R> {
  protected readonly loop: ControllerLoop<R>;
  /** The logger the loop reports to, for the subclass's own logs too. */
  protected readonly log: Logger;

  protected constructor(options: Omit<ControllerLoopOptions<R>, 'run'>) {
    this.log = options.logger;
    this.loop = new ControllerLoop<R>({ ...options, run: () => this.runOnce() });
  }

  /** One run; the loop serialises runs and classifies the result. */
  protected abstract runOnce(): Promise<R>;

  /** Schedules a run after the debounce (never runs inside this call). */
  trigger(): void {
    this.loop.trigger();
  }

  /** One run now (after any run in progress); never rejects: failures are in the report. */
  reconcile(): Promise<R> {
    return this.loop.runNow();
  }

  /** Starts the periodic resync and schedules a run. */
  start(): void {
    this.loop.start();
    this.loop.trigger();
  }

  /** Stops timers and waits for a run in progress; no write starts after this resolves. */
  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /**
   * Resolves once no run is scheduled or in progress (pending retries and resyncs excepted). With a manual clock,
   * advance it past the debounce first.
   */
  idle(): Promise<void> {
    return this.loop.idle();
  }
}
