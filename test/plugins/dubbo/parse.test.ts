// DubboAuthorizationPolicy is read strictly: unknown fields at any depth, wrong JSON types and actions other than
// ALLOW/DENY are errors naming the object and the field path, and the object is rejected as a whole.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import type { DubboAuthorizationPolicySpec } from '../../../src/plugins/dubbo/types.ts';
import { parseConfigObject } from '../../../src/model/parse/parse.ts';
import { formatIssue, severityOf } from '../../../src/model/result.ts';
import { PARSE_OPTIONS } from '../../support/kinds.ts';

const HEAD = `
apiVersion: dubbo.aeraki.io/v1alpha1
kind: DubboAuthorizationPolicy
metadata: {name: p, namespace: rpc}
`;

function parse(body: string) {
  const r = parseConfigObject(parseYaml(`${HEAD}${body}`), PARSE_OPTIONS);
  assert.ok(r, 'recognised');
  return r;
}

function specOf(body: string): DubboAuthorizationPolicySpec {
  const r = parse(body);
  assert.ok(r.ok, r.issues.map(formatIssue).join('; '));
  if (r.value.kind !== 'DubboAuthorizationPolicy') return assert.fail(`kind ${r.value.kind}`);
  return r.value.spec;
}

/** The formatted issues of an input that must be rejected. */
function errors(body: string): string[] {
  const r = parse(body);
  assert.equal(r.ok, false, 'rejected');
  return r.issues.map(formatIssue);
}

const NO_LISTS = { principals: [], notPrincipals: [], namespaces: [], notNamespaces: [] };
const NO_OPS = { interfaces: [], notInterfaces: [], methods: [], notMethods: [] };

