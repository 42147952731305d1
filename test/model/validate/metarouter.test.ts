// The MetaRouter and ApplicationProtocol rules of spec aeraki-periphery.md §7.3, through the parse path: an error
// rejects the object (ok: false) with the field path, a warning leaves it usable, and a rule of admission hygiene
// (an error for admission, a warning for the controller) leaves it usable too.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { parseConfigObject } from '../../../src/model/parse/parse.ts';
import { admissionOnly, formatIssue, severityOf, type ConfigIssue } from '../../../src/model/result.ts';

const HOST = 'demo.meta.svc.cluster.local';

/** A valid MetaRouter spec; each test changes one thing. */
function validSpec(): Record<string, unknown> {
  return {
    hosts: [HOST],
    routes: [
      {
        name: 'v1',
        match: { attributes: { method: { exact: 'sayHello' } } },
        route: [{ destination: { host: HOST, subset: 'v1', port: { number: 20880 } } }],
      },
    ],
  };
}

function parseMetaRouter(spec: unknown, namespace = 'meta') {
  const r = parseConfigObject({
    apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
    kind: 'MetaRouter',
    metadata: { name: 'mr', namespace },
    spec,
  });
  assert.ok(r, 'recognised');
  return r;
}

/** `spec` with `yaml` (a YAML mapping) merged into its first route. */
function withRoute(yaml: string): Record<string, unknown> {
  const spec = validSpec();
  const routes = spec['routes'] as Record<string, unknown>[];
  routes[0] = { ...routes[0], ...(parseYaml(yaml) as Record<string, unknown>) };
  return spec;
}

/** Asserts the object is rejected with exactly these errors (`path: message fragment`). */
function assertRejected(spec: unknown, expected: readonly [path: string, fragment: string][]): void {
  const r = parseMetaRouter(spec);
  assert.equal(r.ok, false, 'rejected');
  const errors = r.issues.filter((i) => severityOf(i) === 'error');
  assert.deepEqual(
    errors.map((i) => i.path),
    expected.map(([p]) => p),
    errors.map(formatIssue).join('\n'),
  );
  errors.forEach((i, k) => {
    assert.deepEqual(i.ref, { kind: 'MetaRouter', namespace: 'meta', name: 'mr' });
    assert.ok(i.message.includes(expected[k]?.[1] ?? ''), `${i.message} has ${expected[k]?.[1]}`);
  });
}

/** `warning`, `error`, or `admission` for a rule of admission hygiene. */
function label(i: ConfigIssue): string {
  return admissionOnly(i) ? 'admission' : severityOf(i);
}

function warningsOf(spec: unknown, namespace = 'meta'): string[] {
  const r = parseMetaRouter(spec, namespace);
  assert.ok(r.ok, r.issues.map(formatIssue).join('\n'));
  return r.issues.map((i) => `${label(i)} ${i.path}`);
}

/** Asserts the object is kept (rendered) with exactly these admission-only issues (`path: message fragment`). */
function assertAdmissionOnly(spec: unknown, expected: readonly [path: string, fragment: string][]): void {
  const r = parseMetaRouter(spec);
  const lines = r.issues.map(formatIssue).join('\n');
  assert.ok(r.ok, lines);
  const refused = r.issues.filter(admissionOnly);
  assert.deepEqual(
    refused.map((i) => i.path),
    expected.map(([p]) => p),
    lines,
  );
  refused.forEach((i, k) => assert.ok(i.message.includes(expected[k]?.[1] ?? ''), `${i.message}`));
}

