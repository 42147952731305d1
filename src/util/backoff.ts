/**
 * Capped exponential backoff with jitter (the shape of cenkalti/backoff, which Istio's adsc uses): the n-th
 * delay is `min(max, initial * multiplier^n)` randomised by ±`jitter` (a fraction), and never above `max`.
 * `reset()` after a healthy period starts again from `initial`.
 */
export interface BackoffOptions {
  /** First delay, ms (default 500). */
  readonly initialMs?: number;
  /** Cap, ms (default 60 000). */
  readonly maxMs?: number;
  /** Growth factor per attempt (default 1.5). */
  readonly multiplier?: number;
  /** Randomisation fraction in [0, 1] (default 0.5: delay * [0.5, 1.5]). */
  readonly jitter?: number;
  /** Source of randomness in [0, 1) (default Math.random); inject for deterministic tests. */
  readonly random?: () => number;
}

export class Backoff {
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly multiplier: number;
  private readonly jitter: number;
  private readonly random: () => number;
  private current: number;
  private count = 0;

  constructor(options: BackoffOptions = {}) {
    this.initialMs = Math.max(1, options.initialMs ?? 500);
    this.maxMs = Math.max(this.initialMs, options.maxMs ?? 60_000);
    this.multiplier = Math.max(1, options.multiplier ?? 1.5);
    this.jitter = Math.min(1, Math.max(0, options.jitter ?? 0.5));
    this.random = options.random ?? Math.random;
    this.current = this.initialMs;
  }

  /** Delay before the next attempt, ms; advances the sequence. */
  next(): number {
    const base = this.current;
    this.current = Math.min(this.maxMs, this.current * this.multiplier);
    this.count++;
    const spread = base * this.jitter;
    const delay = base - spread + this.random() * 2 * spread;
    return Math.round(Math.min(this.maxMs, Math.max(0, delay)));
  }

  reset(): void {
    this.current = this.initialMs;
    this.count = 0;
  }

  /** Delays handed out since the last reset. */
  get attempts(): number {
    return this.count;
  }
}
