import debounce from 'lodash.debounce';

/**
 * Coalesces bursts of calls: `fn` runs once `quietMs` passed without a `trigger()`, and at the latest `maxWaitMs`
 * after the first trigger of a burst (lodash.debounce with `maxWait`, trailing edge only).
 * `fn` runs on a timer, never inside `trigger()`. A `maxWaitMs` below `quietMs` is raised to `quietMs` (as lodash does).
 */
export interface Debouncer {
  trigger(): void;
  /** Runs a pending call now (no-op when nothing is pending). */
  flush(): void;
  /** Drops a pending call. */
  cancel(): void;
}

export interface DebounceOptions {
  readonly quietMs: number;
  readonly maxWaitMs: number;
}

export function createDebouncer(fn: () => void, options: DebounceOptions): Debouncer {
  let pending = false;
  const d = debounce(
    () => {
      pending = false;
      fn();
    },
    options.quietMs,
    { leading: false, trailing: true, maxWait: Math.max(options.maxWaitMs, options.quietMs) },
  );
  return {
    trigger: () => {
      pending = true;
      d();
    },
    // Not lodash's flush(): it runs the call but leaves its timer armed, which keeps the process alive until
    // the timer expires. cancel() clears the timer; the pending call then runs here.
    flush: () => {
      if (!pending) return;
      d.cancel();
      pending = false;
      fn();
    },
    cancel: () => {
      pending = false;
      d.cancel();
    },
  };
}
