/**
 * VIP allocation controller (spec/aeraki-periphery.md 5.1): gives every eligible ServiceEntry of the API server a
 * VIP of its own from 240.240.0.0/16 (plan.ts says which) by one Update of its `spec.addresses`.
 *
 * The source of truth is the API server itself: every run lists all ServiceEntries (with their
 * resourceVersions) and plans from that list, so a run never plans on a state older than its own earlier
 * writes, VIPs written before a restart or a leader change are found again, and a ServiceEntry written by
 * someone else since the list makes its Update fail with 409 (transient: retried with backoff, re-listing).
 * The ConfigStore is not used: with the MCP source it holds istiod's view (no resourceVersion, and
 * ServiceEntries that are not API objects at all).
 *
 * Driving it (src/app/kube-parts.ts wires it): call `trigger()` on every ServiceEntry change (an informer) and
 * once synced; `start()` (on becoming leader: it is a leader part, kit/runtime.ts) requests a run and adds a
 * periodic resync. Runs are debounced, never overlap (kit/controller-loop.ts), are skipped while `isSynced()` is
 * false (re-checked every `pollMs`), and `mayWrite()` (not stopped) is checked before every single write. Writes go through the injected
 * `apply` (kit/apply.ts); the plan is plan.ts, through kit/diff.ts.
 */
import { LoopController, loopSettings, type LoopControllerSettings } from '../kit/controller-loop.ts';
import { errorFields } from '../util/logger.ts';
import type { Protocol } from '../model/protocol.ts';
import { formatIssue } from '../model/result.ts';
import {
  asSinkError,
  writeRunHandlers,
  type ApplyWrites,
  type SinkError,
  type WriteOp,
} from '../kit/write.ts';
import type { ServiceEntryPort, StoredServiceEntry } from './kube.ts';
import { planVips, type VipUpdate } from './plan.ts';
import { EMPTY_VIP_REPORT, type VipRunReport } from './report.ts';

export type { ServiceEntryPort } from './kube.ts';
export type { VipRunReport } from './report.ts';

/** Debounce defaults: 500 ms quiet, 5 s at most. */
export interface VipAllocatorOptions extends LoopControllerSettings<VipRunReport> {
  readonly port: ServiceEntryPort;
  /** Executes the writes of a run (kit/apply.ts applyWrites). */
  readonly apply: ApplyWrites;
  /** The protocols the generators handle (only ServiceEntries with such a port get a VIP). */
  readonly protocols: readonly Protocol[];
  /** Called after every Update attempt (metrics); `error` is set when it failed. */
  readonly onWrite?: (reason: VipUpdate<StoredServiceEntry>['reason'], error: SinkError | undefined) => void;
}

interface VipWrite extends WriteOp {
  readonly update: VipUpdate<StoredServiceEntry>;
}

export class VipAllocator extends LoopController<VipRunReport> {
  private readonly o: VipAllocatorOptions;
  private readonly handled: ReadonlySet<Protocol>;
  private lastIssues = '';

  constructor(options: VipAllocatorOptions) {
    super({
      ...writeRunHandlers(EMPTY_VIP_REPORT, 'vip run'),
      ...loopSettings(options, { quietMs: 500, maxWaitMs: 5000, component: 'vip-allocator' }),
    });
    this.o = options;
    this.handled = new Set(options.protocols);
    this.loop.onRun((r) => this.report(r));
    if (options.onRun) this.loop.onRun(options.onRun);
  }

  protected async runOnce(): Promise<VipRunReport> {
    let listed;
    try {
      listed = await this.o.port.list();
    } catch (err) {
      return { ...EMPTY_VIP_REPORT, listError: asSinkError('list serviceentries', err) };
    }
    const plan = planVips(listed, this.handled);
    const port = this.o.port;
    const writes: VipWrite[] = plan.updates.map((update) => ({
      op: 'update',
      kind: 'ServiceEntry',
      namespace: update.serviceEntry.metadata.namespace,
      name: update.serviceEntry.metadata.name,
      update,
      write: () => port.updateAddresses(update.serviceEntry, update.addresses),
    }));
    let allocated = 0;
    let reassigned = 0;
    const result = await this.o.apply(writes, {
      concurrency: 4,
      mayWrite: () => this.loop.mayWrite(),
      onWrite: (op, error) => {
        if (!error && op.update.reason === 'unaddressed') allocated++;
        if (!error && op.update.reason === 'duplicate') reassigned++;
        this.wrote(op, error);
      },
    });
    return {
      ...EMPTY_VIP_REPORT,
      allocated,
      reassigned,
      kept: plan.kept,
      failures: result.failures,
      interrupted: result.interrupted,
      issues: plan.issues,
    };
  }

  private wrote(op: VipWrite, error: SinkError | undefined): void {
    try {
      this.o.onWrite?.(op.update.reason, error);
    } catch {
      // a metrics hook must not turn a successful write into a failure
    }
    const fields = { namespace: op.namespace, name: op.name, vip: op.update.vip, reason: op.update.reason };
    if (error) this.log.warn('ServiceEntry VIP update failed', { ...fields, ...errorFields(error) });
    else this.log.info('allocated ServiceEntry VIP', fields);
  }

  private report(r: VipRunReport): void {
    const issues = r.issues.map(formatIssue).join('; ');
    if (issues !== this.lastIssues && issues !== '') this.log.warn(`vip allocation: ${issues}`);
    this.lastIssues = issues;
    if (r.listError) this.log.warn('vip allocation: listing ServiceEntries failed', errorFields(r.listError));
  }
}
