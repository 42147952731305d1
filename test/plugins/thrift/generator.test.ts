import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FilterDraft } from '../../../src/model/generator.ts';
import type { HTTPRoute, ServiceEntry } from '../../../src/model/objects.ts';
import type { Result } from '../../../src/model/result.ts';
import { stableStringify } from '../../../src/util/json.ts';
import { createThriftGenerator } from '../../../src/plugins/thrift/index.ts';
import type { ThriftProxyConfig } from '../../../src/plugins/thrift/generator.ts';
import type { ThriftRoute } from '../../../src/plugins/thrift/route.ts';
import { serviceEntry, virtualService } from '../../support/builders.ts';
import { sidecarContext } from '../dubbo/fixture-context.ts';

const HOST = 'greeter.rpc.svc.cluster.local';
const VS_REF = { kind: 'VirtualService', namespace: 'rpc', name: 'greeter-route' };

function se(
  extra: Partial<ServiceEntry['spec']> = {},
  annotations: Record<string, string> = {},
): ServiceEntry {
  return serviceEntry(
    'rpc',
    'greeter',
    {
      hosts: [HOST],
      addresses: ['10.96.7.20'],
      ports: [{ number: 9090, name: 'tcp-thrift-greeter', protocol: 'TCP' }],
      workloadSelector: { labels: { app: 'greeter' } },
      ...extra,
    },
    { annotations },
  );
}

function generate(entry: ServiceEntry, http?: HTTPRoute[], portIndex = 0): Result<readonly FilterDraft[]> {
  const vs = http ? virtualService('rpc', 'greeter-route', { hosts: [HOST], http }) : undefined;
  return createThriftGenerator().generateSidecar(sidecarContext(entry, portIndex, vs));
}

function values(result: Result<readonly FilterDraft[]>): Record<string, ThriftProxyConfig> {
  assert.ok(result.ok, JSON.stringify(result.issues));
  const out: Record<string, ThriftProxyConfig> = {};
  for (const d of result.value) {
    out[d.name] = (
      d.spec.configPatches[0]?.patch.value as { typed_config: { value: ThriftProxyConfig } }
    ).typed_config.value;
  }
  return out;
}

const OUTBOUND = `aeraki-outbound-${HOST}-10.96.7.20-9090`;
const INBOUND = `aeraki-inbound-${HOST}-9090`;
const DEFAULT_ROUTES = [{ match: { methodName: '' }, route: { cluster: `outbound|9090||${HOST}` } }];

function outboundRoutes(result: Result<readonly FilterDraft[]>): readonly ThriftRoute[] {
  return values(result)[OUTBOUND]!.routeConfig.routes;
}

const dest = (subset?: string, weight?: number) => ({
  destination: { host: HOST, ...(subset ? { subset } : {}) },
  ...(weight !== undefined ? { weight } : {}),
});

