// The soak's change-to-every-acknowledgement figure, taken from the controller's own measure: every observation of
// aeraki_config_to_ack_seconds, which serve feeds from AckTracker's onAllAcked (from the store event that changed a
// route configuration to the moment every stream subscribed to it acknowledged the version that carries it). The
// bench records the observed values themselves, so its p50 and p99 are exact where the histogram's buckets
// (1 s, 1.5 s near the target) would only bound them.
import type { Histogram } from 'prom-client';
import { percentile } from './soak-changes.ts';

/** What the p99 may exceed the route debounce maximum by (issue 30). */
export const ACK_MARGIN_MS = 250;

export interface Observations {
  /** The values observed since the start, in ms, in the order observed. */
  readonly ms: readonly number[];
  /** Stops recording (the histogram goes on counting as before). */
  stop(): void;
}

/** Records every value `h` observes from now until `stop()`, in ms; each still reaches the histogram unchanged. */
export function recordObservations(h: Pick<Histogram, 'observe'>): Observations {
  const ms: number[] = [];
  const observe = h.observe.bind(h) as (...args: unknown[]) => void;
  const recording = (...args: unknown[]): void => {
    const seconds = args.at(-1); // observe(value) or observe(labels, value)
    if (typeof seconds === 'number') ms.push(seconds * 1000);
    observe(...args);
  };
  h.observe = recording;
  return {
    ms,
    stop: () => {
      if (h.observe === recording) h.observe = observe;
    },
  };
}

export interface AckFigures {
  /** Route configurations fully acknowledged after a change (one per change and route configuration). */
  readonly count: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** The route debounce maximum the controller ran with (--rds-debounce-max). */
  readonly debounceMaxMs: number;
  /** debounceMaxMs + ACK_MARGIN_MS. */
  readonly targetMs: number;
  /** p99 at most the target; false when nothing was measured. */
  readonly met: boolean;
}

const tenths = (n: number) => Math.round(n * 10) / 10;

/** p50, p99 and max of `ms` against the target for a run with route debounce maximum `debounceMaxMs`. */
export function ackFigures(ms: readonly number[], debounceMaxMs: number): AckFigures {
  const sorted = [...ms].sort((a, b) => a - b);
  const p99 = percentile(sorted, 99);
  const targetMs = debounceMaxMs + ACK_MARGIN_MS;
  return {
    count: sorted.length,
    p50Ms: tenths(percentile(sorted, 50)),
    p99Ms: tenths(p99),
    maxMs: tenths(sorted.at(-1) ?? NaN),
    debounceMaxMs,
    targetMs,
    met: sorted.length > 0 && p99 <= targetMs,
  };
}

/** One line for the log: the figure, the debounce it ran with and whether the target is met. */
export function describeAcks(f: AckFigures): string {
  const verdict = f.count === 0 ? 'nothing measured' : f.met ? 'met' : 'NOT met';
  return (
    `soak: change to every acknowledgement p50 ${f.p50Ms} ms, p99 ${f.p99Ms} ms, max ${f.maxMs} ms ` +
    `(${f.count} route changes); target p99 <= ${f.debounceMaxMs} ms debounce maximum + ${ACK_MARGIN_MS} ms: ${verdict}`
  );
}
