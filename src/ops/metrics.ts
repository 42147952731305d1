/**
 * Every Prometheus metric of the controller, in one prom-client Registry per process (never the global one, so
 * tests can build as many as they like). Names are prefixed `aeraki_`; label values come from small fixed sets
 * (results, verbs, kinds, states, type URLs), never from object names. Node's default process metrics
 * (`process_*`, `nodejs_*`) are added under their standard names so stock dashboards work.
 *
 * Two ways in:
 * - events: components are handed this facade and call e.g. `metrics.reconcileRuns.inc({ result: 'success' })`,
 *   or the helpers `recordReconcileRun(report)` / `recordBootstrapWrite(verb)`;
 * - status: gauges and cumulative counters that a component already keeps (MCP status, RDS counters, the store's
 *   counts, leadership) are read at scrape time from providers given to `provide()`.
 */
import { createProxyStatusMetrics, type ProxyStatusMetrics } from './proxy-status-metrics.ts';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { createCertMetrics } from './cert-metrics.ts';
import { createHandshakeMetrics } from './handshake-metrics.ts';
import { createStatusMetrics } from './status-metrics.ts';
import type { StatusProviders } from './status-providers.ts';

export type ReconcileResult =
  'success' | 'error' | 'interrupted' | 'not_synced' | 'not_leader' | 'desired_failed';
export type WriteVerb = 'create' | 'update' | 'delete';

/** The fields of the reconciler's RunReport (src/envoyfilter/reconciler.ts) the metrics need; structural. */
export interface ReconcileRunLike {
  readonly skipped?: 'not-synced' | 'not-leader' | 'desired-failed';
  readonly created: number;
  readonly updated: number;
  readonly deleted: number;
  readonly unchanged: number;
  readonly kept: number;
  readonly failures: readonly { readonly op: WriteVerb; readonly error: { readonly transient: boolean } }[];
  readonly interrupted: boolean;
  readonly issues: number;
  /** Wall time of the run, if the reconciler measures it. */
  readonly durationMs?: number;
  /** The run planned only what changed: its counts are not the whole managed set. */
  readonly incremental?: boolean;
}

/** A ConfigIssue (src/model/result.ts), structurally: what `aeraki_config_issues` counts. */
export interface ConfigIssueLike {
  readonly severity?: 'error' | 'warning';
  readonly ref: { readonly kind: string };
}

export interface MetricsOptions {
  /** Adds prom-client's default process metrics (default true). */
  readonly defaultMetrics?: boolean;
  /** Value of the `version` label of `aeraki_build_info`. */
  readonly version?: string;
}

const SKIP_RESULT: Readonly<Record<NonNullable<ReconcileRunLike['skipped']>, ReconcileResult>> = {
  'not-synced': 'not_synced',
  'not-leader': 'not_leader',
  'desired-failed': 'desired_failed',
};

export class AerakiMetrics {
  readonly registry = new Registry();
  private providers: StatusProviders = {};
  private lastLeader: boolean | undefined;

  readonly reconcileRuns: Counter<'result'>;
  readonly reconcileDuration: Histogram;
  readonly reconcileErrors: Counter<'type'>;
  readonly configIssues: Gauge<'kind' | 'severity'>;
  readonly unhandledPorts: Gauge<'protocol'>;
  readonly writes: Counter<'verb' | 'result'>;
  readonly writeRefusals: Counter<'kind' | 'verb' | 'code'>;
  readonly managedEnvoyFilters: Gauge;
  readonly configObjects: Gauge<'kind'>;
  readonly kindsUnavailable: Gauge<'kind' | 'reason'>;
  readonly rejectedObjects: Gauge<'kind'>;
  readonly heldHosts: Gauge;
  readonly mcpConnectionState: Gauge<'state'>;
  readonly mcpSynced: Gauge;
  readonly mcpReconnects: Counter;
  readonly mcpNacksSent: Counter;
  readonly mcpResources: Gauge<'type_url'>;
  readonly rdsStreams: Gauge;
  readonly rdsStreamsOpened: Counter;
  readonly rdsPushes: Counter;
  readonly rdsAcks: Counter;
  readonly rdsNacks: Counter;
  readonly leader: Gauge;
  readonly leadershipChanges: Counter;
  readonly bootstrapWrites: Counter<'verb' | 'result'>;
  readonly vipsAllocated: Counter<'reason'>;
  readonly vipConflicts: Counter;
  readonly certExpiry: Gauge;
  readonly certRenewals: Counter<'result'>;
  readonly configToWrite: Histogram;
  readonly configToPush: Histogram;
  readonly configToAck: Histogram;
  readonly routeConfigsRejected: Gauge;
  readonly proxiesRejectingRoutes: Gauge;
  readonly resyncRepairs: Counter;
  /** aeraki_listener_rejections{reason}, aeraki_listener_rejecting_proxies{reason} (proxy-status). */
  readonly proxyStatus: ProxyStatusMetrics;

