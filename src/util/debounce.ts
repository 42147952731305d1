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
  const d = debounce(fn, options.quietMs, {
    leading: false,
    trailing: true,
    maxWait: Math.max(options.maxWaitMs, options.quietMs),
  });
  return {
    trigger: () => {
      d();
    },
    flush: () => {
      d.flush();
    },
    cancel: () => {
      d.cancel();
    },
  };
}
