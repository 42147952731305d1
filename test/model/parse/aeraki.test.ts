import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { parseConfigObject } from '../../../src/model/parse/parse.ts';
import { formatIssue } from '../../../src/model/result.ts';

function result(yaml: string) {
  const r = parseConfigObject(parseYaml(yaml));
  assert.ok(r, 'recognised');
  return r;
}

const HEAD = `
apiVersion: metaprotocol.aeraki.io/v1alpha1
kind: MetaRouter
metadata: {name: mr, namespace: meta}
spec:
  hosts: [demo.meta.svc.cluster.local]
`;

describe('parseConfigObject: MetaRouter', () => {
  it('parses routes, matches (regex * = present), mirror and mutations; warnings travel with the object', () => {
    const r = result(`${HEAD}
  gateways: [istio-system/gw, local-gw]
  exportTo: [".", "*"]
  routes:
  - name: v1
    match:
      attributes:
        zeta: {prefix: z}
        method: {exact: sayHello}
        present: {regex: "*"}
        empty: {}
    route:
    - destination: {host: demo.meta.svc.cluster.local, subset: v1, port: {number: 20880}}
      weight: 20
    - destination: {host: demo.meta.svc.cluster.local, subset: v2}
      weight: 80
    mirror: {host: shadow, port: {number: 20881}}
    mirrorPercentage: {value: 50.5}
    requestMutation: [{key: foo, value: bar}]
    responseMutation: [{key: k, value: v}]
`);
    assert.ok(r.ok, r.issues.map(formatIssue).join('; '));
    assert.deepEqual(
      r.issues.map((i) => `${i.admission ?? '-'} ${i.severity} ${i.path}`),
      [
        '- warning spec.routes[0].match.attributes.empty',
        'error warning spec.routes[0].match.attributes.present.regex',
        'error warning spec.exportTo',
      ],
    );
    if (r.value.kind !== 'MetaRouter') return assert.fail('kind');
    const spec = r.value.spec;
    assert.deepEqual(spec.gateways, ['istio-system/gw', 'local-gw']);
    assert.deepEqual(spec.exportTo, ['.', '*']);
    assert.deepEqual(spec.routes[0], {
      name: 'v1',
      match: {
        attributes: {
          empty: {},
          method: { exact: 'sayHello' },
          present: { regex: '*' },
          zeta: { prefix: 'z' },
        },
      },
      route: [
        {
          destination: { host: 'demo.meta.svc.cluster.local', subset: 'v1', port: { number: 20880 } },
          weight: 20,
        },
        { destination: { host: 'demo.meta.svc.cluster.local', subset: 'v2' }, weight: 80 },
      ],
      mirror: { host: 'shadow', port: { number: 20881 } },
      mirrorPercentage: { value: 50.5 },
      requestMutation: [{ key: 'foo', value: 'bar' }],
      responseMutation: [{ key: 'k', value: 'v' }],
    });
    assert.deepEqual(Object.keys(spec.routes[0].match.attributes), ['empty', 'method', 'present', 'zeta']);
  });

  it('converts rate-limit durations to proto3 JSON; requestTimeout is optional (D8)', () => {
    const r = result(`${HEAD}
  localRateLimit:
    tokenBucket: {maxTokens: 10, tokensPerFill: 5, fillInterval: 1m}
    conditions:
    - match: {attributes: {method: {exact: sayHello}}}
      tokenBucket: {maxTokens: 2, tokensPerFill: 2, fillInterval: 100ms}
  globalRateLimit:
    domain: production
    rateLimitService: outbound|8081||rls.meta.svc.cluster.local
    denyOnFail: true
    descriptors: [{property: method, descriptorKey: method}]
`);
    assert.ok(r.ok, r.issues.map(formatIssue).join('; '));
    if (r.value.kind !== 'MetaRouter') return assert.fail('kind');
    assert.deepEqual(r.value.spec.localRateLimit, {
      tokenBucket: { maxTokens: 10, tokensPerFill: 5, fillInterval: '60s' },
      conditions: [
        {
          match: { attributes: { method: { exact: 'sayHello' } } },
          tokenBucket: { maxTokens: 2, tokensPerFill: 2, fillInterval: '0.100s' },
        },
      ],
    });
    assert.deepEqual(r.value.spec.globalRateLimit, {
      domain: 'production',
      rateLimitService: 'outbound|8081||rls.meta.svc.cluster.local',
      denyOnFail: true,
      descriptors: [{ property: 'method', descriptorKey: 'method' }],
    });
    const timed = result(`${HEAD}
  globalRateLimit: {domain: d, rateLimitService: s, requestTimeout: 1.5s, descriptors: [{property: p, descriptorKey: k}]}
`);
    assert.ok(timed.ok && timed.value.kind === 'MetaRouter');
    assert.equal(timed.value.spec.globalRateLimit?.requestTimeout, '1.500s');
  });

  it('D8: token buckets need fillInterval, tokensPerFill and maxTokens', () => {
    const r = result(`${HEAD}
  localRateLimit:
    tokenBucket: {maxTokens: 5}
    conditions:
    - tokenBucket: {tokensPerFill: 1, fillInterval: 60s}
`);
    assert.equal(r.ok, false);
    assert.deepEqual(
      r.issues.map((i) => i.path),
      [
        'spec.localRateLimit.tokenBucket.tokensPerFill',
        'spec.localRateLimit.tokenBucket.fillInterval',
        'spec.localRateLimit.conditions[0].tokenBucket.maxTokens',
      ],
    );
    assert.ok(r.issues.every((i) => i.ref.kind === 'MetaRouter' && i.ref.name === 'mr'));
  });

  it('reports bad durations and wrong types with paths', () => {
    const r = result(`${HEAD}
  localRateLimit:
    tokenBucket: {maxTokens: -1, tokensPerFill: 1, fillInterval: soon}
  routes:
  - route: [{destination: {host: 5}, weight: "x"}]
    match: {attributes: {method: "exact"}}
`);
    assert.equal(r.ok, false);
    assert.deepEqual(r.issues.map(formatIssue), [
      'MetaRouter meta/mr: spec.localRateLimit.tokenBucket.maxTokens: expected an integer between 0 and 4294967295, got -1',
      'MetaRouter meta/mr: spec.localRateLimit.tokenBucket.fillInterval: invalid duration "soon" (expected e.g. "60s", "100ms", "1.5s")',
      'MetaRouter meta/mr: spec.routes[0].match.attributes.method: expected an object, got string "exact"',
      'MetaRouter meta/mr: spec.routes[0].route[0].destination.host: expected a string, got number 5',
      'MetaRouter meta/mr: spec.routes[0].route[0].weight: expected a number, got string "x"',
    ]);
  });

  it('rejects routes the proxy cannot use: no destination, empty hosts, mirror percentage out of range', () => {
    const r = result(`${HEAD}
  routes:
  - name: empty
    route: []
  - name: hosts
    route: [{destination: {host: ""}}]
    mirror: {host: ""}
    mirrorPercentage: {value: -5}
`);
    assert.equal(r.ok, false);
    assert.deepEqual(r.issues.map(formatIssue), [
      'MetaRouter meta/mr: spec.routes[0].route: at least one destination is required',
      'MetaRouter meta/mr: spec.routes[1].mirrorPercentage.value: must be between 0 and 100, got -5',
      'MetaRouter meta/mr: spec.routes[1].mirror.host: a mirror host is required',
      'MetaRouter meta/mr: spec.routes[1].route[0].destination.host: a destination host is required',
    ]);
  });

  it('ApplicationProtocol needs protocol and codec', () => {
    const r = result(`
apiVersion: metaprotocol.aeraki.io/v1alpha1
kind: ApplicationProtocol
metadata: {name: trpc}
spec: {protocol: ""}
`);
    assert.equal(r.ok, false);
    assert.deepEqual(r.issues.map(formatIssue), [
      'ApplicationProtocol trpc: spec.codec: required field is missing',
    ]);
  });
});
