import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FilterDraft } from '../../../src/model/generator.ts';
import type { HTTPRoute, ServiceEntry } from '../../../src/model/objects.ts';
import type { Result } from '../../../src/model/result.ts';
import { stableStringify } from '../../../src/util/json.ts';
import { createDubboGenerator } from '../../../src/plugins/dubbo/index.ts';
import type { DubboProxyConfig } from '../../../src/plugins/dubbo/filters.ts';
import type { DubboRoute } from '../../../src/plugins/dubbo/route.ts';
import { serviceEntry, virtualService } from '../../support/builders.ts';
import { sidecarContext } from './fixture-context.ts';

const HOST = 'demo.dubbo.svc.cluster.local';
const MATCH_ALL = { safeRegex: { googleRe2: {}, regex: '.*' } };

function se(
  extra: Partial<ServiceEntry['spec']> = {},
  annotations: Record<string, string> = {},
): ServiceEntry {
  return serviceEntry(
    'dubbo',
    'demo',
    {
      hosts: [HOST],
      addresses: ['240.240.0.1'],
      ports: [{ number: 20880, name: 'tcp-dubbo', protocol: 'TCP' }],
      workloadSelector: { labels: { app: 'demo' } },
      ...extra,
    },
    { annotations: { interface: 'com.example.Demo', ...annotations } },
  );
}

function vs(http: HTTPRoute[]) {
  return virtualService('dubbo', 'demo-route', { hosts: [HOST], http });
}

function generate(entry: ServiceEntry, http?: HTTPRoute[], portIndex = 0): Result<readonly FilterDraft[]> {
  return createDubboGenerator().generateSidecar(
    sidecarContext(entry, portIndex, http ? vs(http) : undefined),
  );
}

function values(result: Result<readonly FilterDraft[]>): Record<string, DubboProxyConfig> {
  assert.ok(result.ok, JSON.stringify(result.issues));
  const out: Record<string, DubboProxyConfig> = {};
  for (const d of result.value) {
    out[d.name] = (
      d.spec.configPatches[0]?.patch.value as { typed_config: { value: DubboProxyConfig } }
    ).typed_config.value;
  }
  return out;
}

function outboundRoutes(result: Result<readonly FilterDraft[]>): readonly DubboRoute[] {
  return values(result)[`aeraki-outbound-${HOST}-240.240.0.1-20880`]!.routeConfig[0]!.routes;
}

const dest = (subset?: string, weight?: number) => ({
  destination: { host: HOST, ...(subset ? { subset } : {}) },
  ...(weight !== undefined ? { weight } : {}),
});