  constructor(options: MetricsOptions = {}) {
    const registers = [this.registry];
    const read = <T>(fn: (p: StatusProviders) => T | undefined): T | undefined => {
      try {
        return fn(this.providers);
      } catch {
        return undefined; // a failing provider blanks its own metrics only
      }
    };

    this.reconcileRuns = new Counter({
      name: 'aeraki_reconcile_runs_total',
      help: 'EnvoyFilter reconcile runs by result (success, error, interrupted, not_synced, not_leader, desired_failed).',
      labelNames: ['result'],
      registers,
    });
    this.reconcileDuration = new Histogram({
      name: 'aeraki_reconcile_duration_seconds',
      help: 'Duration of EnvoyFilter reconcile runs that planned and applied (skipped runs are not observed).',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.reconcileErrors = new Counter({
      name: 'aeraki_reconcile_errors_total',
      help: 'Failed EnvoyFilter writes by type: transient (retried with backoff) or terminal (wait for a change).',
      labelNames: ['type'],
      registers,
    });
    this.configIssues = new Gauge({
      name: 'aeraki_config_issues',
      help: 'Configuration issues (bad user input) by kind of the object and severity (error, warning): the rejected objects and the last generation pass.',
      labelNames: ['kind', 'severity'],
      registers,
    });
    this.unhandledPorts = new Gauge({
      name: 'aeraki_unhandled_ports',
      help: 'ServiceEntry ports named after a protocol nothing handles, by protocol (mongo, mysql; unknown for tcp-<other>), after the last generation pass.',
      labelNames: ['protocol'],
      registers,
    });
    this.writes = new Counter({
      name: 'aeraki_envoyfilter_writes_total',
      help: 'Writes of EnvoyFilters and gateway VirtualServices by verb and result.',
      labelNames: ['verb', 'result'],
      registers,
    });
    this.writeRefusals = new Counter({
      name: 'aeraki_write_refusals_total',
      help: 'EnvoyFilter and gateway VirtualService writes the API server refused (403 RBAC, 401, 404), by kind, verb and HTTP code; each is retried with backoff.',
      labelNames: ['kind', 'verb', 'code'],
      registers,
    });
    this.managedEnvoyFilters = new Gauge({
      name: 'aeraki_managed_envoyfilters',
      help: 'EnvoyFilters and gateway VirtualServices labelled manager=Aeraki that exist (after the last run, incremental or full).',
      registers,
      collect: () => {
        const v = read((p) => p.managedEnvoyFilters?.());
        if (v !== undefined) this.managedEnvoyFilters.set(v);
      },
    });
    const status = createStatusMetrics(registers, read);
    this.configObjects = status.configObjects;
    this.kindsUnavailable = status.kindsUnavailable;
    this.rejectedObjects = status.rejectedObjects;
    this.heldHosts = status.heldHosts;
    this.mcpConnectionState = status.mcpConnectionState;
    this.mcpSynced = status.mcpSynced;
    this.mcpReconnects = status.mcpReconnects;
    this.mcpNacksSent = status.mcpNacksSent;
    this.mcpResources = status.mcpResources;
    this.rdsStreams = status.rdsStreams;
    this.rdsStreamsOpened = status.rdsStreamsOpened;
    this.rdsPushes = status.rdsPushes;
    this.rdsAcks = status.rdsAcks;
    this.rdsNacks = status.rdsNacks;
    this.routeConfigsRejected = status.routeConfigsRejected;
    this.proxiesRejectingRoutes = status.proxiesRejectingRoutes;
    this.leader = new Gauge({
      name: 'aeraki_leader',
      help: '1 while this replica holds the leader lease (writes EnvoyFilters and bootstrap ConfigMaps).',
      registers,
      collect: () => {
        const v = read((p) => p.leader?.());
        if (v !== undefined) this.leader.set(v ? 1 : 0);
      },
    });
    this.leadershipChanges = new Counter({
      name: 'aeraki_leadership_changes_total',
      help: 'Times this replica started or stopped leading.',
      registers,
    });
    this.bootstrapWrites = new Counter({
      name: 'aeraki_bootstrap_configmap_writes_total',
      help: 'Writes of the sidecar bootstrap ConfigMap (aeraki-bootstrap-config) by verb and result.',
      labelNames: ['verb', 'result'],
      registers,
    });
    this.vipsAllocated = new Counter({
      name: 'aeraki_vips_allocated_total',
      help: 'ServiceEntries given a VIP, by reason: unaddressed (had none) or duplicate (another kept the VIP it held).',
      labelNames: ['reason'],
      registers,
    });
    this.vipConflicts = new Counter({
      name: 'aeraki_vip_conflicts_total',
      help: 'ServiceEntry VIP updates refused with 409 Conflict (changed since listed; retried).',
      registers,
    });
    ({ certExpiry: this.certExpiry, certRenewals: this.certRenewals } = createCertMetrics(registers, read));
    createHandshakeMetrics(registers, read);
    const convergenceBuckets = [0.05, 0.1, 0.25, 0.5, 1, 1.5, 2, 5, 10, 15, 30, 60, 120];
    this.configToWrite = new Histogram({
      name: 'aeraki_config_to_write_seconds',
      help: 'From the store event that changed a source to the write of its EnvoyFilter (other kinds: to the last write of the run they caused).',
      buckets: convergenceBuckets,
      registers,
    });
    this.configToPush = new Histogram({
      name: 'aeraki_config_to_push_seconds',
      help: 'From the store event that changed a route input to the RDS push (snapshot) that carries the change.',
      buckets: convergenceBuckets,
      registers,
    });
    this.configToAck = new Histogram({
      name: 'aeraki_config_to_ack_seconds',
      help: 'From the store event that changed a route configuration to the moment every proxy subscribed to it acknowledged the new version (one observation per change and route configuration).',
      buckets: convergenceBuckets,
      registers,
    });
    this.resyncRepairs = new Counter({
      name: 'aeraki_resync_repairs_total',
      help: 'Differences between the watched cache of managed objects and the API server that a periodic full resync found and repaired (should stay 0).',
      registers,
    });
    new Gauge({
      name: 'aeraki_build_info',
      help: 'Always 1; the version label names the running build.',
      labelNames: ['version'],
      registers,
    }).set({ version: options.version ?? 'unknown' }, 1);
    this.proxyStatus = createProxyStatusMetrics(registers);
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /**
   * Registers status providers read at every scrape (merged with earlier ones; a later one for the same key
   * wins). Returns a function that removes exactly these providers again.
   */
  provide(providers: StatusProviders): () => void {
    this.providers = { ...this.providers, ...providers };
    return () => {
      const next: Record<string, unknown> = { ...this.providers };
      for (const [key, fn] of Object.entries(providers)) if (next[key] === fn) delete next[key];
      this.providers = next;
    };
  }

  /** Records one reconciler run (call it from the reconciler's `onRun` listener). */
  recordReconcileRun(report: ReconcileRunLike): void {
    if (report.skipped) {
      this.reconcileRuns.inc({ result: SKIP_RESULT[report.skipped] });
      return;
    }
    const result: ReconcileResult =
      report.failures.length > 0 ? 'error' : report.interrupted ? 'interrupted' : 'success';
    this.reconcileRuns.inc({ result });
    if (report.durationMs !== undefined) this.reconcileDuration.observe(report.durationMs / 1000);
    const ok: Record<WriteVerb, number> = {
      create: report.created,
      update: report.updated,
      delete: report.deleted,
    };
    const failed: Record<WriteVerb, number> = { create: 0, update: 0, delete: 0 };
    for (const f of report.failures) {
      failed[f.op]++;
      this.reconcileErrors.inc({ type: f.error.transient ? 'transient' : 'terminal' });
    }
    for (const verb of ['create', 'update', 'delete'] as const) {
      if (ok[verb] > 0) this.writes.inc({ verb, result: 'success' }, ok[verb]);
      if (failed[verb] > 0) this.writes.inc({ verb, result: 'error' }, failed[verb]);
    }
    // Without a provider (no drift watch: the directory output), a full run's counts are the managed set.
    if (!report.interrupted && !report.incremental && this.providers.managedEnvoyFilters === undefined) {
      this.managedEnvoyFilters.set(report.created + report.updated + report.unchanged + report.kept);
    }
  }

  /**
   * Sets `aeraki_unhandled_ports` from one generation pass (generateAll's unhandledPorts): the counts replace the
   * previous pass's, so a protocol that no longer occurs disappears.
   */
  recordUnhandledPorts(ports: readonly { readonly protocol: string }[]): void {
    const counts = new Map<string, number>();
    for (const p of ports) counts.set(p.protocol, (counts.get(p.protocol) ?? 0) + 1);
    this.unhandledPorts.reset();
    for (const [protocol, n] of counts) this.unhandledPorts.set({ protocol }, n);
  }

  /**
   * Sets `aeraki_config_issues{kind,severity}` from the current issues (the rejected objects' and the last
   * generation pass's): the counts replace the previous ones, so a kind without issues disappears.
   */
  recordConfigIssues(issues: readonly ConfigIssueLike[]): void {
    const counts = new Map<string, { kind: string; severity: string; n: number }>();
    for (const i of issues) {
      const severity = i.severity ?? 'error';
      const key = `${i.ref.kind}|${severity}`;
      const c = counts.get(key) ?? { kind: i.ref.kind, severity, n: 0 };
      c.n++;
      counts.set(key, c);
    }
    this.configIssues.reset();
    for (const { kind, severity, n } of counts.values()) this.configIssues.set({ kind, severity }, n);
  }

  /** Records a leadership change (call from the elector's started/stopped callbacks). */
  recordLeadership(leading: boolean): void {
    if (this.lastLeader !== undefined && this.lastLeader !== leading) this.leadershipChanges.inc();
    if (this.lastLeader === undefined && leading) this.leadershipChanges.inc();
    this.lastLeader = leading;
    if (this.providers.leader === undefined) this.leader.set(leading ? 1 : 0);
  }

  /** Records one bootstrap ConfigMap write (the namespace bootstrap controller's `onWrite` hook). */
  recordBootstrapWrite(verb: WriteVerb, ok: boolean): void {
    this.bootstrapWrites.inc({ verb, result: ok ? 'success' : 'error' });
  }

  /** Records one ServiceEntry VIP update (the VIP allocator's `onWrite` hook). */
  recordVipWrite(
    reason: 'unaddressed' | 'duplicate',
    error: { readonly code?: number | undefined } | undefined,
  ): void {
    if (!error) this.vipsAllocated.inc({ reason });
    else if (error.code === 409) this.vipConflicts.inc();
  }

  /** Content type of `render()` (Prometheus text format 0.0.4). */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus exposition text; runs every status provider once per metric. */
  render(): Promise<string> {
    return this.registry.metrics();
  }
}
