// AER0013 EnvoyFilterRelativeWithoutPriority: others' EnvoyFilters (in files, or live in the cluster) that insert a
// filter relative to another, without a priority, on a listener this controller patches.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { relativeWithoutPriorityAnalyzer } from '../../src/analyze/offline/relative-without-priority.ts';
import { envoyFilterFacts } from '../../src/analyze/envoyfilter-facts.ts';
import type { EnvoyFilterFacts } from '../../src/analyze/types.ts';
import { analyzeText, inputOf, serviceEntry, withCode } from './support.ts';
import { cluster } from './live/support.ts';

const ORDERS = serviceEntry('orders', ['tcp-metaprotocol-dubbo:20880']);

interface Other {
  name?: string;
  namespace?: string;
  operation?: string;
  applyTo?: string;
  listener?: object;
  context?: string;
  priority?: number;
  labels?: Record<string, string>;
}

function envoyFilter(o: Other = {}): Record<string, unknown> {
  const match = {
    ...(o.context !== undefined ? { context: o.context } : {}),
    listener: o.listener ?? {
      portNumber: 20880,
      filterChain: { filter: { name: 'envoy.filters.network.tcp_proxy' } },
    },
  };
  return {
    apiVersion: 'networking.istio.io/v1alpha3',
    kind: 'EnvoyFilter',
    metadata: {
      name: o.name ?? 'rpc-audit',
      namespace: o.namespace ?? 'istio-system',
      labels: o.labels ?? {},
    },
    spec: {
      ...(o.priority !== undefined ? { priority: o.priority } : {}),
      configPatches: [
        {
          applyTo: o.applyTo ?? 'NETWORK_FILTER',
          match,
          patch: { operation: o.operation ?? 'INSERT_BEFORE', value: { name: 'envoy.filters.network.rbac' } },
        },
      ],
    },
  };
}

/** The YAML of the orders ServiceEntry and an EnvoyFilter (JSON is YAML). */
const withFilter = (o: Other = {}) => `${ORDERS}${JSON.stringify(envoyFilter(o))}\n`;

const aer0013 = (text: string) => withCode(analyzeText(text), 'AER0013');

function facts(o: Other): EnvoyFilterFacts {
  const f = envoyFilterFacts(envoyFilter(o));
  assert.ok(f);
  return f;
}

