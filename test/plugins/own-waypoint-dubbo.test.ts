// Our own waypoint, native Dubbo (plugins/dubbo/own-waypoint.ts): dubbo_proxy with its routes over ADS from the
// host's VirtualService, and DubboAuthorizationPolicies as network RBAC on the peer principal.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DUBBO_ROUTE_TYPE } from '../../src/model/ambient/xds.ts';
import { createDubboGenerator } from '../../src/plugins/dubbo/index.ts';
import { at, checkedChain, issueLines, ownContext, storeOf } from './own-waypoint-support.ts';

const HOST = 'orders.shop.svc.cluster.local';
const SE = `
apiVersion: networking.istio.io/v1alpha3
kind: ServiceEntry
metadata: {name: orders, namespace: shop, annotations: {interface: org.apache.dubbo.samples.OrderService}}
spec:
  hosts: [${HOST}]
  addresses: [240.240.0.7]
  ports: [{number: 20880, name: tcp-dubbo, protocol: TCP}]
---`;
const VS = `
apiVersion: networking.istio.io/v1alpha3
kind: VirtualService
metadata: {name: orders, namespace: shop}
spec:
  hosts: [${HOST}]
  http:
  - match: [{method: {exact: place}, headers: {x-tenant: {exact: gold}}}]
    route: [{destination: {host: ${HOST}, subset: v2}}]
  - route:
    - {destination: {host: ${HOST}, subset: v1}, weight: 80}
    - {destination: {host: ${HOST}, subset: v2}, weight: 20}
---`;
const POLICIES = `
apiVersion: dubbo.aeraki.io/v1alpha1
kind: DubboAuthorizationPolicy
metadata: {name: deny-batch, namespace: shop}
spec:
  action: DENY
  rules:
  - from: [{source: {principals: [cluster.local/ns/batch/sa/default]}}]
  - from: [{source: {namespaces: [test]}}]
    to: [{operation: {methods: [cancel]}}]
---
apiVersion: dubbo.aeraki.io/v1alpha1
kind: DubboAuthorizationPolicy
metadata: {name: allow-web, namespace: shop}
spec:
  action: ALLOW
  rules:
  - from: [{source: {namespaces: [web]}}]
  - from: [{source: {principals: [cluster.local/ns/admin/sa/ops]}}]
    to: [{operation: {interfaces: [org.apache.dubbo.samples.OrderService], methods: [refund]}}]
---`;

const generator = createDubboGenerator();

