/**
 * The runtime of a process: its parts, each declaring whether it needs the leader, as controller-runtime's manager
 * runs its runnables (`LeaderElectionRunnable.NeedLeaderElection`, sigs.k8s.io/controller-runtime
 * pkg/manager/runnable_group.go and internal.go, v0.19.0). Unlike that manager, which exits the process when
 * leadership is lost, a replica here keeps serving and its leader parts start again on the next election.
 */
import type { Logger } from '../util/logger.ts';
import { LeaderGroup } from './leader-group.ts';
import { Lifecycle, type Part } from './lifecycle.ts';

/** A part of the runtime; `needLeader` parts run only while this replica leads. */
export interface RuntimePart extends Part {
  /** True: started on election, drained and stopped on loss (controller-runtime's `NeedLeaderElection`). */
  readonly needLeader?: boolean;
}

export interface LeadershipCallbacks {
  readonly onStartedLeading: () => void;
  /** Fires at the latest at the renew deadline of the last successful renewal, even while a renewal hangs. */
  readonly onStoppedLeading: () => void;
}

/** Leader election as the runtime drives it (src/leader's LeaderElector on a Lease). */
export interface Elector {
  /** Starts competing; the callbacks fire on every change of leadership. */
  start(callbacks: LeadershipCallbacks): void;
  /** Stops competing; a leader releases its lease. */
  stop(): Promise<void>;
  isLeader(): boolean;
}

export interface RuntimeOptions {
  readonly logger: Logger;
  /** Absent: every replica leads, and leader parts start with their group. */
  readonly elector?: Elector | undefined;
  /** Called on each change of leadership: on loss after the leader parts' drains were called, on election before
   *  they start. */
  readonly onLeadership?: (leading: boolean) => void;
}

/**
 * Every-replica parts follow Lifecycle's contract (kit/lifecycle.ts): groups started in order, a failing start
 * stops what started and rethrows, a stop drains then stops in reverse.
 *
 * Leader parts (LeaderGroup, kit/leader-group.ts) are registered with their group. Without an elector they start
 * with it, in its order after its every-replica parts, and a failing one fails the start as above. With one, the
 * elector starts once the first group holding a leader part started; on election the leader parts start one after
 * the other in registration order; on loss (`onStoppedLeading`) every started leader part's `drain()` is called
 * within the callback, in reverse start order, then each is stopped. A leader part failing to start on election:
 * the leader parts of that term are drained and stopped, the elector is stopped (the lease released, so another
 * replica may lead) and this replica no longer competes; the error is logged.
 *
 * `stop()`: the leader parts are drained and stopped, then the elector stops (releasing the lease), then the
 * every-replica parts are drained and stopped in reverse. Runs once; a failing step is logged, the others still run,
 * and the promise rejects with the first error.
 */
export class Runtime {
  readonly #o: RuntimeOptions;
  readonly #life: Lifecycle;
  readonly #leaders: LeaderGroup;
  #electing = false;
  #stopping: Promise<void> | undefined;

  constructor(options: RuntimeOptions) {
    this.#o = options;
    this.#life = new Lifecycle(options.logger);
    this.#leaders = new LeaderGroup(options.logger);
  }

  /** Leading now: always without an elector, else the elector's `isLeader()`. */
  isLeader(): boolean {
    return this.#o.elector ? this.#o.elector.isLeader() : true;
  }

  /** The started every-replica parts, in start order. */
  started(): string[] {
    return this.#life.started();
  }

  /** The started leader parts, in start order. */
  leading(): string[] {
    return this.#leaders.started();
  }

  /** Resolves once no leadership transition (leader parts starting or stopping) is in progress. */
  settled(): Promise<void> {
    return this.#leaders.settled();
  }

  /** Starts each group after the previous one; see the class comment. */
  async startGroups(groups: readonly (readonly RuntimePart[])[]): Promise<void> {
    for (const group of groups) await this.start(...group);
  }

  /** Starts one group's every-replica parts and registers its leader parts; see the class comment. */
  async start(...group: RuntimePart[]): Promise<void> {
    if (this.#stopping) throw new Error('cannot start: the runtime is stopping');
    const leaders = group.filter((p) => p.needLeader === true);
    try {
      await this.#life.start(...group.filter((p) => p.needLeader !== true));
    } catch (err) {
      await this.stop().catch(() => {}); // each failing stop is logged; the start error is the one reported
      throw err;
    }
    if (leaders.length === 0) return;
    const elector = this.#o.elector;
    if (!elector) {
      if (!this.#leaders.leading) this.#o.onLeadership?.(true);
      const failed = this.#leaders.leading ? await this.#leaders.add(leaders) : await this.#elect(leaders);
      if (failed === undefined) return;
      await this.stop().catch(() => {});
      throw failed;
    }
    void this.#leaders.add(leaders).then((err) => this.#failed(err));
    if (this.#electing) return;
    this.#electing = true;
    elector.start({
      onStartedLeading: () => {
        if (this.#stopping) return;
        this.#o.onLeadership?.(true);
        void this.#leaders.elect().then((err) => this.#failed(err));
      },
      onStoppedLeading: () => {
        if (!this.#leaders.leading) return;
        void this.#leaders.lose();
        this.#o.onLeadership?.(false);
      },
    });
  }

  stop(): Promise<void> {
    this.#stopping ??= this.#stopAll();
    return this.#stopping;
  }

  /** Without an elector: registers and starts the first leader parts. */
  #elect(parts: readonly RuntimePart[]): Promise<Error | undefined> {
    void this.#leaders.add(parts); // not leading yet: registers only
    return this.#leaders.elect();
  }

  /** A leader part failed to start on election: stop competing (see the class comment). */
  async #failed(err: Error | undefined): Promise<void> {
    if (err === undefined || this.#stopping) return;
    this.#o.onLeadership?.(false);
    this.#o.logger.error('no longer competing for leadership: a leader part failed to start');
    this.#electing = false;
    await this.#o.elector?.stop();
  }

  async #stopAll(): Promise<void> {
    const errors: unknown[] = [];
    const wasLeading = this.#leaders.leading;
    await this.#leaders.lose();
    if (wasLeading) this.#o.onLeadership?.(false);
    if (this.#electing) await this.#o.elector?.stop().catch((err: unknown) => errors.push(err));
    await this.#life.stop().catch((err: unknown) => errors.push(err));
    if (errors.length > 0) throw errors[0];
  }
}

/** What a leader part over a loop controller uses of it (LoopController, Reconciler). */
export interface LeaderLoop {
  start(): void;
  stop(): Promise<void>;
}

/**
 * A leader part over a loop controller (kit/controller-loop.ts). The controller is stopped now, so one built on
 * every replica neither runs nor writes (triggers ignored, `mayWrite()` false) until its replica leads. `start()`
 * starts it, then calls `onStart` (e.g. a trigger, so a new leader converges at once); `drain()` stops it, which
 * closes its write gate synchronously and waits for the run in progress.
 */
export function leaderLoopPart(name: string, loop: LeaderLoop, onStart?: () => void): RuntimePart {
  void loop.stop();
  return {
    name,
    needLeader: true,
    start: () => {
      loop.start();
      onStart?.();
    },
    drain: () => loop.stop(),
  };
}
