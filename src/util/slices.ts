/**
 * Cooperative passes (issue 40, "never hold the loop"): work proportional to the mesh (a listing reconcile, a full
 * regeneration) runs in slices and yields to the event loop whenever a slice has run `sliceMs` (20 ms by default),
 * so timers, sockets and acknowledgements are served in between.
 *
 * A pass is written once, as a generator function that `yield`s at each point where it may pause (after each item):
 * `runToEnd` drives it in one synchronous stretch (the pure entry points keep their signatures), `Slicer.run`
 * drives it in slices. A pause costs a clock read; it yields only when the slice is over.
 *
 * Contract: after each yield the slicer checks `stopped()`: when true, the pass is abandoned by rejecting with
 * `SlicesStopped` (its caller discards whatever the pass built). What a pass reads must not change under it, or
 * its caller must re-check after it: state that other events change meanwhile is either a snapshot taken before
 * the first slice or re-read by the next run.
 */
import { performance } from 'node:perf_hooks';

/** The longest a slice runs before it yields, by default. */
export const SLICE_MS = 20;

export interface SliceOptions {
  /** A slice yields once it has run this long (ms; default SLICE_MS). */
  readonly sliceMs?: number;
  /** A monotonic clock in ms (default performance.now). */
  readonly now?: () => number;
  /** Lets the loop run (default: the next setImmediate, after pending I/O callbacks). */
  readonly yieldNow?: () => Promise<void>;
  /** Checked after each yield: when true, the pass rejects with SlicesStopped. */
  readonly stopped?: () => boolean;
}

/** A pass abandoned because its owner stopped during a yield. */
export class SlicesStopped extends Error {
  constructor() {
    super('stopped while yielding');
    this.name = 'SlicesStopped';
  }
}

const nextImmediate = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const monotonic = (): number => performance.now();

/** A pass's pause points: call `pause()` often; it yields only once the slice has run `sliceMs`. */
export class Slicer {
  /** How many times this slicer yielded. */
  yields = 0;
  /** The longest slice so far (ms): the longest stretch the loop was held by this slicer's passes. */
  longestMs = 0;
  private readonly sliceMs: number;
  private readonly now: () => number;
  private readonly yieldNow: () => Promise<void>;
  private readonly isStopped: () => boolean;
  private sliceStart: number;

  constructor(o: SliceOptions = {}) {
    this.sliceMs = o.sliceMs ?? SLICE_MS;
    this.now = o.now ?? monotonic;
    this.yieldNow = o.yieldNow ?? nextImmediate;
    this.isStopped = o.stopped ?? (() => false);
    this.sliceStart = this.now();
  }

  /** True when the current slice has run its time: the caller should `await pause()`. */
  due(): boolean {
    return this.now() - this.sliceStart >= this.sliceMs;
  }

  /**
   * Yields to the loop when the slice is over, then starts a new slice; rejects with SlicesStopped when the owner
   * stopped meanwhile. Resolves without yielding otherwise.
   */
  async pause(): Promise<void> {
    if (!this.due()) return;
    this.longestMs = Math.max(this.longestMs, this.now() - this.sliceStart);
    this.yields++;
    await this.yieldNow();
    this.sliceStart = this.now();
    if (this.isStopped()) throw new SlicesStopped();
  }

  /** Starts a new slice now (the caller awaited something else, which let the loop run). */
  restart(): void {
    this.sliceStart = this.now();
  }

  /** Drives a pass (see the file comment), pausing at each of its yields; resolves with its return value. */
  async run<T>(pass: Generator<unknown, T, undefined>): Promise<T> {
    for (;;) {
      const step = pass.next();
      if (step.done === true) return step.value;
      if (this.due()) await this.pause();
    }
  }

  /** `fn` over each item of `items`, pausing between items. */
  async each<T>(items: Iterable<T>, fn: (item: T) => void): Promise<void> {
    for (const item of items) {
      fn(item);
      if (this.due()) await this.pause();
    }
  }
}

/** Drives a pass in one synchronous stretch. */
export function runToEnd<T>(pass: Generator<unknown, T, undefined>): T {
  for (;;) {
    const step = pass.next();
    if (step.done === true) return step.value;
  }
}