describe('parseConfigObject: DubboAuthorizationPolicy', () => {
  it('reads every field of rules, sources and operations', () => {
    const spec = specOf(`
spec:
  action: DENY
  rules:
  - from:
    - source:
        principals: [cluster.local/ns/a/sa/b]
        notPrincipals: ["*x"]
        namespaces: [dev]
        notNamespaces: ["test-*"]
    to:
    - operation:
        interfaces: [org.example.A]
        notInterfaces: ["*.Health"]
        methods: [get*]
        notMethods: [ping]
`);
    assert.deepEqual(spec, {
      action: 'DENY',
      rules: [
        {
          from: [
            {
              source: {
                principals: ['cluster.local/ns/a/sa/b'],
                notPrincipals: ['*x'],
                namespaces: ['dev'],
                notNamespaces: ['test-*'],
              },
            },
          ],
          to: [
            {
              operation: {
                interfaces: ['org.example.A'],
                notInterfaces: ['*.Health'],
                methods: ['get*'],
                notMethods: ['ping'],
              },
            },
          ],
        },
      ],
    });
  });

  it('defaults: action ALLOW, no rules, empty rules, entries without source or operation', () => {
    assert.deepEqual(specOf('spec: {}'), { action: 'ALLOW', rules: [] });
    assert.deepEqual(specOf('spec: {action: null, rules: null}'), { action: 'ALLOW', rules: [] });
    assert.deepEqual(specOf('spec: {action: ALLOW, rules: [{}, {from: [{}], to: [{}]}]}').rules, [
      { from: [], to: [] },
      { from: [{ source: NO_LISTS }], to: [{ operation: NO_OPS }] },
    ]);
  });

  it('a selector is an error that says the kind has none', () => {
    const issues = errors('spec: {selector: {matchLabels: {app: billing}}, rules: [{}]}');
    assert.equal(issues.length, 1);
    assert.match(
      issues[0]!,
      /^DubboAuthorizationPolicy rpc\/p: spec\.selector: unknown field: .*no selector.*every native Dubbo service/,
    );
  });

  it('unknown fields at every depth are errors with their path', () => {
    const issues = errors(`
spec:
  rules:
  - when: [{key: x}]
    from:
    - source:
        ipBlocks: [10.0.0.0/8]
      where: here
    to:
    - operation:
        paths: [/x]
        methods: [get]
      extra: 1
  provider: {name: x}
`);
    assert.deepEqual(issues, [
      'DubboAuthorizationPolicy rpc/p: spec.provider: unknown field',
      'DubboAuthorizationPolicy rpc/p: spec.rules[0].when: unknown field',
      'DubboAuthorizationPolicy rpc/p: spec.rules[0].from[0].where: unknown field',
      'DubboAuthorizationPolicy rpc/p: spec.rules[0].from[0].source.ipBlocks: unknown field',
      'DubboAuthorizationPolicy rpc/p: spec.rules[0].to[0].extra: unknown field',
      'DubboAuthorizationPolicy rpc/p: spec.rules[0].to[0].operation.paths: unknown field',
    ]);
  });

  it('an action other than ALLOW or DENY is an error (names are case-sensitive; no enum numbers)', () => {
    for (const [action, shown] of [
      ['AUDIT', 'string "AUDIT"'],
      ['allow', 'string "allow"'],
      ['""', 'string ""'],
      ['1', 'number 1'],
      ['[DENY]', 'a list'],
    ] as const) {
      assert.deepEqual(errors(`spec: {action: ${action}}`), [
        `DubboAuthorizationPolicy rpc/p: spec.action: must be ALLOW or DENY, got ${shown}`,
      ]);
    }
  });

  it('values of the wrong JSON type are errors with their path', () => {
    assert.deepEqual(errors('spec: {rules: {from: []}}'), [
      'DubboAuthorizationPolicy rpc/p: spec.rules: expected a list, got an object',
    ]);
    assert.deepEqual(errors('spec: {rules: [[]]}'), [
      'DubboAuthorizationPolicy rpc/p: spec.rules[0]: expected an object, got a list',
    ]);
    assert.deepEqual(errors('spec: {rules: [{from: {source: {}}, to: [operation]}]}'), [
      'DubboAuthorizationPolicy rpc/p: spec.rules[0].from: expected a list, got an object',
      'DubboAuthorizationPolicy rpc/p: spec.rules[0].to[0]: expected an object, got string "operation"',
    ]);
    assert.deepEqual(
      errors(
        'spec: {rules: [{from: [{source: [x]}], to: [{operation: {methods: get, interfaces: [1, a]}}]}]}',
      ),
      [
        'DubboAuthorizationPolicy rpc/p: spec.rules[0].from[0].source: expected an object, got a list',
        'DubboAuthorizationPolicy rpc/p: spec.rules[0].to[0].operation.interfaces[0]: expected a string, got number 1',
        'DubboAuthorizationPolicy rpc/p: spec.rules[0].to[0].operation.methods: expected a list, got string "get"',
      ],
    );
    assert.deepEqual(errors('spec: [rules]'), ['DubboAuthorizationPolicy rpc/p: spec: expected an object']);
  });

  it('is recognised only as dubbo.aeraki.io/v1alpha1, and is namespaced', () => {
    const raw = (apiVersion: string) => ({
      apiVersion,
      kind: 'DubboAuthorizationPolicy',
      metadata: { name: 'p' },
      spec: {},
    });
    assert.equal(parseConfigObject(raw('metaprotocol.aeraki.io/v1alpha1'), PARSE_OPTIONS), undefined);
    assert.equal(parseConfigObject(raw('dubbo.aeraki.io/v1'), PARSE_OPTIONS), undefined);
    const r = parseConfigObject(raw('dubbo.aeraki.io/v1alpha1'), PARSE_OPTIONS);
    assert.ok(r?.ok);
    assert.equal(r.value.metadata.namespace, 'default');
  });
});

describe('DubboAuthorizationPolicy values that can never match', () => {
  it('an empty value and a namespace no namespace name fits are warnings naming the field; the policy applies', () => {
    const r = parse(`
spec:
  rules:
  - from: [{source: {principals: [""], namespaces: [shop-*, Shop, a_b]}}]
    to: [{operation: {methods: [sayHello, ""]}}]
`);
    assert.ok(r.ok, 'still applied');
    assert.deepEqual(
      r.issues.map((i) => [severityOf(i), i.path]),
      [
        ['warning', 'spec.rules[0].from[0].source.principals[0]'],
        ['warning', 'spec.rules[0].from[0].source.namespaces[1]'],
        ['warning', 'spec.rules[0].from[0].source.namespaces[2]'],
        ['warning', 'spec.rules[0].to[0].operation.methods[1]'],
      ],
    );
    assert.ok(r.issues[0]?.message.includes('an empty value matches nothing'));
    assert.ok(r.issues[1]?.message.includes('"Shop" matches no namespace'));
    assert.deepEqual(r.issues[0]?.ref, { kind: 'DubboAuthorizationPolicy', namespace: 'rpc', name: 'p' });
  });
});
