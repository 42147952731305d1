/**
 * Time as a dependency, so retry loops and debouncers can be tested without sleeping.
 *
 * Contract: `setTimeout` callbacks run at most once, never synchronously inside `setTimeout`; `clearTimeout`
 * of a fired or unknown handle is a no-op.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** Opaque timer handle. */
export interface TimerHandle {
  readonly __timer: unique symbol;
}

/** The real clock. Timers are unref'd: a pending retry never keeps the process alive on its own. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, Math.max(0, ms));
    t.unref();
    return t as unknown as TimerHandle;
  },
  clearTimeout(handle) {
    clearTimeout(handle as unknown as NodeJS.Timeout);
  },
};

/** The real clock with timers that keep the process alive (a CLI waiting to reconnect; tests over real servers). */
export const keepAliveClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, Math.max(0, ms)) as unknown as TimerHandle,
  clearTimeout: (handle) => {
    clearTimeout(handle as unknown as NodeJS.Timeout);
  },
};

interface ManualTimer {
  readonly id: number;
  readonly at: number;
  readonly fn: () => void;
}

/**
 * A clock that only moves when told to (tests). `advance(ms)` fires due timers in time order (ties in
 * creation order), each with `now()` set to its due time; timers scheduled while advancing fire too if due.
 */
export class ManualClock implements Clock {
  private current: number;
  private nextId = 1;
  private readonly timers = new Map<number, ManualTimer>();

  constructor(start = 0) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.nextId++;
    this.timers.set(id, { id, at: this.current + Math.max(0, ms), fn });
    return id as unknown as TimerHandle;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle as unknown as number);
  }

  /** Number of timers not yet fired or cleared. */
  pending(): number {
    return this.timers.size;
  }

  /** Delays (from now) of the pending timers, soonest first. */
  pendingDelays(): number[] {
    return [...this.timers.values()].map((t) => t.at - this.current).sort((a, b) => a - b);
  }

  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      let due: ManualTimer | undefined;
      for (const t of this.timers.values()) {
        if (t.at <= target && (due === undefined || t.at < due.at || (t.at === due.at && t.id < due.id)))
          due = t;
      }
      if (due === undefined) break;
      this.timers.delete(due.id);
      this.current = Math.max(this.current, due.at);
      due.fn();
    }
    this.current = target;
  }

  /** Fires every pending timer (and any they schedule within the next hour of clock time). */
  runAll(): void {
    this.advance(Math.max(0, ...this.pendingDelays()));
  }
}
