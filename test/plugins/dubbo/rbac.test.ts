// DubboAuthorizationPolicy → envoy.filters.dubbo.rbac: value matchers, one Envoy policy per rule, rule names (D14)
// and the DENY-before-ALLOW filters, and the dubbo generator placing them on the inbound proxy by default.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DubboRule } from '../../../src/plugins/dubbo/types.ts';
import type { DubboProxyConfig } from '../../../src/plugins/dubbo/filters.ts';
import { createDubboGenerator } from '../../../src/plugins/dubbo/index.ts';
import { authorizationFilters, rulePolicy, ruleName } from '../../../src/plugins/dubbo/rbac.ts';
import {
  metadataRule,
  namespaceId,
  principalId,
  wildcardMatcher,
} from '../../../src/plugins/dubbo/rbac-match.ts';
import {
  dubboAuthorizationPolicy,
  dubboOperation,
  dubboSource,
  serviceEntry,
} from '../../support/builders.ts';
import { sidecarContext } from './fixture-context.ts';

const re = (regex: string) => ({ safeRegex: { googleRe2: {}, regex } });
const ANY_PRINCIPALS = [{ andIds: { ids: [{ any: true }] } }];
const ANY_PERMISSIONS = [{ andRules: { rules: [{ any: true }] } }];

describe('DubboAuthorizationPolicy value matchers', () => {
  it('wildcards: * is presence, *x a suffix (a regex behind a prefix), x* a prefix, else exact', () => {
    assert.deepEqual(wildcardMatcher('*', ''), re('.+'));
    assert.deepEqual(wildcardMatcher('*', 'spiffe://'), re('.+'));
    assert.deepEqual(wildcardMatcher('*.Health', ''), { suffix: '.Health' });
    assert.deepEqual(wildcardMatcher('*/sa/x', 'spiffe://'), re('spiffe://.*/sa/x'));
    assert.deepEqual(wildcardMatcher('get*', ''), { prefix: 'get' });
    assert.deepEqual(wildcardMatcher('td/ns/a/*', 'spiffe://'), { prefix: 'spiffe://td/ns/a/' });
    assert.deepEqual(wildcardMatcher('sayHello', ''), { exact: 'sayHello' });
    assert.deepEqual(wildcardMatcher('', ''), { exact: '' });
  });

  it('the literal parts of a regex are escaped (no `.` matching any character, no invalid `**`)', () => {
    assert.deepEqual(
      wildcardMatcher('*cluster.local/ns/a/sa/b', 'spiffe://'),
      re('spiffe://.*cluster\\.local/ns/a/sa/b'),
    );
    assert.deepEqual(wildcardMatcher('**', 'spiffe://'), re('spiffe://.*\\*'));
    assert.deepEqual(namespaceId('a.b*(c)'), {
      authenticated: { principalName: re('.*/ns/a\\.b.*\\(c\\)/.*') },
    });
  });

  it('principals get spiffe://; namespaces become a principal regex with * as .*', () => {
    assert.deepEqual(principalId('cluster.local/ns/web/sa/frontend'), {
      authenticated: { principalName: { exact: 'spiffe://cluster.local/ns/web/sa/frontend' } },
    });
    assert.deepEqual(namespaceId('test-*'), { authenticated: { principalName: re('.*/ns/test-.*/.*') } });
    assert.deepEqual(namespaceId('*'), { authenticated: { principalName: re('.*/ns/.*/.*') } });
  });

  it('methods and interfaces are metadata of the Dubbo RBAC filter (keys method, service)', () => {
    assert.deepEqual(metadataRule('service', '*'), {
      metadata: {
        filter: 'envoy.filters.dubbo.rbac',
        path: [{ key: 'service' }],
        value: { stringMatch: re('.+') },
      },
    });
    assert.deepEqual(metadataRule('method', 'get*'), {
      metadata: {
        filter: 'envoy.filters.dubbo.rbac',
        path: [{ key: 'method' }],
        value: { stringMatch: { prefix: 'get' } },
      },
    });
  });
});

describe('DubboAuthorizationPolicy rules', () => {
  it('an empty rule, and entries with nothing in them, match any source and operation', () => {
    assert.deepEqual(rulePolicy({ from: [], to: [] }), {
      permissions: ANY_PERMISSIONS,
      principals: ANY_PRINCIPALS,
    });
    const empty: DubboRule = { from: [{ source: dubboSource({}) }], to: [{ operation: dubboOperation({}) }] };
    assert.deepEqual(rulePolicy(empty), { permissions: ANY_PERMISSIONS, principals: ANY_PRINCIPALS });
  });

  it('one AND-set per entry; inside it the lists in their fixed order, not* lists negated', () => {
    const rule: DubboRule = {
      from: [
        {
          source: dubboSource({
            notNamespaces: ['b'],
            namespaces: ['a'],
            notPrincipals: ['p2'],
            principals: ['p1'],
          }),
        },
        { source: dubboSource({ namespaces: ['c'] }) },
      ],
      to: [
        {
          operation: dubboOperation({
            notInterfaces: ['I2'],
            interfaces: ['I1'],
            notMethods: ['m2'],
            methods: ['m1'],
          }),
        },
      ],
    };
    const policy = rulePolicy(rule);
    const principal = (p: string) => principalId(p);
    assert.deepEqual(policy.principals, [
      {
        andIds: {
          ids: [
            { orIds: { ids: [principal('p1')] } },
            { notId: { orIds: { ids: [principal('p2')] } } },
            { orIds: { ids: [namespaceId('a')] } },
            { notId: { orIds: { ids: [namespaceId('b')] } } },
          ],
        },
      },
      { andIds: { ids: [{ orIds: { ids: [namespaceId('c')] } }] } },
    ]);
    assert.deepEqual(policy.permissions, [
      {
        andRules: {
          rules: [
            { orRules: { rules: [metadataRule('method', 'm1')] } },
            { notRule: { orRules: { rules: [metadataRule('method', 'm2')] } } },
            { orRules: { rules: [metadataRule('service', 'I1')] } },
            { notRule: { orRules: { rules: [metadataRule('service', 'I2')] } } },
          ],
        },
      },
    ]);
  });
});

