/**
 * Namespace bootstrap controller: keeps ConfigMap `aeraki-bootstrap-config` (config.ts) in exactly
 * the namespaces labelled `istio-injection=enabled` or with a non-empty `istio.io/rev`, with the content of the
 * current RDS address: created when the label appears, updated when the address/port changes (also at start
 * after a redeploy), deleted when the label goes away. Only ConfigMaps labelled `manager: Aeraki` are updated
 * or deleted (plus Aeraki's own unlabelled ones, adopted; see plan.ts).
 *
 * Driving it (src/app/kube-parts.ts wires it; src/controller is never imported here):
 * - event mode: feed a Namespace informer into `upsertNamespace` / `deleteNamespace` (`namespaceInfoOf`
 *   converts an informer object), pass `isSynced` = "the informer has listed once", and call `trigger()` when
 *   it turns true; `start()` (on becoming leader: it is a leader part, kit/runtime.ts) requests a run and adds a periodic resync that repairs hand edits;
 * - level mode: `reconcile(namespaces)` with the complete set of namespaces runs once and reports.
 * Runs never overlap; triggers during a run cause one more run after it (kit/controller-loop.ts). Every write
 * is preceded by a `mayWrite()` check (nothing is written once `stop()` was called, e.g. on lost leadership);
 * while not synced, the controller re-checks every `pollMs`. Transient failures are retried with capped, jittered
 * backoff; terminal ones wait for the next change or resync. Writes go through the injected `apply`
 * (kit/apply.ts, paced by src/app/), one at a time in namespace order; the plan is kit/diff.ts's (plan.ts).
 */
import type { Logger } from '../util/logger.ts';
import { errorFields } from '../util/logger.ts';
import { formatIssue } from '../model/result.ts';
import type { BackoffOptions } from '../util/backoff.ts';
import type { Clock } from '../util/clock.ts';
import { LoopController, loopSettings } from '../kit/controller-loop.ts';
import type { BootstrapConfigMap, BootstrapTarget } from './config.ts';
import type { BootstrapConfigMapPort } from './kube.ts';
import {
  planBootstrap,
  wantsBootstrap,
  type BootstrapPlan,
  type ExistingConfigMap,
  type NamespaceInfo,
} from './plan.ts';
import { planOps, type PlannedWrite } from '../kit/apply.ts';
import {
  asSinkError,
  writeRunHandlers,
  type ApplyWrites,
  type SinkError,
  type WriteVerb,
} from '../kit/write.ts';
import { EMPTY_REPORT, type BootstrapRunReport } from './report.ts';

export { namespaceInfoOf, wantsBootstrap, type NamespaceInfo } from './plan.ts';
export type { BootstrapConfigMapPort } from './kube.ts';
export type { BootstrapRunReport } from './report.ts';

export type { WriteVerb } from '../kit/write.ts';

export interface NamespaceBootstrapOptions {
  readonly port: BootstrapConfigMapPort;
  readonly target: BootstrapTarget;
  /** Executes the writes of a run (kit/apply.ts applyWrites). */
  readonly apply: ApplyWrites;
  /** The namespace set is complete (event mode); runs are skipped until then (default: always). */
  readonly isSynced?: () => boolean;
  /** Re-check period while not synced or interrupted (default 1 s). */
  readonly pollMs?: number;
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

type ConfigMapWrite = PlannedWrite<BootstrapConfigMap, ExistingConfigMap>;

export class NamespaceBootstrapController extends LoopController<BootstrapRunReport> {
  private readonly o: NamespaceBootstrapOptions;
  private readonly namespaces = new Map<string, NamespaceInfo>();
  private target: BootstrapTarget;
  private lastWarning = '';

  constructor(options: NamespaceBootstrapOptions) {
    super({
      ...writeRunHandlers(EMPTY_REPORT, 'bootstrap run'),
      ...loopSettings(options, { quietMs: 0, maxWaitMs: 0, component: 'namespace-bootstrap' }),
    });
    this.o = options;
    this.target = options.target;
    this.loop.onRun((r) => this.warn(r));
    if (options.onRun) this.loop.onRun(options.onRun);
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

  /** Changes the RDS address/port/identity; every managed ConfigMap is rewritten by the next run. */
  setTarget(target: BootstrapTarget): void {
    const t = this.target;
    if (target.address === t.address && target.port === t.port && target.serverIdentity === t.serverIdentity)
      return;
    this.target = target;
    this.trigger();
  }

  /**
   * Level mode: `namespaces` (when given) replaces the known set; then one run, after any run in progress.
   * Never rejects: failures are in the report.
   */
  override reconcile(namespaces?: Iterable<NamespaceInfo>): Promise<BootstrapRunReport> {
    if (namespaces) {
      this.namespaces.clear();
      for (const ns of namespaces) this.namespaces.set(ns.name, ns);
    }
    return super.reconcile();
  }

  protected async runOnce(): Promise<BootstrapRunReport> {
    let existing;
    try {
      existing = await this.o.port.list();
    } catch (err) {
      return { ...EMPTY_REPORT, listError: asSinkError('list configmaps', err) };
    }
    const planned = planBootstrap(this.namespaces.values(), existing, this.target);
    if (!planned.ok) return { ...EMPTY_REPORT, skipped: 'invalid-target', issues: planned.issues };
    const plan = planned.value;
    // One write at a time: few namespaces, and the writes keep namespace order.
    const result = await this.o.apply(this.writes(plan), {
      concurrency: 1,
      mayWrite: () => this.loop.mayWrite(),
      onWrite: (op, error) => this.wrote(op, error),
    });
    return { ...EMPTY_REPORT, ...result, unchanged: plan.unchanged, conflicts: plan.conflicts };
  }

  private writes(plan: BootstrapPlan): ConfigMapWrite[] {
    const port = this.o.port;
    const at = (namespace: string, name: string) => ({ kind: 'ConfigMap', namespace, name });
    return planOps(plan, port, {
      desired: (cm) => at(cm.metadata.namespace, cm.metadata.name),
      existing: (cm) => at(cm.namespace, cm.name),
    });
  }

  private wrote(op: ConfigMapWrite, error: SinkError | undefined): void {
    try {
      this.o.onWrite?.(op.op, error === undefined);
    } catch {
      // a metrics hook must not turn a successful write into a failure
    }
    if (error) {
      this.log.warn(`bootstrap ConfigMap ${op.op} failed`, {
        namespace: op.namespace,
        ...errorFields(error),
      });
      return;
    }
    this.log.info(`${op.op}d bootstrap ConfigMap`, {
      namespace: op.namespace,
      name: op.name,
      ...(op.adopt ? { adopted: true } : {}),
    });
  }

  private warn(r: BootstrapRunReport): void {
    const warning = [
      ...r.issues.map(formatIssue),
      ...r.conflicts.map(
        (ns) => `namespace ${ns}: a ConfigMap aeraki-bootstrap-config not managed by Aeraki exists`,
      ),
    ].join('; ');
    if (warning !== this.lastWarning && warning !== '') this.log.warn(`bootstrap: ${warning}`);
    this.lastWarning = warning;
    if (r.listError) this.log.warn('bootstrap: listing ConfigMaps failed', errorFields(r.listError));
  }
}
