/**
 * Leader election on a coordination.k8s.io/v1 Lease (the algorithm of client-go's leaderelection package).
 *
 * - A candidate takes the lease when it does not exist, has no holder, or its record has not changed for a whole
 *   lease duration as observed by this candidate's own clock (no clock comparison across replicas).
 * - The leader renews every retry period. `isLeader()` is true only while less than `renewDeadlineMs` has passed
 *   since the start of the last successful renewal (renewDeadline < leaseDuration), so a leader that cannot
 *   renew stops writing before anyone else may take over.
 * - stop() releases the lease (empty holder) so a follower takes over at its next retry.
 */
import type { Logger } from '../util/logger.ts';
import { errorFields } from '../util/logger.ts';
import { systemClock, type Clock, type TimerHandle } from '../util/clock.ts';

export interface LeaseRecord {
  readonly holderIdentity: string;
  readonly leaseDurationSeconds: number;
  /** Epoch ms; undefined when absent. */
  readonly acquireTime: number | undefined;
  readonly renewTime: number | undefined;
  readonly leaseTransitions: number;
}

export interface ObservedLease {
  readonly record: LeaseRecord;
  readonly resourceVersion: string;
}

/** Storage of the Lease object. create/update reject when another writer got there first. */
export interface LeaseClient {
  get(): Promise<ObservedLease | undefined>;
  create(record: LeaseRecord): Promise<void>;
  /** Update with the observed resourceVersion as precondition. */
  update(record: LeaseRecord, resourceVersion: string): Promise<void>;
}

export interface LeaderElectorOptions {
  readonly client: LeaseClient;
  readonly identity: string;
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
  readonly clock?: Clock;
  readonly logger: Logger;
  readonly onStartedLeading?: () => void;
  readonly onStoppedLeading?: () => void;
}

export class LeaderElector {
  private readonly o: Required<Omit<LeaderElectorOptions, 'onStartedLeading' | 'onStoppedLeading'>> &
    Pick<LeaderElectorOptions, 'onStartedLeading' | 'onStoppedLeading'>;
  private readonly log: Logger;
  private timer: TimerHandle | undefined;
  private inFlight: Promise<void> | undefined;
  private running = false;
  /** Start time of the last successful acquire/renew; undefined when not leading. */
  private renewedAt: number | undefined;
  private leading = false;
  private observed: { key: string; at: number } | undefined;
  private lastRecord: ObservedLease | undefined;

  constructor(options: LeaderElectorOptions) {
    this.o = {
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      clock: systemClock,
      ...options,
    };
    if (this.o.renewDeadlineMs >= this.o.leaseDurationMs) {
      throw new Error('leader election: renewDeadline must be shorter than leaseDuration');
    }
    this.log = options.logger.child({ component: 'leader-election', identity: options.identity });
  }

  get identity(): string {
    return this.o.identity;
  }

  /** True only while the lease is held and was renewed less than renewDeadline ago (checked on every call). */
  isLeader(): boolean {
    if (!this.leading || this.renewedAt === undefined) return false;
    if (this.o.clock.now() - this.renewedAt >= this.o.renewDeadlineMs) {
      this.setLeading(false);
      return false;
    }
    return true;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.tick();
  }

  /** Stops competing; a leader releases the lease. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) this.o.clock.clearTimeout(this.timer);
    this.timer = undefined;
    await this.inFlight;
    const wasLeader = this.isLeader();
    this.setLeading(false);
    if (wasLeader && this.lastRecord) await this.release(this.lastRecord);
  }

  private tick(): void {
    if (!this.running) return;
    this.inFlight = this.tryAcquireOrRenew()
      .then((ok) => {
        if (ok) {
          this.setLeading(true);
        } else {
          this.isLeader(); // drops leadership once the renew deadline passed
        }
      })
      .catch((err: unknown) => {
        this.log.warn('lease attempt failed', errorFields(err));
        this.isLeader();
      })
      .finally(() => {
        this.inFlight = undefined;
        if (this.running) this.timer = this.o.clock.setTimeout(() => this.tick(), this.o.retryPeriodMs);
      });
  }

  private setLeading(leading: boolean): void {
    if (leading === this.leading) return;
    this.leading = leading;
    if (!leading) this.renewedAt = undefined;
    this.log.info(leading ? 'became leader' : 'stopped leading');
    (leading ? this.o.onStartedLeading : this.o.onStoppedLeading)?.();
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const start = this.o.clock.now();
    const me = this.o.identity;
    const fresh: LeaseRecord = {
      holderIdentity: me,
      leaseDurationSeconds: Math.ceil(this.o.leaseDurationMs / 1000),
      acquireTime: start,
      renewTime: start,
      leaseTransitions: 0,
    };
    const current = await this.o.client.get();
    if (current === undefined) {
      await this.o.client.create(fresh);
      this.renewedAt = start;
      this.lastRecord = { record: fresh, resourceVersion: '' };
      return true;
    }
    const r = current.record;
    const key = `${current.resourceVersion}|${r.holderIdentity}|${r.renewTime ?? ''}`;
    if (this.observed?.key !== key) this.observed = { key, at: start };
    const heldByOther = r.holderIdentity !== '' && r.holderIdentity !== me;
    const duration = r.leaseDurationSeconds > 0 ? r.leaseDurationSeconds * 1000 : this.o.leaseDurationMs;
    if (heldByOther && this.observed.at + duration > start) return false;
    const next: LeaseRecord = {
      ...fresh,
      acquireTime: r.holderIdentity === me ? (r.acquireTime ?? start) : start,
      leaseTransitions: r.holderIdentity === me ? r.leaseTransitions : r.leaseTransitions + 1,
    };
    if (r.holderIdentity !== me && this.leading) this.setLeading(false);
    await this.o.client.update(next, current.resourceVersion);
    this.renewedAt = start;
    this.lastRecord = { record: next, resourceVersion: current.resourceVersion };
    return true;
  }

  private async release(last: ObservedLease): Promise<void> {
    try {
      const current = await this.o.client.get();
      if (!current || current.record.holderIdentity !== this.o.identity) return;
      const now = this.o.clock.now();
      await this.o.client.update(
        {
          holderIdentity: '',
          leaseDurationSeconds: 1,
          acquireTime: now,
          renewTime: now,
          leaseTransitions: last.record.leaseTransitions,
        },
        current.resourceVersion,
      );
      this.log.info('released lease');
    } catch (err) {
      this.log.warn('lease release failed', errorFields(err));
    }
  }
}
