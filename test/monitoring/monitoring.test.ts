// The monitoring component (manifests/monitoring/) checked with the tools of its ecosystem: it builds with
// `kubectl kustomize`, `promtool check rules` accepts its alerts and the dashboard's queries, `promtool test rules`
// runs a unit test per alert (alerts.promtool.yaml), `promtool check metrics` finds no problem of ours in a live
// /metrics, and every metric and label the alerts and the dashboard use is one the controller exports. Without
// promtool or kubectl those tests skip, unless CI=true, where they fail.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { before, describe, it } from 'node:test';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { AerakiMetrics } from '../../src/ops/metrics.ts';
import { registerRegistryMetrics } from '../../src/ops/registry-metrics.ts';
import { familyOf, families, type Family } from './exposition.ts';
import { scrapeLiveMetrics } from './live-metrics.ts';
import { promqlUses } from './promql-uses.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const DIR = resolve(ROOT, 'manifests/monitoring');

/** `false` when `command` runs; otherwise why the test skips (or, with CI=true, `false`: the test runs and fails). */
function needs(command: string, install: string): { skip: string | false } {
  const found = spawnSync(command, ['--version'], { stdio: 'ignore' }).error === undefined;
  if (found || process.env.CI === 'true') return { skip: false };
  return { skip: `${command} is not installed (${install}; with CI=true this test fails)` };
}
const PROMTOOL = needs('promtool', ".ci/run installs Debian's prometheus");
const KUBECTL = needs('kubectl', 'the manifests tests need it too');