describe('dubbo generator', () => {
  it('declares its protocol', () => {
    const g = createDubboGenerator();
    assert.equal(g.name, 'dubbo');
    assert.deepEqual(g.protocols, ['dubbo']);
  });

  it('writes one outbound filter per address and an inbound filter', () => {
    const result = generate(se({ addresses: ['240.240.0.1', '240.240.0.2'] }));
    assert.ok(result.ok);
    assert.deepEqual(
      result.value.map((d) => d.name),
      [
        `aeraki-outbound-${HOST}-240.240.0.1-20880`,
        `aeraki-outbound-${HOST}-240.240.0.2-20880`,
        `aeraki-inbound-${HOST}-20880`,
      ],
    );
    const inbound = result.value[2]!;
    assert.deepEqual(inbound.spec.workloadSelector, { labels: { app: 'demo' } });
  });

  it('writes only the inbound filter without addresses', () => {
    const result = generate(se({ addresses: [] }));
    assert.ok(result.ok);
    assert.deepEqual(
      result.value.map((d) => d.name),
      [`aeraki-inbound-${HOST}-20880`],
    );
  });

  it('writes no inbound filter when no workloads are selected (D2)', () => {
    const result = generate(se({ workloadSelector: { labels: {} } }));
    assert.ok(result.ok);
    assert.deepEqual(
      result.value.map((d) => d.name),
      [`aeraki-outbound-${HOST}-240.240.0.1-20880`],
    );
  });

  it('fails the ServiceEntry on a workloadSelector annotation with two colons', () => {
    const result = generate(se({ workloadSelector: { labels: {} } }, { workloadSelector: 'a:b:c' }));
    assert.equal(result.ok, false);
    assert.equal(result.issues[0]?.ref.kind, 'ServiceEntry');
    assert.equal(result.issues[0]?.ref.name, 'demo');
    assert.equal(result.issues[0]?.path, 'metadata.annotations.workloadSelector');
  });

  it('uses interface * without (or with an empty) interface annotation (D3), * always on inbound', () => {
    for (const annotations of [{}, { interface: '' }] as Record<string, string>[]) {
      const entry = serviceEntry('dubbo', 'demo', { ...se().spec }, { annotations });
      const v = values(generate(entry));
      assert.equal(v[`aeraki-outbound-${HOST}-240.240.0.1-20880`]!.routeConfig[0]!.interface, '*');
    }
    const v = values(generate(se()));
    assert.equal(
      v[`aeraki-outbound-${HOST}-240.240.0.1-20880`]!.routeConfig[0]!.interface,
      'com.example.Demo',
    );
    assert.equal(v[`aeraki-inbound-${HOST}-20880`]!.routeConfig[0]!.interface, '*');
  });

  it("uses the context's own port, not ports[0] (D4)", () => {
    const entry = se({
      ports: [
        { number: 8080, name: 'http-web' },
        { number: 20881, name: 'tcp-dubbo-second' },
      ],
    });
    const v = values(generate(entry, undefined, 1));
    const outbound = v[`aeraki-outbound-${HOST}-240.240.0.1-20881`]!;
    assert.equal(outbound.statPrefix, `outbound|20881||${HOST}`);
    assert.deepEqual(outbound.routeConfig[0]!.routes[0]!.route, { cluster: `outbound|20881||${HOST}` });
    const inbound = v[`aeraki-inbound-${HOST}-20881`]!;
    assert.equal(inbound.statPrefix, 'inbound|20881||');
    assert.deepEqual(inbound.routeConfig[0]!.routes, [
      { match: { method: { name: MATCH_ALL } }, route: { cluster: 'inbound|20881||' } },
    ]);
  });

  it('routes by method exact, prefix and regex, match-all otherwise', () => {
    const routes = outboundRoutes(
      generate(se(), [
        { match: [{ method: { exact: 'sayHello' } }], route: [dest('a')] },
        { match: [{ method: { prefix: 'say' } }], route: [dest('b')] },
        { match: [{ method: { regex: 'say.+' } }], route: [dest('c')] },
        { match: [{ method: { prefix: '' } }], route: [dest('d')] },
        { match: [{ method: {} }], route: [dest('e')] },
        { match: [], route: [dest()] },
      ]),
    );
    assert.deepEqual(
      routes.map((r) => r.match.method.name),
      [
        { exact: 'sayHello' },
        { prefix: 'say' },
        { safeRegex: { googleRe2: {}, regex: 'say.+' } },
        MATCH_ALL,
        MATCH_ALL,
        MATCH_ALL,
      ],
    );
    assert.deepEqual(
      routes.map((r) => r.route),
      ['a', 'b', 'c', 'd', 'e', ''].map((s) => ({ cluster: `outbound|20880|${s}|${HOST}` })),
    );
  });

  it('reads only match[0] and ignores destination host and port', () => {
    const routes = outboundRoutes(
      generate(se(), [
        {
          match: [{ method: { exact: 'first' } }, { method: { exact: 'second' } }],
          route: [{ destination: { host: 'other.example.com', subset: 'v1', port: { number: 9999 } } }],
        },
      ]),
    );
    assert.deepEqual(routes, [
      { match: { method: { name: { exact: 'first' } } }, route: { cluster: `outbound|20880|v1|${HOST}` } },
    ]);
  });

  it('sorts header matchers by name (D5) and maps every match kind', () => {
    const routes = outboundRoutes(
      generate(se(), [
        {
          match: [
            {
              headers: {
                'x-zone': { exact: 'a' },
                batchJob: { prefix: 'tr' },
                canary: { regex: 'y.*' },
                present: {},
                emptyPrefix: { prefix: '' },
              },
            },
          ],
          route: [dest('v1')],
        },
      ]),
    );
    assert.deepEqual(routes[0]!.match.headers, [
      { name: 'batchJob', prefixMatch: 'tr' },
      { name: 'canary', safeRegexMatch: { googleRe2: {}, regex: 'y.*' } },
      { name: 'emptyPrefix', presentMatch: true },
      { name: 'present', presentMatch: true },
      { name: 'x-zone', exactMatch: 'a' },
    ]);
  });

  it('splits traffic with weightedClusters and totalWeight', () => {
    const routes = outboundRoutes(
      generate(se(), [{ match: [], route: [dest('v1', 25), dest('v2', 75), dest('v3')] }]),
    );
    assert.deepEqual(routes[0]!.route, {
      weightedClusters: {
        clusters: [
          { name: `outbound|20880|v1|${HOST}`, weight: 25 },
          { name: `outbound|20880|v2|${HOST}`, weight: 75 },
          { name: `outbound|20880|v3|${HOST}`, weight: 0 },
        ],
        totalWeight: 100,
      },
    });
  });

  it('routes a VirtualService without http entries like no VirtualService', () => {
    const result = generate(se(), []);
    assert.deepEqual(result.issues, []);
    assert.deepEqual(outboundRoutes(result), [
      { match: { method: { name: MATCH_ALL } }, route: { cluster: `outbound|20880||${HOST}` } },
    ]);
  });

  it('ignores a VirtualService Envoy cannot take, with issues naming object and field', () => {
    const result = generate(se(), [
      { match: [{ method: { exact: 'ok' } }], route: [dest('v1')] },
      { match: [], route: [] },
      { match: [], route: [dest('v1'), dest('v2')] },
      { match: [{ headers: { '': { exact: 'x' } } }], route: [dest('v1')] },
    ]);
    assert.ok(result.ok);
    assert.deepEqual(
      result.issues.map((i) => [i.ref, i.path]),
      [
        [{ kind: 'VirtualService', namespace: 'dubbo', name: 'demo-route' }, 'spec.http[1].route'],
        [{ kind: 'VirtualService', namespace: 'dubbo', name: 'demo-route' }, 'spec.http[2].route'],
        [{ kind: 'VirtualService', namespace: 'dubbo', name: 'demo-route' }, 'spec.http[3].match[0].headers'],
      ],
    );
    assert.match(result.issues[0]!.message, /no destination.*ignored/);
    assert.deepEqual(outboundRoutes(result), [
      { match: { method: { name: MATCH_ALL } }, route: { cluster: `outbound|20880||${HOST}` } },
    ]);
  });

  it('fails with an issue on spec.hosts when the ServiceEntry has no host', () => {
    const result = generate(se({ hosts: [] }));
    assert.equal(result.ok, false);
    assert.deepEqual(
      result.issues.map((i) => [i.ref.kind, i.ref.namespace, i.ref.name, i.path]),
      [['ServiceEntry', 'dubbo', 'demo', 'spec.hosts']],
    );
  });

  it('is deterministic whatever the insertion order of header keys', () => {
    const a = generate(se(), [
      { match: [{ headers: { b: { exact: '1' }, a: { exact: '2' } } }], route: [dest('v1')] },
    ]);
    const b = generate(se(), [
      { match: [{ headers: { a: { exact: '2' }, b: { exact: '1' } } }], route: [dest('v1')] },
    ]);
    assert.ok(a.ok && b.ok);
    assert.equal(JSON.stringify(a.value), JSON.stringify(b.value));
  });

  it('gives byte-identical output for the same context', () => {
    const ctx = sidecarContext(se(), 0, vs([{ match: [], route: [dest('v1', 20), dest('v2', 80)] }]));
    const g = createDubboGenerator();
    assert.equal(stableStringify(g.generateSidecar(ctx)), stableStringify(g.generateSidecar(ctx)));
    assert.equal(JSON.stringify(g.generateSidecar(ctx)), JSON.stringify(g.generateSidecar(ctx)));
  });
});
