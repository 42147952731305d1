/**
 * Namespace bootstrap controller: keeps ConfigMap `aeraki-bootstrap-config` (bootstrap-config.ts) in exactly
 * the namespaces labelled `istio-injection=enabled` or with a non-empty `istio.io/rev`, with the content of the
 * current RDS address: created when the label appears, updated when the address/port changes (also at start
 * after a redeploy), deleted when the label goes away. Only ConfigMaps labelled `manager: Aeraki` are updated
 * or deleted (plus Aeraki's own unlabelled ones, adopted; see bootstrap-plan.ts).
 *
 * Driving it (the lead wires it in app.ts; src/controller is never imported here):
 * - event mode: feed a Namespace informer into `upsertNamespace` / `deleteNamespace` (`namespaceInfoOf`
 *   converts an informer object), pass `isSynced` = "the informer has listed once", and call `trigger()` when
 *   it turns true and on becoming leader; `start()` adds a periodic resync that repairs hand edits;
 * - level mode: `reconcile(namespaces)` with the complete set of namespaces runs once and reports.
 * Runs never overlap; triggers during a run cause one more run after it. Every write is preceded by an
 * `isLeader()` check (a replica that is not the leader never writes). Transient failures are retried with
 * capped, jittered backoff; terminal ones wait for the next change or resync.
 */
import type { Logger } from '../util/logger.ts';
import { errorFields } from '../util/logger.ts';
import { formatIssue } from '../model/result.ts';
import { Backoff, type BackoffOptions } from '../util/backoff.ts';
import { systemClock, type Clock, type TimerHandle } from '../util/clock.ts';
import type { BootstrapTarget } from './config.ts';
import type { BootstrapConfigMapPort } from './kube.ts';
import { planBootstrap, wantsBootstrap, type NamespaceInfo } from './plan.ts';
import { asSinkError, type WriteFailure, type WriteVerb } from '../model/write.ts';
import { EMPTY_REPORT, type BootstrapRunReport } from './report.ts';

export { namespaceInfoOf, wantsBootstrap, type NamespaceInfo } from './plan.ts';
export type { BootstrapConfigMapPort } from './kube.ts';
export type { BootstrapRunReport } from './report.ts';

export type { WriteVerb } from '../model/write.ts';

export interface NamespaceBootstrapOptions {
  readonly port: BootstrapConfigMapPort;
  readonly target: BootstrapTarget;
  /** Checked before every run and every write (default: always leader). */
  readonly isLeader?: () => boolean;
  /** The namespace set is complete (event mode); runs are skipped until then (default: always). */
  readonly isSynced?: () => boolean;
  /** Periodic full run after `start()` (default 10 minutes; 0 disables). */
  readonly resyncMs?: number;
  readonly retry?: BackoffOptions;
  readonly clock?: Clock;
  readonly logger: Logger;
  /** Called after every write attempt (metrics). */
  readonly onWrite?: (verb: WriteVerb, ok: boolean) => void;
  /** Called after every run with its report. */
  readonly onRun?: (report: BootstrapRunReport) => void;
}

export class NamespaceBootstrapController {
  private readonly o: NamespaceBootstrapOptions;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly backoff: Backoff;
  private readonly namespaces = new Map<string, NamespaceInfo>();
  private target: BootstrapTarget;
  private tail: Promise<unknown> = Promise.resolve();
  private inFlight = 0;
  private scheduled: TimerHandle | undefined;
  private retryTimer: TimerHandle | undefined;
  private resyncTimer: TimerHandle | undefined;
  private stopped = false;
  private lastWarning = '';

  constructor(options: NamespaceBootstrapOptions) {
    this.o = options;
    this.target = options.target;
    this.clock = options.clock ?? systemClock;
    this.log = options.logger.child({ component: 'namespace-bootstrap' });
    this.backoff = new Backoff({ initialMs: 500, maxMs: 30_000, ...options.retry });
  }

  /** Adds or changes a namespace; triggers a run when it starts or stops wanting the ConfigMap. */
  upsertNamespace(ns: NamespaceInfo): void {
    const before = this.namespaces.get(ns.name);
    this.namespaces.set(ns.name, ns);
    if ((before ? wantsBootstrap(before) : false) !== wantsBootstrap(ns)) this.trigger();
  }

  /** Forgets a deleted namespace (its ConfigMaps go with it; nothing to write). */
  deleteNamespace(name: string): void {
    this.namespaces.delete(name);
  }

  /** Changes the RDS address/port; every managed ConfigMap is rewritten by the next run. */
  setTarget(target: BootstrapTarget): void {
    if (target.address === this.target.address && target.port === this.target.port) return;
    this.target = target;
    this.trigger();
  }

  /** Schedules a run soon (coalesced with other triggers; never runs inside this call). */
  trigger(): void {
    if (this.stopped || this.scheduled) return;
    this.scheduled = this.clock.setTimeout(() => {
      this.scheduled = undefined;
      void this.enqueue();
    }, 0);
  }

  /** Starts the periodic resync and runs once. */
  start(): void {
    this.stopped = false;
    this.scheduleResync();
    this.trigger();
  }

  /** Stops timers and waits for a run in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of [this.scheduled, this.retryTimer, this.resyncTimer]) if (t) this.clock.clearTimeout(t);
    this.scheduled = this.retryTimer = this.resyncTimer = undefined;
    await this.tail;
  }

  /**
   * Resolves once no run is scheduled or in progress (pending retries and resyncs excepted). Polls real time
   * while a triggered run waits for its timer: use it with the system clock.
   */
  async idle(): Promise<void> {
    while (this.inFlight > 0 || this.scheduled) {
      if (this.inFlight === 0) await new Promise((r) => setTimeout(r, 1));
      await this.tail;
    }
  }

