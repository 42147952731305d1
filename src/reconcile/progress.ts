/**
 * Progress of a long run of writes (a first sync of tens of thousands of EnvoyFilters under the write rate
 * limit): one info line every `everyMs` of the clock with the count written, the rate and the estimated time
 * left, instead of minutes of silence. Silent for runs that finish within the first interval.
 */
import type { Clock } from '../util/clock.ts';
import type { Logger } from '../util/logger.ts';

export class WriteProgress {
  private readonly started: number;
  private lastLog: number;
  private done = 0;

  constructor(
    private readonly total: number,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly everyMs = 5000,
  ) {
    this.started = clock.now();
    this.lastLog = this.started;
  }

  /** Counts one write attempt (failed ones too); logs when an interval has passed since the last line. */
  wrote(): void {
    this.done++;
    const now = this.clock.now();
    if (now - this.lastLog < this.everyMs || this.done >= this.total) return;
    this.lastLog = now;
    const perSecond = (this.done * 1000) / Math.max(1, now - this.started);
    const left = this.total - this.done;
    this.log.info('writing', {
      written: this.done,
      total: this.total,
      perSecond: Math.round(perSecond * 10) / 10,
      etaSeconds: Math.ceil(left / Math.max(perSecond, 1e-9)),
    });
  }
}
