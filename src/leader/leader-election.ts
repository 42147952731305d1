/**
 * Leader election on a coordination.k8s.io/v1 Lease (the algorithm of client-go's leaderelection package).
 *
 * - A candidate takes the lease when it does not exist, has no holder, or its record has not changed for a whole
 *   lease duration as observed by this candidate's own clock (no clock comparison across replicas).
 * - The leader renews every retry period. `isLeader()` is true only while less than `renewDeadlineMs` has passed
 *   since the start of the last successful renewal (renewDeadline < leaseDuration), so a leader that cannot
 *   renew stops writing before anyone else may take over. At that deadline `onStoppedLeading` fires by itself (a
 *   timer on the Clock), even while a lease request hangs: the runtime (kit/runtime.ts) stops the leader parts
 *   then, as client-go's leaderelection does when its renew loop gives up at RenewDeadline
 *   (k8s.io/client-go tools/leaderelection/leaderelection.go, v0.31.0, `renew`).
 * - stop() releases the lease (empty holder) so a follower takes over at its next retry.
 */
import type { Elector, LeadershipCallbacks } from '../kit/runtime.ts';
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

export class LeaderElector implements Elector {
  private readonly o: Required<Omit<LeaderElectorOptions, 'onStartedLeading' | 'onStoppedLeading'>> &
    Pick<LeaderElectorOptions, 'onStartedLeading' | 'onStoppedLeading'>;
  private readonly log: Logger;
  private timer: TimerHandle | undefined;
  /** Fires at the renew deadline of the last successful renewal while leading. */
  private deadline: TimerHandle | undefined;
  /** The callbacks given to `start()` (besides the options' own). */
  private callbacks: LeadershipCallbacks | undefined;
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

  /** Starts competing; `callbacks` are called on each change of leadership, after the options' own. */
  start(callbacks?: LeadershipCallbacks): void {
    if (this.running) return;
    this.running = true;
    this.callbacks = callbacks;
    this.tick();
  }

  /**
   * Stops competing; a leader releases the lease. A lease request in flight is awaited for at most the renew
   * deadline (a hanging API server does not hang the stop; leadership is dropped by then anyway).
   */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) this.o.clock.clearTimeout(this.timer);
    this.timer = undefined;
    if (this.inFlight) await this.atMost(this.inFlight, this.o.renewDeadlineMs);
    const wasLeader = this.isLeader();
    this.setLeading(false);
    if (wasLeader && this.lastRecord) await this.release(this.lastRecord);
  }

  private tick(): void {
    if (!this.running) return;
    this.inFlight = this.tryAcquireOrRenew()
      .then((ok) => {
        // A renewal that answered after its own deadline does not make (or keep) a leader.
        if (
          ok &&
          this.renewedAt !== undefined &&
          this.o.clock.now() - this.renewedAt < this.o.renewDeadlineMs
        ) {
          this.setLeading(true);
          this.armDeadline();
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

  /** (Re)arms the deadline timer: leadership ends at the renew deadline unless a renewal comes first. */
  private armDeadline(): void {
    if (this.deadline) this.o.clock.clearTimeout(this.deadline);
    const left = (this.renewedAt ?? 0) + this.o.renewDeadlineMs - this.o.clock.now();
    this.deadline = this.o.clock.setTimeout(
      () => {
        this.deadline = undefined;
        if (!this.isLeader()) return;
        this.armDeadline(); // renewed meanwhile without the timer being re-armed: wait for the new deadline
      },
      Math.max(0, left),
    );
  }

  private setLeading(leading: boolean): void {
    if (leading === this.leading) return;
    this.leading = leading;
    if (!leading) {
      this.renewedAt = undefined;
      if (this.deadline) this.o.clock.clearTimeout(this.deadline);
      this.deadline = undefined;
    }
    this.log.info(leading ? 'became leader' : 'stopped leading');
    (leading ? this.o.onStartedLeading : this.o.onStoppedLeading)?.();
    (leading ? this.callbacks?.onStartedLeading : this.callbacks?.onStoppedLeading)?.();
  }

  /** `p`, or undefined once `ms` passed on the Clock. */
  private async atMost(p: Promise<void>, ms: number): Promise<void> {
    let timer: TimerHandle | undefined;
    const timeout = new Promise<void>((resolve) => (timer = this.o.clock.setTimeout(resolve, ms)));
    try {
      await Promise.race([p, timeout]);
    } finally {
      if (timer !== undefined) this.o.clock.clearTimeout(timer);
    }
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