describe('MetaRouter rules (§7.3)', () => {
  it('accepts the valid base spec without issues', () => {
    assert.deepEqual(warningsOf(validSpec()), []);
  });

  it('1: exactly one host (admission only), an FQDN', () => {
    assertAdmissionOnly({ ...validSpec(), hosts: [HOST, 'other.meta.svc.cluster.local'] }, [
      ['spec.hosts', 'exactly one host, got 2: it applies to the ServiceEntry of each of them'],
    ]);
    assertAdmissionOnly({ ...validSpec(), hosts: [] }, [['spec.hosts', 'exactly one host, got 0']]);
    assertRejected({ ...validSpec(), hosts: ['Demo_Service.meta'] }, [
      ['spec.hosts[0]', 'label "Demo_Service"'],
    ]);
    assertRejected({ ...validSpec(), hosts: ['10.0.0.1'] }, [['spec.hosts[0]', 'all-numeric']]);
    assert.deepEqual(
      warningsOf({ ...validSpec(), hosts: ['catalog'] }).filter((w) => w.startsWith('error')),
      [],
    );
  });

  it('2: at least one of routes, globalRateLimit, localRateLimit (admission only)', () => {
    assertAdmissionOnly({ hosts: [HOST] }, [
      ['spec', 'at least one of routes, globalRateLimit or localRateLimit'],
    ]);
  });

  it('3: an invalid RE2 regex is an error at its field path (RE2, not JavaScript RegExp)', () => {
    assertRejected(withRoute('match: {attributes: {method: {regex: "([a-"}}}'), [
      ['spec.routes[0].match.attributes.method.regex', 'not a valid RE2 regex'],
    ]);
    // Valid for JavaScript's RegExp, not for RE2: lookahead and backreference.
    assertRejected(withRoute('match: {attributes: {method: {regex: "say(?=Hello)"}}}'), [
      ['spec.routes[0].match.attributes.method.regex', 'RE2'],
    ]);
    assertRejected(withRoute('match: {attributes: {method: {regex: "(a)\\\\1"}}}'), [
      ['spec.routes[0].match.attributes.method.regex', 'RE2'],
    ]);
    assertRejected(withRoute('match: {attributes: {method: {regex: ""}}}'), [
      ['spec.routes[0].match.attributes.method.regex', 'must not be empty'],
    ]);
    // Valid RE2 that JavaScript's RegExp refuses; and `*`, the presence match of fixture 12 (admission only).
    assert.deepEqual(warningsOf(withRoute('match: {attributes: {method: {regex: "(?P<m>say).*"}}}')), []);
    assertAdmissionOnly(withRoute('match: {attributes: {method: {regex: "*"}}}'), [
      ['spec.routes[0].match.attributes.method.regex', 'present'],
    ]);
  });

  it('3: attribute names non-empty, values non-null (admission only)', () => {
    assertRejected(withRoute('match: {attributes: {"": {exact: x}}}'), [
      ['spec.routes[0].match.attributes[""]', 'name must not be empty'],
    ]);
    assertAdmissionOnly(withRoute('match: {attributes: {method: null}}'), [
      ['spec.routes[0].match.attributes.method', 'must not be null'],
    ]);
  });

  it('3: an empty attribute match (attr: {}) is ignored input: a warning', () => {
    const spec = validSpec();
    (spec['routes'] as unknown[]).push({
      match: { attributes: { method: { exact: 'x' }, tenant: {} } },
      route: [{ destination: { host: HOST } }],
    });
    assert.deepEqual(warningsOf(spec), ['warning spec.routes[1].match.attributes.tenant']);
  });

  it('4: an empty mutation key is an error, an empty value admission only', () => {
    assertRejected(withRoute('requestMutation: [{key: "", value: v}]'), [
      ['spec.routes[0].requestMutation[0].key', 'mutation key must not be empty'],
    ]);
    assertAdmissionOnly(withRoute('responseMutation: [{key: k, value: ""}]'), [
      ['spec.routes[0].responseMutation[0].value', 'mutation value must not be empty'],
    ]);
  });

  it('5: mirrorPercentage needs mirror and a value above 0 (admission only; negative is an error)', () => {
    assertAdmissionOnly(withRoute('mirrorPercentage: {value: 50}'), [
      ['spec.routes[0].mirrorPercentage', 'needs mirror'],
    ]);
    assertAdmissionOnly(withRoute(`{mirror: {host: ${HOST}}, mirrorPercentage: {value: 0}}`), [
      ['spec.routes[0].mirrorPercentage.value', 'above 0 and at most 100, got 0: 0 means 100 %'],
    ]);
    assertAdmissionOnly(withRoute(`{mirror: {host: ${HOST}}, mirrorPercentage: {value: 150}}`), [
      ['spec.routes[0].mirrorPercentage.value', 'every request is mirrored'],
    ]);
    assertRejected(withRoute(`{mirror: {host: ${HOST}}, mirrorPercentage: {value: -1}}`), [
      ['spec.routes[0].mirrorPercentage.value', 'between 0 and 100, got -1'],
    ]);
  });

  it('6: destination and mirror: FQDN host, DNS-1123 subset, port 1..65535 (subset and port admission only)', () => {
    assertAdmissionOnly(withRoute(`route: [{destination: {host: ${HOST}, subset: Bad_Subset}}]`), [
      ['spec.routes[0].route[0].destination.subset', '"Bad_Subset" is not a DNS-1123 label'],
    ]);
    assertAdmissionOnly(withRoute(`route: [{destination: {host: ${HOST}, port: {number: 0}}}]`), [
      ['spec.routes[0].route[0].destination.port.number', 'between 1 and 65535, got 0'],
    ]);
    assertAdmissionOnly(withRoute(`route: [{destination: {host: ${HOST}, port: {}}}]`), [
      ['spec.routes[0].route[0].destination.port.number', 'got 0'],
    ]);
    assertRejected(withRoute('route: [{destination: {host: "bad host"}}]'), [
      ['spec.routes[0].route[0].destination.host', 'invalid'],
    ]);
    assertAdmissionOnly(withRoute(`mirror: {host: ${HOST}, subset: "v1.0", port: {number: 0}}`), [
      ['spec.routes[0].mirror.subset', 'DNS-1123'],
      ['spec.routes[0].mirror.port.number', 'got 0'],
    ]);
  });

  it('7: weights at most 100 each, adding up to 100 when several (admission only; a total of 0 is an error)', () => {
    const split = (a: number, b: number) =>
      withRoute(
        `route: [{destination: {host: ${HOST}, subset: v1}, weight: ${a}}, {destination: {host: ${HOST}, subset: v2}, weight: ${b}}]`,
      );
    assertAdmissionOnly(split(90, 60), [['spec.routes[0].route', 'add up to 100, got 150']]);
    assertAdmissionOnly(split(10, 20), [['spec.routes[0].route', 'got 30: traffic is split in proportion']]);
    assertRejected(split(0, 0), [['spec.routes[0].route', 'add up to 0: no destination gets traffic']]);
    assertAdmissionOnly(withRoute(`route: [{destination: {host: ${HOST}}, weight: 101}]`), [
      ['spec.routes[0].route[0].weight', 'at most 100, got 101'],
    ]);
    assert.deepEqual(warningsOf(split(20, 80)), []);
  });

  it('8: exportTo: valid entries, ~ not supported; duplicates and * with others admission only (fixture 24)', () => {
    assertAdmissionOnly({ ...validSpec(), exportTo: ['a', 'a'] }, [
      ['spec.exportTo[1]', 'duplicate entry "a"'],
    ]);
    assertAdmissionOnly({ ...validSpec(), exportTo: ['.', 'meta'] }, [
      ['spec.exportTo[1]', '"." is this namespace'],
    ]);
    assertRejected({ ...validSpec(), exportTo: ['Not_A_Namespace'] }, [['spec.exportTo[0]', 'neither']]);
    assertRejected({ ...validSpec(), exportTo: ['~'] }, [['spec.exportTo[0]', '"~"']]);
    assertRejected({ ...validSpec(), exportTo: ['~', 'a'] }, [['spec.exportTo[0]', '"~"']]);
    assert.deepEqual(warningsOf({ ...validSpec(), exportTo: ['*', 'apps'] }), ['admission spec.exportTo']);
    assert.deepEqual(warningsOf({ ...validSpec(), exportTo: ['.', '*'] }), ['admission spec.exportTo']);
    assert.deepEqual(warningsOf({ ...validSpec(), exportTo: ['.', 'apps'] }), []);
  });

  it('9: routes after one that matches every request are unreachable: warnings', () => {
    const spec = validSpec();
    const any = { route: [{ destination: { host: HOST } }] };
    const emptyMatch = { match: { attributes: { tenant: {} } }, route: [{ destination: { host: HOST } }] };
    (spec['routes'] as unknown[]).push({ name: 'all', ...any }, { name: 'after', ...any }, emptyMatch);
    assert.deepEqual(warningsOf(spec), [
      'warning spec.routes[3].match.attributes.tenant',
      'warning spec.routes[2]',
      'warning spec.routes[3]',
    ]);
    const r = parseMetaRouter(spec);
    assert.ok(r.issues.some((i) => i.message.includes('route #2 "after" is never used: route #1 "all"')));
  });

  it('10: globalRateLimit: non-empty domain and service, at least one complete descriptor, valid match', () => {
    const grl = (yaml: string) => ({ hosts: [HOST], globalRateLimit: parseYaml(yaml) as unknown });
    assertRejected(grl('{domain: "", rateLimitService: "", descriptors: []}'), [
      ['spec.globalRateLimit.domain', 'must not be empty'],
      ['spec.globalRateLimit.rateLimitService', 'must not be empty'],
      ['spec.globalRateLimit.descriptors', 'at least one descriptor'],
    ]);
    assertRejected(grl('{domain: d, rateLimitService: s, descriptors: [{property: "", descriptorKey: k}]}'), [
      ['spec.globalRateLimit.descriptors[0].property', 'must not be empty'],
    ]);
    assertRejected(
      grl(
        '{domain: d, rateLimitService: s, descriptors: [{property: p, descriptorKey: k}], match: {attributes: {m: {regex: "([a-"}}}}',
      ),
      [['spec.globalRateLimit.match.attributes.m.regex', 'RE2']],
    );
    // D8: requestTimeout stays optional.
    assert.deepEqual(
      warningsOf(grl('{domain: d, rateLimitService: s, descriptors: [{property: p, descriptorKey: k}]}')),
      [],
    );
  });

  it('11: localRateLimit: a bucket or conditions; buckets complete and at least 1; conditions need match and bucket', () => {
    const lrl = (yaml: string) => ({ hosts: [HOST], localRateLimit: parseYaml(yaml) as unknown });
    assertRejected(lrl('{conditions: []}'), [['spec.localRateLimit', 'tokenBucket or conditions']]);
    assertRejected(lrl('{tokenBucket: {maxTokens: 5, tokensPerFill: 5}}'), [
      ['spec.localRateLimit.tokenBucket.fillInterval', 'required field is missing'],
    ]);
    assertRejected(lrl('{tokenBucket: {maxTokens: 0, tokensPerFill: 0, fillInterval: 1s}}'), [
      ['spec.localRateLimit.tokenBucket.maxTokens', 'at least 1, got 0'],
    ]);
    assertAdmissionOnly(lrl('{tokenBucket: {maxTokens: 1, tokensPerFill: 0, fillInterval: 1s}}'), [
      ['spec.localRateLimit.tokenBucket.tokensPerFill', 'at least 1, got 0: left out'],
    ]);
    assertAdmissionOnly(
      lrl(
        '{conditions: [{tokenBucket: {maxTokens: 1, tokensPerFill: 1, fillInterval: 1s}}, {match: {attributes: {m: {exact: x}}}}]}',
      ),
      [
        ['spec.localRateLimit.conditions[0].match', 'this condition matches every request'],
        ['spec.localRateLimit.conditions[1].tokenBucket', 'this condition is dropped'],
      ],
    );
  });

  it('12: gateways are not validated', () => {
    assert.deepEqual(warningsOf({ ...validSpec(), gateways: ['anything/at all'] }), []);
  });
});