describe('thrift generator', () => {
  it('declares its protocol', () => {
    const g = createThriftGenerator();
    assert.equal(g.name, 'thrift');
    assert.deepEqual(g.protocols, ['thrift']);
  });

  it('writes outbound filters per address and an inbound filter with AUTO transport/protocol', () => {
    const result = generate(se({ addresses: ['10.96.7.20', '10.96.7.21'] }));
    assert.ok(result.ok);
    assert.deepEqual(
      result.value.map((d) => d.name),
      [OUTBOUND, `aeraki-outbound-${HOST}-10.96.7.21-9090`, INBOUND],
    );
    const v = values(result);
    assert.deepEqual(v[OUTBOUND], {
      statPrefix: `outbound|9090||${HOST}`,
      routeConfig: { name: `outbound|9090||${HOST}`, routes: DEFAULT_ROUTES },
      thriftFilters: [{ name: 'envoy.filters.thrift.router' }],
    });
    assert.deepEqual(v[INBOUND], {
      statPrefix: 'inbound|9090||',
      routeConfig: {
        name: 'inbound|9090||',
        routes: [{ match: { methodName: '' }, route: { cluster: 'inbound|9090||' } }],
      },
      thriftFilters: [{ name: 'envoy.filters.thrift.router' }],
    });
  });

  it('writes no inbound filter without a workload selector (D2), inbound only without addresses', () => {
    const noSelector = generate(se({ workloadSelector: { labels: {} } }));
    assert.ok(noSelector.ok);
    assert.deepEqual(
      noSelector.value.map((d) => d.name),
      [OUTBOUND],
    );
    const fromAnnotation = generate(
      se({ addresses: [], workloadSelector: undefined }, { workloadSelector: 'v: x' }),
    );
    assert.ok(fromAnnotation.ok);
    assert.deepEqual(
      fromAnnotation.value.map((d) => [d.name, d.spec.workloadSelector]),
      [[INBOUND, { labels: { v: 'x' } }]],
    );
    const bad = generate(se({ workloadSelector: undefined }, { workloadSelector: 'a:b:c' }));
    assert.equal(bad.ok, false);
    assert.equal(bad.issues[0]?.path, 'metadata.annotations.workloadSelector');
  });

  it("uses the context's own port, not ports[0] (D4)", () => {
    const entry = se({
      ports: [
        { number: 8080, name: 'http-web' },
        { number: 9091, name: 'tcp-thrift' },
      ],
    });
    const v = values(generate(entry, [{ match: [], route: [dest('v1')] }], 1));
    assert.deepEqual(v[`aeraki-outbound-${HOST}-10.96.7.20-9091`]!.routeConfig, {
      name: `outbound|9091||${HOST}`,
      routes: [{ match: { methodName: '' }, route: { cluster: `outbound|9091|v1|${HOST}` } }],
    });
    assert.equal(v[`aeraki-inbound-${HOST}-9091`]!.statPrefix, 'inbound|9091||');
  });

  it('turns match[0].method.exact into methodName, "" without a method (D9)', () => {
    const routes = outboundRoutes(
      generate(se(), [
        { match: [{ method: { exact: 'sayHello' } }, { method: { exact: 'ignored' } }], route: [dest('v2')] },
        { match: [{ method: {} }], route: [dest('v3')] },
        { match: [{ method: { prefix: '' } }], route: [dest('v4')] },
        { match: [], route: [dest('v1')] },
      ]),
    );
    assert.deepEqual(routes, [
      { match: { methodName: 'sayHello' }, route: { cluster: `outbound|9090|v2|${HOST}` } },
      { match: { methodName: '' }, route: { cluster: `outbound|9090|v3|${HOST}` } },
      { match: { methodName: '' }, route: { cluster: `outbound|9090|v4|${HOST}` } },
      { match: { methodName: '' }, route: { cluster: `outbound|9090|v1|${HOST}` } },
    ]);
  });

  it('reports prefix and regex method matches on the VirtualService and ignores it (D9)', () => {
    const result = generate(se(), [
      { match: [{ method: { exact: 'fine' } }], route: [dest('v1')] },
      { match: [{ method: { prefix: 'say' } }], route: [dest('v2')] },
      { match: [{ method: { regex: 'say.*' } }], route: [dest('v3')] },
    ]);
    assert.ok(result.ok);
    assert.deepEqual(
      result.issues.map((i) => [i.ref, i.path]),
      [
        [VS_REF, 'spec.http[1].match[0].method'],
        [VS_REF, 'spec.http[2].match[0].method'],
      ],
    );
    assert.match(result.issues[0]!.message, /prefix "say".*exact method names/);
    assert.deepEqual(outboundRoutes(result), DEFAULT_ROUTES);
  });

  it('honours header matches, sorted by name (D5)', () => {
    const routes = outboundRoutes(
      generate(se(), [
        {
          match: [
            { method: { exact: 'm' }, headers: { 'x-zone': { exact: 'a' }, env: { prefix: 'pr' }, p: {} } },
          ],
          route: [dest('v1')],
        },
      ]),
    );
    assert.deepEqual(routes[0]!.match, {
      methodName: 'm',
      headers: [
        { name: 'env', prefixMatch: 'pr' },
        { name: 'p', presentMatch: true },
        { name: 'x-zone', exactMatch: 'a' },
      ],
    });
  });

  it('splits traffic without totalWeight and leaves out zero-weight destinations', () => {
    const routes = outboundRoutes(
      generate(se(), [{ match: [], route: [dest('v1', 30), dest('v2', 70), dest('v3', 0), dest('v4')] }]),
    );
    assert.deepEqual(routes[0]!.route, {
      weightedClusters: {
        clusters: [
          { name: `outbound|9090|v1|${HOST}`, weight: 30 },
          { name: `outbound|9090|v2|${HOST}`, weight: 70 },
        ],
      },
    });
  });

  it('ignores a VirtualService with routes Envoy cannot take, with issues naming the fields', () => {
    const result = generate(se(), [
      { match: [], route: [] },
      { match: [], route: [dest('v1'), dest('v2')] },
      { match: [{ headers: { '': {} } }], route: [dest('v1')] },
    ]);
    assert.ok(result.ok);
    assert.deepEqual(
      result.issues.map((i) => [i.ref, i.path]),
      [
        [VS_REF, 'spec.http[0].route'],
        [VS_REF, 'spec.http[1].route'],
        [VS_REF, 'spec.http[2].match[0].headers'],
      ],
    );
    assert.deepEqual(outboundRoutes(result), DEFAULT_ROUTES);
  });

  it('routes a VirtualService without http entries like no VirtualService', () => {
    const result = generate(se(), []);
    assert.deepEqual(result.issues, []);
    assert.deepEqual(outboundRoutes(result), DEFAULT_ROUTES);
  });

  it('fails with an issue on spec.hosts when the ServiceEntry has no host', () => {
    const result = generate(se({ hosts: [] }));
    assert.equal(result.ok, false);
    assert.deepEqual(
      result.issues.map((i) => [i.ref.kind, i.ref.namespace, i.ref.name, i.path]),
      [['ServiceEntry', 'rpc', 'greeter', 'spec.hosts']],
    );
  });

  it('is deterministic', () => {
    const http: HTTPRoute[] = [
      {
        match: [{ headers: { b: { exact: '1' }, a: { exact: '2' } } }],
        route: [dest('v1', 1), dest('v2', 2)],
      },
    ];
    const reordered: HTTPRoute[] = [
      {
        match: [{ headers: { a: { exact: '2' }, b: { exact: '1' } } }],
        route: [dest('v1', 1), dest('v2', 2)],
      },
    ];
    assert.equal(JSON.stringify(generate(se(), http)), JSON.stringify(generate(se(), http)));
    assert.equal(JSON.stringify(generate(se(), http)), JSON.stringify(generate(se(), reordered)));
    assert.equal(stableStringify(generate(se(), http)), stableStringify(generate(se(), reordered)));
  });
});