describe('own waypoint: dubbo', () => {
  it('routes the VirtualService over drds to the subset clusters, RBAC on the peer principal before dubbo_proxy', () => {
    const { ctx, clusters } = ownContext(storeOf(SE + VS + POLICIES), generator, 'shop', 'orders');
    const result = generator.generateOwnWaypoint!(ctx);
    const chain = checkedChain(result);
    assert.deepEqual(
      chain.filters.map((f) => f['name']),
      ['envoy.filters.network.rbac', 'envoy.filters.network.rbac', 'envoy.filters.network.dubbo_proxy'],
    );
    const proxy = at(chain.filters[2], 'typed_config');
    assert.deepEqual(proxy.drds, {
      config_source: { ads: {}, resource_api_version: 'V3' },
      route_config_name: `${HOST}_20880`,
    });
    assert.equal(proxy.route_config, undefined, 'no inline routes: the listener does not change with them');
    assert.deepEqual(
      proxy.dubbo_filters.map((f: { name: string }) => f.name),
      ['envoy.filters.dubbo.router'],
      'no out-of-tree Dubbo RBAC filter',
    );

    assert.equal(chain.routes?.length, 1);
    const route = chain.routes[0]!;
    assert.equal(route.typeUrl, DUBBO_ROUTE_TYPE);
    assert.equal(route.name, `${HOST}_20880`);
    const config = at(route.json, 'route_config', 0);
    assert.equal(config.interface, 'org.apache.dubbo.samples.OrderService');
    assert.deepEqual(at(config, 'routes', 0, 'route'), { cluster: `outbound|20880|v2|${HOST}` });
    assert.deepEqual(at(config, 'routes', 0, 'match', 'method', 'name'), { exact: 'place' });
    assert.deepEqual(
      at(config, 'routes', 1, 'route', 'weightedClusters', 'clusters').map((c: { name: string }) => c.name),
      [`outbound|20880|v1|${HOST}`, `outbound|20880|v2|${HOST}`],
    );
    assert.deepEqual(clusters.slice().sort(), [
      `outbound|20880|v1|${HOST}`,
      `outbound|20880|v2|${HOST}`,
      `outbound|20880||${HOST}`,
    ]);

    const [deny, allow] = chain.filters.map((f) => at(f, 'typed_config', 'rules'));
    assert.equal(deny.action, 'DENY');
    assert.deepEqual(Object.keys(deny.policies), [
      'ns[shop]-policy[deny-batch]-rule[0]',
      'ns[shop]-policy[deny-batch]-rule[1]',
    ]);
    const principal = JSON.stringify(deny.policies['ns[shop]-policy[deny-batch]-rule[0]'].principals);
    assert.match(
      principal,
      /"filterState":\{"key":"io.istio.peer_principal","stringMatch":\{"exact":"spiffe:\/\/cluster.local\/ns\/batch\/sa\/default"\}\}/,
    );
    assert.doesNotMatch(JSON.stringify(deny), /authenticated|envoy.filters.dubbo.rbac/);
    assert.deepEqual(deny.policies['ns[shop]-policy[deny-batch]-rule[1]'].permissions, [
      { andRules: { rules: [{ any: true }] } },
    ]);
    assert.equal(allow.action, undefined);
    assert.deepEqual(Object.keys(allow.policies), ['ns[shop]-policy[allow-web]-rule[0]']);

    assert.deepEqual(issueLines(result.issues), [
      'DubboAuthorizationPolicy shop/allow-web: spec.rules[1].to: interfaces and methods are not checked on waypoint shop/waypoint (orders.shop.svc.cluster.local:20880), whose Envoy has no Dubbo RBAC filter: this rule allows nothing there',
      'DubboAuthorizationPolicy shop/deny-batch: spec.rules[1].to: interfaces and methods are not checked on waypoint shop/waypoint (orders.shop.svc.cluster.local:20880), whose Envoy has no Dubbo RBAC filter: this rule denies every call of its sources there',
    ]);
  });

  it('without a VirtualService or policies: one catch-all route to the service cluster, dubbo_proxy alone', () => {
    const { ctx, clusters } = ownContext(storeOf(SE), generator, 'shop', 'orders');
    const result = generator.generateOwnWaypoint!(ctx);
    const chain = checkedChain(result);
    assert.deepEqual(
      chain.filters.map((f) => f['name']),
      ['envoy.filters.network.dubbo_proxy'],
    );
    assert.deepEqual(at(chain.routes, 0, 'json', 'route_config', 0, 'routes'), [
      {
        match: { method: { name: { safeRegex: { googleRe2: {}, regex: '.*' } } } },
        route: { cluster: `outbound|20880||${HOST}` },
      },
    ]);
    assert.deepEqual(clusters, [`outbound|20880||${HOST}`]);
    assert.deepEqual(result.issues, []);
  });

  it('an ALLOW policy whose only rule names methods denies every connection (no policies left)', () => {
    const only = `
apiVersion: dubbo.aeraki.io/v1alpha1
kind: DubboAuthorizationPolicy
metadata: {name: methods-only, namespace: shop}
spec:
  rules: [{to: [{operation: {methods: [get]}}]}]
---`;
    const { ctx } = ownContext(storeOf(SE + only), generator, 'shop', 'orders');
    const chain = checkedChain(generator.generateOwnWaypoint!(ctx));
    assert.deepEqual(at(chain.filters[0], 'typed_config', 'rules'), {});
  });
});