  /**
   * Level mode: `namespaces` (when given) replaces the known set; then one run, after any run in progress.
   * Never rejects: failures are in the report.
   */
  reconcile(namespaces?: Iterable<NamespaceInfo>): Promise<BootstrapRunReport> {
    if (namespaces) {
      this.namespaces.clear();
      for (const ns of namespaces) this.namespaces.set(ns.name, ns);
    }
    return this.enqueue();
  }

  private enqueue(): Promise<BootstrapRunReport> {
    this.inFlight++;
    const run = this.tail.then(() => this.runOnce());
    this.tail = run.then(
      () => this.inFlight--,
      () => this.inFlight--,
    );
    return run;
  }

  private async runOnce(): Promise<BootstrapRunReport> {
    const report = await this.runSafely();
    this.afterRun(report);
    try {
      this.o.onRun?.(report);
    } catch (err) {
      this.log.error('bootstrap: onRun listener threw', errorFields(err));
    }
    return report;
  }

  private async runSafely(): Promise<BootstrapRunReport> {
    const isLeader = this.o.isLeader ?? (() => true);
    if (!isLeader()) return { ...EMPTY_REPORT, skipped: 'not-leader' };
    if (!(this.o.isSynced?.() ?? true)) return { ...EMPTY_REPORT, skipped: 'not-synced' };
    let existing;
    try {
      existing = await this.o.port.list();
    } catch (err) {
      return { ...EMPTY_REPORT, listError: asSinkError('list configmaps', err) };
    }
    const planned = planBootstrap(this.namespaces.values(), existing, this.target);
    if (!planned.ok) return { ...EMPTY_REPORT, skipped: 'invalid-target', issues: planned.issues };
    const plan = planned.value;
    const failures: WriteFailure[] = [];
    const done = { create: 0, update: 0, delete: 0 };
    const ops: {
      op: WriteVerb;
      namespace: string;
      name: string;
      run: () => Promise<void>;
      adopt?: boolean;
    }[] = [
      ...plan.creates.map((cm) => ({
        op: 'create' as const,
        namespace: cm.metadata.namespace,
        name: cm.metadata.name,
        run: () => this.o.port.create(cm),
      })),
      ...plan.updates.map((u) => ({
        op: 'update' as const,
        namespace: u.existing.namespace,
        name: u.existing.name,
        adopt: u.adopt,
        run: () => this.o.port.update(u),
      })),
      ...plan.deletes.map((cm) => ({
        op: 'delete' as const,
        namespace: cm.namespace,
        name: cm.name,
        run: () => this.o.port.delete(cm),
      })),
    ];
    for (const op of ops) {
      if (!isLeader()) return { ...this.summary(plan, done, failures), interrupted: true };
      try {
        await op.run();
        done[op.op]++;
        this.notifyWrite(op.op, true);
        this.log.info(`${op.op}d bootstrap ConfigMap`, {
          namespace: op.namespace,
          name: op.name,
          ...(op.adopt ? { adopted: true } : {}),
        });
      } catch (err) {
        const error = asSinkError(`${op.op} ConfigMap ${op.namespace}/${op.name}`, err);
        failures.push({ op: op.op, kind: 'ConfigMap', namespace: op.namespace, name: op.name, error });
        this.notifyWrite(op.op, false);
        this.log.warn(`bootstrap ConfigMap ${op.op} failed`, {
          namespace: op.namespace,
          ...errorFields(error),
        });
      }
    }
    return this.summary(plan, done, failures);
  }

  private summary(
    plan: { unchanged: number; conflicts: readonly string[] },
    done: Record<WriteVerb, number>,
    failures: WriteFailure[],
  ): BootstrapRunReport {
    return {
      ...EMPTY_REPORT,
      created: done.create,
      updated: done.update,
      deleted: done.delete,
      unchanged: plan.unchanged,
      conflicts: plan.conflicts,
      failures,
    };
  }

  private afterRun(r: BootstrapRunReport): void {
    const warning = [
      ...r.issues.map(formatIssue),
      ...r.conflicts.map(
        (ns) => `namespace ${ns}: a ConfigMap aeraki-bootstrap-config not managed by Aeraki exists`,
      ),
    ].join('; ');
    if (warning !== this.lastWarning && warning !== '') this.log.warn(`bootstrap: ${warning}`);
    this.lastWarning = warning;
    if (r.listError) this.log.warn('bootstrap: listing ConfigMaps failed', errorFields(r.listError));
    const transient = (r.listError?.transient ?? false) || r.failures.some((f) => f.error.transient);
    if (this.retryTimer) this.clock.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    if (transient && !this.stopped) {
      const delay = this.backoff.next();
      this.retryTimer = this.clock.setTimeout(() => {
        this.retryTimer = undefined;
        this.trigger();
      }, delay);
    } else if (!r.skipped && r.failures.length === 0 && !r.interrupted) {
      this.backoff.reset();
    }
  }

  private notifyWrite(verb: WriteVerb, ok: boolean): void {
    try {
      this.o.onWrite?.(verb, ok);
    } catch {
      // a metrics hook must not turn a successful write into a failure
    }
  }

  private scheduleResync(): void {
    if (this.resyncTimer) this.clock.clearTimeout(this.resyncTimer);
    this.resyncTimer = undefined;
    const every = this.o.resyncMs ?? 600_000;
    if (every <= 0 || this.stopped) return;
    this.resyncTimer = this.clock.setTimeout(() => {
      this.trigger();
      this.scheduleResync();
    }, every);
  }
}
