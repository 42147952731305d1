/**
 * A token bucket on the Clock, as Kubernetes clients limit their requests (client-go's `--kube-api-qps` and
 * `--kube-api-burst`): the bucket holds at most `burst` tokens, refills at `qps` tokens a second, and every
 * request takes one token, waiting for it when the bucket is empty.
 */
import type { Clock } from './clock.ts';

/** Something that paces requests; `take()` resolves when the caller may send one. */
export interface RateLimiter {
  /**
   * Resolves once a token is taken. Waiters are served in call order; a waiting call never resolves
   * synchronously, and with a manual clock it resolves only once the clock is advanced far enough.
   */
  take(): Promise<void>;
}

export interface TokenBucketOptions {
  /** Tokens added per second (> 0). */
  readonly qps: number;
  /** Bucket size (>= 1): how many requests may go at once after a quiet period. Starts full. */
  readonly burst: number;
  readonly clock: Clock;
}

export class TokenBucket implements RateLimiter {
  private readonly qps: number;
  private readonly burst: number;
  private readonly clock: Clock;
  private tokens: number;
  private last: number;
  private readonly waiters: (() => void)[] = [];
  private timerArmed = false;

  constructor(o: TokenBucketOptions) {
    if (!(o.qps > 0) || !(o.burst >= 1)) {
      throw new Error(`token bucket: qps must be > 0 and burst >= 1 (got ${o.qps}, ${o.burst})`);
    }
    this.qps = o.qps;
    this.burst = Math.floor(o.burst);
    this.clock = o.clock;
    this.tokens = this.burst;
    this.last = o.clock.now();
  }

  take(): Promise<void> {
    this.refill();
    if (this.waiters.length === 0 && this.tokens >= 1) {
      this.tokens -= 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.arm();
    });
  }

  /** Tokens available now (fractional while refilling); for tests and logs. */
  available(): number {
    this.refill();
    return this.tokens;
  }

  private refill(): void {
    const now = this.clock.now();
    if (now > this.last)
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.qps) / 1000);
    this.last = Math.max(this.last, now);
  }

  /** One timer at a time, due when the next whole token is there. */
  private arm(): void {
    if (this.timerArmed) return;
    this.timerArmed = true;
    const waitMs = Math.max(1, Math.ceil(((1 - this.tokens) * 1000) / this.qps));
    this.clock.setTimeout(() => {
      this.timerArmed = false;
      this.serve();
    }, waitMs);
  }

  private serve(): void {
    this.refill();
    while (this.waiters.length > 0 && this.tokens >= 1) {
      this.tokens -= 1;
      this.waiters.shift()?.();
    }
    if (this.waiters.length > 0) this.arm();
  }
}
