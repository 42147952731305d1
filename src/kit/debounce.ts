/**
 * The one debounce of the project: lodash.debounce (trailing edge, `maxWait`) on a Clock, so that the controller
 * loop (kit/controller-loop.ts) and everything debounced through it run on fake time in tests.
 *
 * lodash.debounce reads the time from the global `Date.now` and arms its timer with the global `setTimeout`. To run
 * it on a Clock, its module is evaluated once per Clock with those three names bound to the Clock's `now`,
 * `setTimeout` and `clearTimeout` (nothing global is replaced; the debounced function itself runs unchanged).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { compileFunction } from 'node:vm';
import type lodashDebounce from 'lodash.debounce';
import type { Clock, TimerHandle } from '../util/clock.ts';

type LodashDebounce = typeof lodashDebounce;

/** lodash.debounce's CommonJS module as a function of its module object and the globals it reads the time from. */
const lodashModule = compileFunction(
  readFileSync(createRequire(import.meta.url).resolve('lodash.debounce'), 'utf8'),
  ['module', 'exports', 'global', 'self', 'setTimeout', 'clearTimeout'],
) as (
  module: { exports: unknown },
  exports: unknown,
  global: { readonly Object: ObjectConstructor; readonly Date: { now(): number } },
  self: undefined,
  setTimeout: (fn: () => void, ms: number) => TimerHandle,
  clearTimeout: (handle: TimerHandle) => void,
) => void;

const perClock = new WeakMap<Clock, LodashDebounce>();

/** lodash.debounce with its `Date.now`, `setTimeout` and `clearTimeout` taken from `clock`. */
function debounceOn(clock: Clock): LodashDebounce {
  let debounce = perClock.get(clock);
  if (debounce === undefined) {
    const module = { exports: {} as unknown };
    const global = { Object, Date: { now: () => clock.now() } };
    const setTimeout = (fn: () => void, ms: number) => clock.setTimeout(fn, ms);
    const clearTimeout = (handle: TimerHandle) => clock.clearTimeout(handle);
    lodashModule(module, module.exports, global, undefined, setTimeout, clearTimeout);
    debounce = module.exports as LodashDebounce;
    perClock.set(clock, debounce);
  }
  return debounce;
}

/**
 * Coalesces bursts of calls: `fn` runs once `quietMs` passed without a `trigger()`, and at the latest `maxWaitMs`
 * after the first trigger of a burst (a burst starts with the first trigger after `fn` ran, was flushed or
 * cancelled). A `maxWaitMs` below `quietMs` is raised to `quietMs` (as lodash does).
 * `fn` runs on a timer of the Clock, never inside `trigger()`: when a trigger finds the timer late past the
 * maximum wait (lodash would then call at once), `fn` runs on a timer armed for now instead.
 */
export interface Debouncer {
  trigger(): void;
  /** Runs a pending call now (no-op when nothing is pending). */
  flush(): void;
  /** Drops a pending call. */
  cancel(): void;
  /** True from a `trigger()` until `fn` runs, or the call is flushed or cancelled. */
  readonly pending: boolean;
}

export interface DebounceOptions {
  readonly quietMs: number;
  readonly maxWaitMs: number;
  readonly clock: Clock;
}

export function createDebouncer(fn: () => void, options: DebounceOptions): Debouncer {
  const { clock } = options;
  let pending = false;
  let triggering = false;
  /** The timer of a call lodash made inside `trigger()`. */
  let late: TimerHandle | undefined;
  const run = () => {
    pending = false;
    fn();
  };
  const d = debounceOn(clock)(
    () => {
      if (!pending) return;
      if (!triggering) run();
      else
        late ??= clock.setTimeout(() => {
          late = undefined;
          if (pending) run();
        }, 0);
    },
    options.quietMs,
    { leading: false, trailing: true, maxWait: Math.max(options.maxWaitMs, options.quietMs) },
  );
  const clear = () => {
    // Not lodash's flush(): it runs the call but leaves its timer armed (on the real clock, that timer keeps the
    // process alive until it expires). cancel() clears the timer and forgets the burst.
    d.cancel();
    if (late !== undefined) clock.clearTimeout(late);
    late = undefined;
  };
  return {
    trigger: () => {
      // A new burst: lodash would otherwise count its maximum wait from its last call, not from this trigger.
      if (!pending) clear();
      pending = true;
      triggering = true;
      try {
        d();
      } finally {
        triggering = false;
      }
    },
    flush: () => {
      if (!pending) return;
      clear();
      run();
    },
    cancel: () => {
      pending = false;
      clear();
    },
    get pending() {
      return pending;
    },
  };
}
