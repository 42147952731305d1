/**
 * The one debounce of the project: lodash.debounce (trailing edge, `maxWait`) on a Clock, so that the controller
 * loop (kit/controller-loop.ts) and everything debounced through it run on fake time in tests.
 *
 * lodash.debounce is used as documented (https://lodash.com/docs/4.17.15#debounce): the package's function, called
 * with `wait` and `{ leading, trailing, maxWait }`, and its `cancel()`. It takes the time where every lodash function
 * takes it and where fake timers (node:test `mock.timers`, sinon) put theirs: `Date.now()` and `setTimeout` /
 * `clearTimeout` of its context, the global object for the modular packages (see `_.now` and `_.runInContext`, whose
 * context supplies `Date` and `setTimeout`: https://lodash.com/docs/4.17.15#runInContext). So the Clock is what
 * lodash reads: each entry into lodash (a trigger, a cancel, its timer firing) runs with `Date.now`, `setTimeout`
 * and `clearTimeout` of the global object set to the Clock's, and restored when lodash returns or calls out (the
 * debounced function, the Clock's own functions), even on a throw. Nothing else ever runs under the swapped names:
 * JavaScript is single-threaded and lodash calls nothing else. No source is evaluated again and no private name is
 * read, so a bundled lodash works the same; test/kit/debounce.test.ts checks that lodash reads no other time.
 *
 * Why not node:test's `mock.timers` for the whole process: it replaces the timers of everything (servers, clients,
 * test helpers) for the whole test, one time for all clocks, and would rewrite the tests of every debounced
 * controller; the swap here is the same mechanism, scoped to lodash's own frames and to one Clock.
 */
import lodashDebounce from 'lodash.debounce';
import type { Clock, TimerHandle } from '../util/clock.ts';

/** The three global names lodash reads the time from, as found on the global object at one moment. */
interface TimeNames {
  readonly date: { now: () => number };
  readonly now: () => number;
  readonly setTimeout: unknown;
  readonly clearTimeout: unknown;
}

const host = globalThis as unknown as {
  Date: { now: () => number };
  setTimeout: unknown;
  clearTimeout: unknown;
};

function readNames(): TimeNames {
  const date = host.Date;
  return { date, now: date.now, setTimeout: host.setTimeout, clearTimeout: host.clearTimeout };
}

function writeNames(names: TimeNames): void {
  names.date.now = names.now;
  host.setTimeout = names.setTimeout;
  host.clearTimeout = names.clearTimeout;
}

/** While lodash runs on a Clock: the names to put back when it calls out; undefined outside lodash. */
let outside: TimeNames | undefined;

type ClockNames = Omit<TimeNames, 'date'>;

/** Runs `body` (an entry into lodash) with the global time names set to `clock`'s. */
function onClock<T>(clock: ClockNames, body: () => T): T {
  const before = readNames();
  const enclosing = outside;
  outside = before;
  writeNames({ date: before.date, ...clock });
  try {
    return body();
  } finally {
    writeNames(before);
    outside = enclosing;
  }
}

/** Runs `body` (code lodash calls out to) with the global time names as they were before lodash was entered. */
function offClock<T>(body: () => T): T {
  const back = outside;
  if (back === undefined) return body();
  const inside = readNames();
  writeNames(back);
  outside = undefined;
  try {
    return body();
  } finally {
    writeNames(inside);
    outside = back;
  }
}

/** `Date.now`, `setTimeout` and `clearTimeout` for lodash, on `clock`; lodash's timer callbacks run on it again. */
function clockNames(clock: Clock): ClockNames {
  const names: ClockNames = {
    now: () => offClock(() => clock.now()),
    setTimeout: (fn: () => void, ms: number) =>
      offClock(() => clock.setTimeout(() => onClock(names, fn), ms)),
    clearTimeout: (handle: TimerHandle) => offClock(() => clock.clearTimeout(handle)),
  };
  return names;
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
  const names = clockNames(clock);
  let pending = false;
  let triggering = false;
  /** The timer of a call lodash made inside `trigger()`. */
  let late: TimerHandle | undefined;
  const run = () => {
    pending = false;
    fn();
  };
  const called = () => {
    if (!pending) return;
    if (!triggering) run();
    else
      late ??= clock.setTimeout(() => {
        late = undefined;
        if (pending) run();
      }, 0);
  };
  const d = lodashDebounce(() => offClock(called), options.quietMs, {
    leading: false,
    trailing: true,
    maxWait: Math.max(options.maxWaitMs, options.quietMs),
  });
  const clear = () => {
    // Not lodash's flush(): it runs the call but leaves its timer armed (on the real clock, that timer keeps the
    // process alive until it expires). cancel() clears the timer and forgets the burst.
    onClock(names, () => d.cancel());
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
        onClock(names, () => d());
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