describe('ApplicationProtocol rules (§7.3)', () => {
  const parseAp = (spec: unknown) => {
    const r = parseConfigObject({
      apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
      kind: 'ApplicationProtocol',
      metadata: { name: 'trpc' },
      spec,
    });
    assert.ok(r, 'recognised');
    return r;
  };

  it('protocol and codec must be non-empty (an empty protocol admission only: no port selects it)', () => {
    const r = parseAp({ protocol: '', codec: '' });
    assert.equal(r.ok, false);
    assert.deepEqual(
      r.issues.map((i) => `${label(i)} ${i.path}`),
      ['error spec.codec'],
    );
    const p = parseAp({ protocol: '', codec: 'aeraki.meta_protocol.codec.x' });
    assert.ok(p.ok);
    assert.deepEqual(
      p.issues.map((i) => `${label(i)} ${i.path}`),
      ['admission spec.protocol'],
    );
  });

  it('a protocol with "-" can never be selected by a port name: a warning', () => {
    const r = parseAp({ protocol: 'my-proto', codec: 'aeraki.meta_protocol.codec.my' });
    assert.ok(r.ok);
    assert.deepEqual(
      r.issues.map((i) => `${severityOf(i)} ${i.path}`),
      ['warning spec.protocol'],
    );
    assert.deepEqual(parseAp({ protocol: 'trpc', codec: 'aeraki.meta_protocol.codec.trpc' }).issues, []);
  });
});