describe('DubboAuthorizationPolicy RBAC filters', () => {
  const allow = (ns: string, name: string, rules: DubboRule[]) =>
    dubboAuthorizationPolicy(ns, name, { action: 'ALLOW', rules });
  const deny = (ns: string, name: string, rules: DubboRule[]) =>
    dubboAuthorizationPolicy(ns, name, { action: 'DENY', rules });
  const EMPTY: DubboRule = { from: [], to: [] };
  const config = (rules: unknown) => ({
    '@type': 'type.googleapis.com/envoy.extensions.filters.network.rbac.v3.RBAC',
    rules,
    statPrefix: 'dubbo.',
  });

  it('no policies: no filters', () => assert.deepEqual(authorizationFilters([]), []));

  it('DENY before ALLOW whatever the input order; rules without policies leave `policies` out', () => {
    const filters = authorizationFilters([allow('shop', 'a', []), deny('shop', 'b', [])]);
    assert.deepEqual(filters, [
      { name: 'envoy.filters.dubbo.rbac', config: config({ action: 'DENY' }) },
      { name: 'envoy.filters.dubbo.rbac', config: config({}) },
    ]);
  });

  it('D14: every rule is named after its own policy and its index in it (more rules than policies)', () => {
    const policies = [allow('shop', 'a-readers', [EMPTY]), allow('shop', 'b-writers', [EMPTY, EMPTY, EMPTY])];
    const [filter] = authorizationFilters([...policies, deny('istio-system', 'mesh', [EMPTY, EMPTY])]).slice(
      1,
    );
    const rules = (filter?.config as { rules: { policies: Record<string, unknown> } }).rules;
    assert.deepEqual(Object.keys(rules.policies), [
      'ns[shop]-policy[a-readers]-rule[0]',
      'ns[shop]-policy[b-writers]-rule[0]',
      'ns[shop]-policy[b-writers]-rule[1]',
      'ns[shop]-policy[b-writers]-rule[2]',
    ]);
    assert.equal(ruleName(deny('istio-system', 'mesh', []), 1), 'ns[istio-system]-policy[mesh]-rule[1]');
    const denyRules = (
      authorizationFilters([deny('istio-system', 'mesh', [EMPTY, EMPTY])])[0]?.config as {
        rules: { action: string; policies: Record<string, unknown> };
      }
    ).rules;
    assert.equal(denyRules.action, 'DENY');
    assert.deepEqual(Object.keys(denyRules.policies), [
      'ns[istio-system]-policy[mesh]-rule[0]',
      'ns[istio-system]-policy[mesh]-rule[1]',
    ]);
  });

  it('the dubbo generator puts them on the inbound proxy before the router, not on the outbound one', () => {
    const se = serviceEntry('shop', 'cart', {
      hosts: ['cart.shop.svc.cluster.local'],
      addresses: ['240.240.0.1'],
      ports: [{ number: 20880, name: 'tcp-dubbo', protocol: 'TCP' }],
      workloadSelector: { labels: { app: 'cart' } },
    });
    const policies = [deny('shop', 'block', [EMPTY]), allow('shop', 'open', [EMPTY])];
    const ctx = { ...sidecarContext(se, 0), extension: policies };
    const result = createDubboGenerator().generateSidecar(ctx);
    assert.ok(result.ok);
    const chains = new Map(
      result.value.map((d) => [
        d.name,
        (d.spec.configPatches[0]?.patch.value as { typed_config: { value: DubboProxyConfig } }).typed_config
          .value.dubboFilters,
      ]),
    );
    assert.deepEqual(chains.get('aeraki-inbound-cart.shop.svc.cluster.local-20880'), [
      ...authorizationFilters(policies),
      { name: 'envoy.filters.dubbo.router' },
    ]);
    assert.equal(authorizationFilters(policies).length, 2);
    assert.deepEqual(chains.get('aeraki-outbound-cart.shop.svc.cluster.local-240.240.0.1-20880'), [
      { name: 'envoy.filters.dubbo.router' },
    ]);
    const without = createDubboGenerator().generateSidecar(sidecarContext(se, 0));
    assert.ok(without.ok);
    const inbound = without.value.find((d) => d.name.startsWith('aeraki-inbound-'));
    const value = (
      inbound?.spec.configPatches[0]?.patch.value as { typed_config: { value: DubboProxyConfig } }
    ).typed_config.value;
    assert.deepEqual(value.dubboFilters, [{ name: 'envoy.filters.dubbo.router' }]);
  });
});
