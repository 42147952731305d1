import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NO_WRITES } from '../../src/kit/write.ts';
import { AerakiMetrics, type ReconcileRunLike } from '../../src/ops/metrics.ts';

const run = (over: Partial<ReconcileRunLike> = {}): ReconcileRunLike => ({
  ...NO_WRITES,
  issues: 0,
  ...over,
});

/** The value of one sample line, e.g. `aeraki_reconcile_runs_total{result="success"}`. */
function sample(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    if (line.slice(0, i) === series) return Number(line.slice(i + 1));
  }
  return undefined;
}

describe('ops/metrics', () => {
  it('names every metric aeraki_ and declares HELP and TYPE', async () => {
    const m = new AerakiMetrics({ defaultMetrics: false, version: '1.2.3' });
    const text = await m.render();
    const names = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((x) => x[1]!);
    assert.ok(names.length >= 20, `only ${names.length} metrics`);
    for (const n of names) assert.match(n, /^aeraki_/);
    for (const required of [
      'aeraki_reconcile_runs_total',
      'aeraki_reconcile_duration_seconds',
      'aeraki_reconcile_errors_total',
      'aeraki_envoyfilter_writes_total',
      'aeraki_managed_envoyfilters',
      'aeraki_config_objects',
      'aeraki_mcp_connection_state',
      'aeraki_mcp_reconnects_total',
      'aeraki_rds_streams',
      'aeraki_rds_pushes_total',
      'aeraki_rds_nacks_total',
      'aeraki_route_configs_rejected',
      'aeraki_proxies_rejecting_routes',
      'aeraki_config_to_ack_seconds',
      'aeraki_leader',
    ]) {
      assert.ok(names.includes(required), required);
    }
    assert.equal(sample(text, 'aeraki_build_info{version="1.2.3"}'), 1);
    assert.match(m.contentType, /^text\/plain; version=0\.0\.4/);
  });

  it('includes the default process metrics under their standard names', async () => {
    const m = new AerakiMetrics();
    const text = await m.render();
    assert.match(text, /^# TYPE process_cpu_user_seconds_total counter$/m);
    assert.match(text, /^# TYPE nodejs_heap_size_used_bytes gauge$/m);
  });

  it('records reconcile runs: results, writes by verb, errors by type, duration, managed count', async () => {
    const m = new AerakiMetrics({ defaultMetrics: false });
    m.recordReconcileRun(run({ created: 2, updated: 1, unchanged: 5, kept: 1, issues: 3, durationMs: 40 }));
    m.recordReconcileRun(
      run({
        deleted: 1,
        failures: [
          { op: 'create', error: { transient: true } },
          { op: 'update', error: { transient: false } },
        ],
      }),
    );
    m.recordReconcileRun(run({ skipped: 'not-leader' }));
    m.recordReconcileRun(run({ skipped: 'not-synced' }));
    let text = await m.render();
    assert.equal(sample(text, 'aeraki_reconcile_runs_total{result="success"}'), 1);
    assert.equal(sample(text, 'aeraki_reconcile_runs_total{result="error"}'), 1);
    assert.equal(sample(text, 'aeraki_reconcile_runs_total{result="not_leader"}'), 1);
    assert.equal(sample(text, 'aeraki_reconcile_runs_total{result="not_synced"}'), 1);
    assert.equal(sample(text, 'aeraki_envoyfilter_writes_total{verb="create",result="success"}'), 2);
    assert.equal(sample(text, 'aeraki_envoyfilter_writes_total{verb="create",result="error"}'), 1);
    assert.equal(sample(text, 'aeraki_envoyfilter_writes_total{verb="update",result="success"}'), 1);
    assert.equal(sample(text, 'aeraki_envoyfilter_writes_total{verb="update",result="error"}'), 1);
    assert.equal(sample(text, 'aeraki_envoyfilter_writes_total{verb="delete",result="success"}'), 1);
    assert.equal(sample(text, 'aeraki_reconcile_errors_total{type="transient"}'), 1);
    assert.equal(sample(text, 'aeraki_reconcile_errors_total{type="terminal"}'), 1);
    assert.equal(sample(text, 'aeraki_reconcile_duration_seconds_count'), 1);
    assert.equal(sample(text, 'aeraki_reconcile_duration_seconds_sum'), 0.04);
    assert.equal(sample(text, 'aeraki_managed_envoyfilters'), 0);
    m.recordReconcileRun(run({ created: 1, unchanged: 2, incremental: true }));
    text = await m.render();
    assert.equal(
      sample(text, 'aeraki_managed_envoyfilters'),
      0,
      "an incremental run's counts are not the whole set",
    );
  });

  it('counts config issues by kind and severity, replacing the previous counts; held hosts from a provider', async () => {
    const m = new AerakiMetrics({ defaultMetrics: false });
    const at = (kind: string, severity?: 'error' | 'warning') => ({
      ref: { kind },
      ...(severity ? { severity } : {}),
    });
    m.recordConfigIssues([
      at('MetaRouter'),
      at('MetaRouter', 'error'),
      at('MetaRouter', 'warning'),
      at('Gateway'),
    ]);
    let held = 2;
    m.provide({ heldHosts: () => held });
    let text = await m.render();
    assert.equal(sample(text, 'aeraki_config_issues{kind="MetaRouter",severity="error"}'), 2);
    assert.equal(sample(text, 'aeraki_config_issues{kind="MetaRouter",severity="warning"}'), 1);
    assert.equal(sample(text, 'aeraki_config_issues{kind="Gateway",severity="error"}'), 1);
    assert.equal(sample(text, 'aeraki_held_hosts'), 2);
    m.recordConfigIssues([at('Gateway', 'warning')]);
    held = 0;
    text = await m.render();
    assert.equal(sample(text, 'aeraki_config_issues{kind="MetaRouter",severity="error"}'), undefined);
    assert.equal(sample(text, 'aeraki_config_issues{kind="Gateway",severity="warning"}'), 1);
    assert.equal(sample(text, 'aeraki_held_hosts'), 0);
  });

  it('reads MCP, RDS, store and leadership status from providers at scrape time', async () => {
    const m = new AerakiMetrics({ defaultMetrics: false });
    let state = 'connecting';
    let reconnects = 0;
    const rds = { streamsActive: 2, streamsOpened: 5, responses: 9, acks: 8, nacks: 1 };
    m.provide({
      mcp: () => ({
        state,
        synced: state === 'connected',
        reconnects,
        nacksSent: 0,
        types: [{ typeUrl: 'networking.istio.io/v1/ServiceEntry', resources: 3 }],
      }),
      rds: () => rds,
      leader: () => true,
      configObjects: () => ({ ServiceEntry: 3, MetaRouter: 1 }),
      rejectedObjects: () => ({ ServiceEntry: 0, MetaRouter: 2 }),
      managedEnvoyFilters: () => 7,
    });
    let text = await m.render();
    assert.equal(sample(text, 'aeraki_mcp_connection_state{state="connecting"}'), 1);
    assert.equal(sample(text, 'aeraki_mcp_connection_state{state="connected"}'), 0);
    assert.equal(sample(text, 'aeraki_mcp_synced'), 0);
    assert.equal(sample(text, 'aeraki_mcp_reconnects_total'), 0);
    assert.equal(sample(text, 'aeraki_mcp_resources{type_url="networking.istio.io/v1/ServiceEntry"}'), 3);
    assert.equal(sample(text, 'aeraki_rds_streams'), 2);
    assert.equal(sample(text, 'aeraki_rds_streams_opened_total'), 5);
    assert.equal(sample(text, 'aeraki_rds_pushes_total'), 9);
    assert.equal(sample(text, 'aeraki_rds_nacks_total'), 1);
    assert.equal(sample(text, 'aeraki_leader'), 1);
    assert.equal(sample(text, 'aeraki_config_objects{kind="MetaRouter"}'), 1);
    assert.equal(sample(text, 'aeraki_config_objects{kind="ServiceEntry"}'), 3);
    assert.equal(sample(text, 'aeraki_managed_envoyfilters'), 7);
    assert.equal(sample(text, 'aeraki_config_rejected_objects{kind="MetaRouter"}'), 2);
    assert.equal(sample(text, 'aeraki_config_rejected_objects{kind="ServiceEntry"}'), 0);

    state = 'connected';
    reconnects = 4;
    rds.streamsActive = 0;
    text = await m.render();
    assert.equal(sample(text, 'aeraki_mcp_connection_state{state="connecting"}'), 0);
    assert.equal(sample(text, 'aeraki_mcp_connection_state{state="connected"}'), 1);
    assert.equal(sample(text, 'aeraki_mcp_synced'), 1);
    assert.equal(sample(text, 'aeraki_mcp_reconnects_total'), 4);
    assert.equal(sample(text, 'aeraki_rds_streams'), 0);
  });

  it('a throwing provider blanks only its own metrics', async () => {
    const m = new AerakiMetrics({ defaultMetrics: false });
    const undo = m.provide({
      mcp: () => {
        throw new Error('boom');
      },
      rds: () => ({ streamsActive: 1, streamsOpened: 1, responses: 1, acks: 1, nacks: 0 }),
    });
    const text = await m.render();
    assert.equal(sample(text, 'aeraki_mcp_connection_state{state="connected"}'), undefined);
    assert.equal(sample(text, 'aeraki_rds_streams'), 1);
    undo();
    const after = await m.render();
    assert.equal(sample(after, 'aeraki_rds_streams_opened_total'), 0);
  });

  it("reads the certificate's expiry and renewals from its provider; 0 before the first certificate", async () => {
    const m = new AerakiMetrics({ defaultMetrics: false });
    let status: { expiresAt: number | undefined; renewals: { success: number; failure: number } } = {
      expiresAt: undefined,
      renewals: { success: 0, failure: 3 },
    };
    m.provide({ certificate: () => status });
    const waiting = await m.render();
    assert.equal(sample(waiting, 'aeraki_cert_expiry_timestamp_seconds'), 0);
    assert.equal(sample(waiting, 'aeraki_cert_renewals_total{result="failure"}'), 3);
    status = { expiresAt: 1_750_000_000_500, renewals: { success: 1, failure: 3 } };
    const issued = await m.render();
    assert.equal(sample(issued, 'aeraki_cert_expiry_timestamp_seconds'), 1_750_000_000.5);
    assert.equal(sample(issued, 'aeraki_cert_renewals_total{result="success"}'), 1);
    assert.equal(sample(issued, 'aeraki_cert_renewals_total{result="failure"}'), 3);
  });

  it('sets the unhandled ports by protocol after each generation pass, replacing the previous counts', async () => {
    const m = new AerakiMetrics({ defaultMetrics: false });
    m.recordUnhandledPorts([{ protocol: 'mongo' }, { protocol: 'unknown' }, { protocol: 'mongo' }]);
    let text = await m.render();
    assert.equal(sample(text, 'aeraki_unhandled_ports{protocol="mongo"}'), 2);
    assert.equal(sample(text, 'aeraki_unhandled_ports{protocol="unknown"}'), 1);
    m.recordUnhandledPorts([{ protocol: 'mysql' }]);
    text = await m.render();
    assert.equal(sample(text, 'aeraki_unhandled_ports{protocol="mysql"}'), 1);
    assert.equal(sample(text, 'aeraki_unhandled_ports{protocol="mongo"}'), undefined, 'gone with its ports');
  });

  it('counts leadership changes and bootstrap writes', async () => {
    const m = new AerakiMetrics({ defaultMetrics: false });
    m.recordLeadership(false);
    m.recordLeadership(true);
    m.recordLeadership(true);
    m.recordLeadership(false);
    m.recordBootstrapWrite('create', true);
    m.recordBootstrapWrite('delete', false);
    const text = await m.render();
    assert.equal(sample(text, 'aeraki_leadership_changes_total'), 2);
    assert.equal(sample(text, 'aeraki_leader'), 0);
    assert.equal(sample(text, 'aeraki_bootstrap_configmap_writes_total{verb="create",result="success"}'), 1);
    assert.equal(sample(text, 'aeraki_bootstrap_configmap_writes_total{verb="delete",result="error"}'), 1);
  });

  it('counts VIPs allocated by reason and update conflicts', async () => {
    const m = new AerakiMetrics({ defaultMetrics: false });
    m.recordVipWrite('unaddressed', undefined);
    m.recordVipWrite('unaddressed', undefined);
    m.recordVipWrite('duplicate', undefined);
    m.recordVipWrite('unaddressed', { code: 409 });
    m.recordVipWrite('unaddressed', { code: 500 });
    const text = await m.render();
    assert.equal(sample(text, 'aeraki_vips_allocated_total{reason="unaddressed"}'), 2);
    assert.equal(sample(text, 'aeraki_vips_allocated_total{reason="duplicate"}'), 1);
    assert.equal(sample(text, 'aeraki_vip_conflicts_total'), 1);
  });

  it('keeps registries apart: two instances never share a series', async () => {
    const a = new AerakiMetrics({ defaultMetrics: false });
    const b = new AerakiMetrics({ defaultMetrics: false });
    a.reconcileRuns.inc({ result: 'success' });
    assert.equal(sample(await b.render(), 'aeraki_reconcile_runs_total{result="success"}'), undefined);
    assert.equal(sample(await a.render(), 'aeraki_reconcile_runs_total{result="success"}'), 1);
  });
});