describe('AER0013 EnvoyFilterRelativeWithoutPriority, offline', () => {
  it("reports an INSERT_BEFORE without priority on a handled port, on the other's patch", () => {
    const [m, ...rest] = aer0013(withFilter());
    assert.deepEqual(rest, []);
    assert.equal(m?.code.severity, 'warning');
    assert.deepEqual(m?.ref, { kind: 'EnvoyFilter', namespace: 'istio-system', name: 'rpc-audit' });
    assert.equal(m?.path, 'spec.configPatches[0]');
    assert.match(
      m?.message ?? '',
      /^INSERT_BEFORE of a NETWORK_FILTER on listener port 20880 without a priority: .*EnvoyFilter istio-system\/aeraki-outbound-.*\(for ServiceEntry\/shop\/orders\).*set spec\.priority$/,
    );
  });

  it('reports INSERT_AFTER and INSERT_FIRST, HTTP filters, a listener named like ours and an anchor on tcp_proxy anywhere', () => {
    const cases: Other[] = [
      { operation: 'INSERT_AFTER' },
      { operation: 'INSERT_FIRST', context: 'SIDECAR_OUTBOUND' },
      { applyTo: 'HTTP_FILTER', listener: { portNumber: 20880 } },
      { listener: { name: '240.240.0.10_20880' } },
      { listener: { filterChain: { filter: { name: 'envoy.filters.network.tcp_proxy' } } } },
      { priority: 0 },
    ];
    for (const c of cases) assert.equal(aer0013(withFilter(c)).length, 1, JSON.stringify(c));
  });

  it('is silent with a priority, for this controller own filters, absolute operations, another port or context, other patch kinds', () => {
    const cases: Other[] = [
      { priority: 10 },
      { priority: -1 },
      { labels: { manager: 'Aeraki' } },
      { operation: 'REPLACE' },
      { operation: 'MERGE' },
      { operation: 'ADD' },
      { listener: { portNumber: 9090 } },
      { listener: { name: '240.240.0.11_20880' } },
      { context: 'SIDECAR_INBOUND' },
      { applyTo: 'LISTENER' },
      { listener: { filterChain: { filter: { name: 'envoy.filters.network.http_connection_manager' } } } },
    ];
    for (const c of cases) assert.deepEqual(aer0013(withFilter(c)), [], JSON.stringify(c));
  });

  it("counts only filters that reach the same proxies: the root namespace's reach all, any other its own", () => {
    const scoped = (namespace: string) =>
      withCode(analyzeText(withFilter({ namespace }), { namespaceScope: true }), 'AER0013').length;
    assert.equal(scoped('shop'), 1, 'the namespace of this controller filters');
    assert.equal(scoped('istio-system'), 1, 'the root namespace');
    assert.equal(scoped('web'), 0, 'another namespace');
    assert.equal(
      aer0013(withFilter({ namespace: 'web' })).length,
      1,
      "this controller's filters in the root namespace",
    );
  });

  it('is silent when nothing is handled, and ignores an EnvoyFilter of another API group', () => {
    assert.deepEqual(aer0013(`${serviceEntry('web', ['http:8080'])}${JSON.stringify(envoyFilter())}\n`), []);
    const foreign = { ...envoyFilter(), apiVersion: 'example.com/v1' };
    assert.deepEqual(aer0013(`${ORDERS}${JSON.stringify(foreign)}\n`), []);
  });

  it("reads the files' EnvoyFilters into the input, a later definition replacing an earlier one", () => {
    const text = `${ORDERS}${JSON.stringify(envoyFilter())}\n---\n${JSON.stringify(envoyFilter({ priority: 3 }))}\n`;
    const input = inputOf(text);
    assert.deepEqual(
      input.envoyFilters?.map((f) => [f.name, f.priority]),
      [['rpc-audit', 3]],
    );
    assert.deepEqual(withCode(analyzeText(text), 'AER0013'), []);
    assert.equal(inputOf(ORDERS).envoyFilters, undefined);
  });

  it('reports an inbound insert on the filter chain of the port the workload receives on', () => {
    const selected = serviceEntry('orders', ['tcp-metaprotocol-dubbo:20880'], { addresses: [] }).replace(
      'spec:\n',
      'spec:\n  workloadSelector: {labels: {app: orders}}\n',
    );
    const inbound = (port: number) =>
      `${selected}${JSON.stringify(
        envoyFilter({
          context: 'SIDECAR_INBOUND',
          listener: { name: 'virtualInbound', filterChain: { destinationPort: port } },
        }),
      )}\n`;
    assert.match(aer0013(inbound(20880))[0]?.message ?? '', /on listener virtualInbound port 20880 /);
    assert.deepEqual(aer0013(inbound(9090)), []);
  });
});

describe('AER0013, live: the cluster EnvoyFilters with those of the files', () => {
  const base = inputOf(ORDERS);

  it("reports the cluster's, and a file's definition wins over the cluster's", () => {
    const live = { ...base, cluster: cluster({ envoyFilters: [facts({ namespace: 'web' })] }) };
    const [m] = relativeWithoutPriorityAnalyzer.analyze(live);
    assert.deepEqual(m?.ref, { kind: 'EnvoyFilter', namespace: 'web', name: 'rpc-audit' });
    const fixed = { ...live, envoyFilters: [facts({ namespace: 'web', priority: 10 })] };
    assert.deepEqual(relativeWithoutPriorityAnalyzer.analyze(fixed), []);
    const another = { ...live, envoyFilters: [facts({ namespace: 'web', name: 'other', priority: 10 })] };
    assert.equal(relativeWithoutPriorityAnalyzer.analyze(another).length, 1);
  });

  it("is silent for the cluster's filters of this controller", () => {
    const ours = cluster({ envoyFilters: [facts({ labels: { manager: 'Aeraki' } })] });
    assert.deepEqual(relativeWithoutPriorityAnalyzer.analyze({ ...base, cluster: ours }), []);
  });
});