/** Runs promtool; returns its exit status and output instead of throwing. */
function promtool(args: string[], cwd: string, input?: string): { status: number; out: string } {
  const r = spawnSync('promtool', args, { cwd, input, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.error, undefined, `promtool: ${r.error?.message} (install Debian's prometheus)`);
  return { status: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
const ruleObject = parse(readFileSync(resolve(DIR, 'prometheus-rule.yaml'), 'utf8')) as {
  spec: { groups: { name: string; rules: Rule[] }[] };
};
const groups = ruleObject.spec.groups;
const alerts = groups.flatMap((g) => g.rules);

interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { uid: string };
  targets?: { expr: string; refId: string }[];
}
const dashboard = JSON.parse(readFileSync(resolve(DIR, 'dashboard.json'), 'utf8')) as {
  uid: string;
  panels: Panel[];
};
/** Every dashboard query, with Grafana's $__rate_interval as Prometheus would get it. */
const queries = dashboard.panels.flatMap((p) =>
  (p.targets ?? []).map((t) => ({
    panel: p,
    refId: t.refId,
    expr: t.expr.replaceAll('$__rate_interval', '2m'),
  })),
);

/** A temp dir holding the alerts' groups as rules.yaml and the unit tests beside them. */
function withRulesDir<T>(fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'aeraki-rules-'));
  try {
    writeFileSync(join(dir, 'rules.yaml'), stringify({ groups }));
    copyFileSync(resolve(import.meta.dirname, 'alerts.promtool.yaml'), join(dir, 'alerts.promtool.yaml'));
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('manifests/monitoring', () => {
  it(
    'kubectl kustomize builds an overlay using the component: ServiceMonitor, PrometheusRule, dashboard',
    KUBECTL,
    () => {
      const overlay = mkdtempSync(join(tmpdir(), 'aeraki-kustomize-'));
      try {
        const rel = (p: string) => relative(overlay, resolve(ROOT, p));
        writeFileSync(
          join(overlay, 'kustomization.yaml'),
          `resources: [${rel('manifests')}]\ncomponents: [${rel('manifests/monitoring')}]\n`,
        );
        const out = execFileSync('kubectl', ['kustomize', overlay], { encoding: 'utf8', timeout: 60_000 });
        const objects = parseAllDocuments(out).map((d) => d.toJS() as Record<string, any>);
        const service = objects.find((o) => o.kind === 'Service')!;
        const monitor = objects.find((o) => o.kind === 'ServiceMonitor')!;
        assert.equal(monitor.apiVersion, 'monitoring.coreos.com/v1');
        assert.equal(
          monitor.metadata.namespace,
          service.metadata.namespace,
          'it selects the Service in its namespace',
        );
        for (const [k, v] of Object.entries(monitor.spec.selector.matchLabels))
          assert.equal(service.metadata.labels[k], v);
        const port = service.spec.ports.find(
          (p: { name: string }) => p.name === monitor.spec.endpoints[0].port,
        );
        assert.equal(port?.port, 8080, 'the admin port, which serves /metrics');
        assert.equal(monitor.spec.endpoints[0].path, '/metrics');
        const rule = objects.find((o) => o.kind === 'PrometheusRule')!;
        assert.deepEqual(rule.spec, ruleObject.spec);
        const cm = objects.find(
          (o) => o.kind === 'ConfigMap' && o.metadata.labels?.grafana_dashboard === '1',
        )!;
        new ConfigMap(cm).validate();
        assert.equal(cm.metadata.name, 'aeraki-dashboard', 'a stable name (no hash suffix)');
        assert.deepEqual(JSON.parse(cm.data['aeraki.json']), dashboard);
      } finally {
        rmSync(overlay, { recursive: true, force: true });
      }
    },
  );

  it('promtool check rules accepts the alerts', PROMTOOL, () => {
    withRulesDir((dir) => {
      const r = promtool(['check', 'rules', 'rules.yaml'], dir);
      assert.equal(r.status, 0, r.out);
      assert.match(r.out, new RegExp(`SUCCESS: ${alerts.length} rules found`));
    });
  });

  it('promtool test rules: each alert fires in a unit test and stays quiet in another', PROMTOOL, () => {
    const tests = parse(readFileSync(resolve(import.meta.dirname, 'alerts.promtool.yaml'), 'utf8')) as {
      tests: { alert_rule_test: { alertname: string; exp_alerts?: unknown[] }[] }[];
    };
    const cases = tests.tests.flatMap((t) => t.alert_rule_test);
    const names = alerts.map((a) => a.alert).sort();
    const fires = (c: { exp_alerts?: unknown[] }) => (c.exp_alerts ?? []).length > 0;
    assert.deepEqual([...new Set(cases.filter(fires).map((c) => c.alertname))].sort(), names);
    assert.deepEqual([...new Set(cases.filter((c) => !fires(c)).map((c) => c.alertname))].sort(), names);
    withRulesDir((dir) => {
      const r = promtool(['test', 'rules', 'alerts.promtool.yaml'], dir);
      assert.equal(r.status, 0, r.out);
    });
  });

  it('every alert has a severity, a for, a summary, a description and a runbook line in the README', () => {
    const readme = readFileSync(resolve(ROOT, 'README.md'), 'utf8');
    const runbook = /^### Runbook$([\s\S]*?)^##/m.exec(readme)?.[1];
    assert.ok(runbook, 'README has a Runbook section');
    const anchors = [...runbook.matchAll(/<a id="(runbook-[a-z]+)"><\/a>\*\*(\w+)\*\*/g)];
    for (const a of alerts) {
      assert.match(a.labels?.severity ?? '', /^(page|ticket)$/, a.alert);
      assert.match(a.for ?? '', /^\d+[mh]$/, a.alert);
      assert.ok(a.annotations?.summary && a.annotations.description, a.alert);
      const anchor = /README\.md#(.+)$/.exec(a.annotations.runbook_url ?? '')?.[1];
      assert.equal(anchor, `runbook-${a.alert.toLowerCase()}`, a.alert);
      assert.ok(
        anchors.some((m) => m[1] === anchor && m[2] === a.alert),
        `README: no runbook line for ${a.alert}`,
      );
    }
    assert.deepEqual(
      anchors.map((m) => m[2]).sort(),
      alerts.map((a) => a.alert).sort(),
      'one line per alert',
    );
  });

  it('the dashboard: unique panel ids, on a 24-column grid, every query through the datasource variable', () => {
    const ids = dashboard.panels.map((p) => p.id);
    assert.equal(new Set(ids).size, ids.length);
    for (const p of dashboard.panels) {
      assert.ok(p.gridPos.x >= 0 && p.gridPos.x + p.gridPos.w <= 24, p.title);
      if (p.type === 'row') continue;
      assert.ok((p.targets ?? []).length > 0, `${p.title}: no query`);
      assert.equal(p.datasource?.uid, '${datasource}', p.title);
    }
    const cells = new Set<string>();
    for (const p of dashboard.panels) {
      for (let x = p.gridPos.x; x < p.gridPos.x + p.gridPos.w; x++) {
        for (let y = p.gridPos.y; y < p.gridPos.y + p.gridPos.h; y++) {
          assert.ok(!cells.has(`${x},${y}`), `${p.title} overlaps another panel`);
          cells.add(`${x},${y}`);
        }
      }
    }
  });

  it('promtool check rules accepts every dashboard query (as recording rules)', PROMTOOL, () => {
    const rules = queries.map((q) => ({ record: `dashboard:panel_${q.panel.id}_${q.refId}`, expr: q.expr }));
    const dir = mkdtempSync(join(tmpdir(), 'aeraki-dashboard-'));
    try {
      writeFileSync(join(dir, 'queries.yaml'), stringify({ groups: [{ name: 'dashboard', rules }] }));
      const r = promtool(['check', 'rules', 'queries.yaml'], dir);
      assert.equal(r.status, 0, r.out);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the PromQL tokenizer finds metrics, matcher labels and grouping labels, and nothing else', () => {
    const uses = promqlUses(
      'histogram_quantile(0.99, sum by (le, pod) (rate(a_bucket{job="x",reason=~"y|z"}[$__rate_interval]))) ' +
        '> 0 unless ignoring (result) b offset 5m and on() absent(c{d!="e f"} == 1) - time() < 3 * 3600',
    );
    assert.deepEqual(uses.selectors, [
      { metric: 'a_bucket', labels: ['job', 'reason'] },
      { metric: 'b', labels: [] },
      { metric: 'c', labels: ['d'] },
    ]);
    assert.deepEqual(uses.grouping, ['le', 'pod', 'result']);
  });

  describe('against a live /metrics', () => {
    let text = '';
    let exported: Map<string, Family>;
    before(async () => {
      text = await scrapeLiveMetrics();
      exported = families(text);
      // Label names declared by the code, for families without samples in this scrape (a labelled gauge never
      // set, nodejs_gc_duration_seconds before a collection).
      const declared = new AerakiMetrics();
      registerRegistryMetrics(declared.registry, () => []);
      for (const m of declared.registry.getMetricsAsArray()) {
        const labelNames = (m as unknown as { labelNames?: readonly string[] }).labelNames ?? [];
        for (const l of labelNames) exported.get(m.name)?.labels.add(l);
      }
    });

    it('promtool check metrics: no error, and no lint problem in a metric of ours', PROMTOOL, () => {
      const r = promtool(['check', 'metrics'], ROOT, text);
      assert.ok(r.status === 0 || r.status === 3, `promtool check metrics failed (${r.status}): ${r.out}`);
      const problems = r.out.split('\n').filter((l) => l.trim() !== '');
      const ours = problems.filter((l) => !/^nodejs_\w+ /.test(l));
      assert.deepEqual(ours, [], 'lint problems outside prom-client default metrics');
    });

    it('every metric and label the alerts and the dashboard use is exported', () => {
      // Not the controller's: Prometheus' own `up`, and kube-state-metrics' Deployment availability.
      const external = new Map<string, Family>([
        ['up', { type: 'gauge', labels: new Set() }],
        ['kube_deployment_status_replicas_available', { type: 'gauge', labels: new Set(['deployment']) }],
      ]);
      // Labels Prometheus attaches to every scraped series (the ServiceMonitor's target labels).
      const target = ['job', 'instance', 'namespace', 'pod', 'service', 'endpoint', 'container'];
      const uses = [
        ...alerts.map((a) => ({ where: `alert ${a.alert}`, expr: a.expr })),
        ...queries.map((q) => ({ where: `panel ${q.panel.title}`, expr: q.expr })),
      ];
      const missing: string[] = [];
      for (const { where, expr } of uses) {
        const { selectors, grouping } = promqlUses(expr);
        const known = new Set([...target, 'le']);
        for (const s of selectors) {
          const family = familyOf(exported, s.metric) ?? external.get(s.metric);
          if (!family) missing.push(`${where}: metric ${s.metric}`);
          for (const l of family?.labels ?? []) known.add(l);
          for (const l of s.labels)
            if (!target.includes(l) && !family?.labels.has(l)) missing.push(`${where}: ${s.metric}{${l}}`);
        }
        for (const l of grouping) if (!known.has(l)) missing.push(`${where}: by/on label ${l}`);
      }
      assert.deepEqual(missing, []);
      assert.ok(uses.length > 40, 'the alerts and the dashboard were read');
    });
  });
});
