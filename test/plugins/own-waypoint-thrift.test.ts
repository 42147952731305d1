// Our own waypoint, Thrift (plugins/thrift/own-waypoint.ts): thrift_proxy with its routes over ADS (trds) from the
// host's VirtualService, the router with its typed config.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { THRIFT_ROUTE_TYPE } from '../../src/model/ambient/xds.ts';
import { createThriftGenerator } from '../../src/plugins/thrift/index.ts';
import { at, checkedChain, issueLines, ownContext, storeOf } from './own-waypoint-support.ts';

const HOST = 'calc.math.svc.cluster.local';
const SE = `
apiVersion: networking.istio.io/v1alpha3
kind: ServiceEntry
metadata: {name: calc, namespace: math}
spec:
  hosts: [${HOST}]
  addresses: [240.240.0.9]
  ports: [{number: 9090, name: tcp-thrift, protocol: TCP}]
---`;
const VS = (method: string) => `
apiVersion: networking.istio.io/v1alpha3
kind: VirtualService
metadata: {name: calc, namespace: math}
spec:
  hosts: [${HOST}]
  http:
  - match: [{method: ${method}}]
    route: [{destination: {host: ${HOST}, subset: fast}}]
  - route:
    - {destination: {host: ${HOST}, subset: v1}, weight: 90}
    - {destination: {host: ${HOST}, subset: v2}, weight: 10}
---`;

const generator = createThriftGenerator();

describe('own waypoint: thrift', () => {
  it('thrift_proxy over trds, routes from the VirtualService to the subset clusters', () => {
    const { ctx, clusters } = ownContext(storeOf(SE + VS('{exact: add}')), generator, 'math', 'calc');
    const result = generator.generateOwnWaypoint!(ctx);
    const chain = checkedChain(result);
    assert.deepEqual(result.issues, []);
    assert.equal(chain.filters.length, 1);
    const proxy = at(chain.filters[0], 'typed_config');
    assert.equal(at(chain.filters[0], 'name'), 'envoy.filters.network.thrift_proxy');
    assert.deepEqual(proxy.trds, {
      config_source: { ads: {}, resource_api_version: 'V3' },
      route_config_name: `${HOST}_9090`,
    });
    assert.deepEqual(proxy.thrift_filters, [
      {
        name: 'envoy.filters.thrift.router',
        typed_config: {
          '@type': 'type.googleapis.com/envoy.extensions.filters.network.thrift_proxy.router.v3.Router',
        },
      },
    ]);
    assert.equal(proxy.route_config, undefined);
    const route = chain.routes![0]!;
    assert.equal(route.typeUrl, THRIFT_ROUTE_TYPE);
    assert.deepEqual(route.json, {
      name: `${HOST}_9090`,
      routes: [
        { match: { methodName: 'add' }, route: { cluster: `outbound|9090|fast|${HOST}` } },
        {
          match: { methodName: '' },
          route: {
            weightedClusters: {
              clusters: [
                { name: `outbound|9090|v1|${HOST}`, weight: 90 },
                { name: `outbound|9090|v2|${HOST}`, weight: 10 },
              ],
            },
          },
        },
      ],
    });
    assert.deepEqual(clusters.slice().sort(), [
      `outbound|9090|fast|${HOST}`,
      `outbound|9090|v1|${HOST}`,
      `outbound|9090|v2|${HOST}`,
      `outbound|9090||${HOST}`,
    ]);
  });

  it('a VirtualService thrift_proxy cannot express: an error on it, the catch-all route', () => {
    const { ctx } = ownContext(storeOf(SE + VS('{prefix: ad}')), generator, 'math', 'calc');
    const result = generator.generateOwnWaypoint!(ctx);
    const chain = checkedChain(result);
    assert.deepEqual(at(chain.routes, 0, 'json', 'routes'), [
      { match: { methodName: '' }, route: { cluster: `outbound|9090||${HOST}` } },
    ]);
    assert.deepEqual(issueLines(result.issues), [
      `VirtualService math/calc: spec.http[0].match[0].method: prefix "ad" cannot be expressed: Envoy thrift_proxy matches exact method names only; the VirtualService is ignored for thrift service ${HOST}:9090`,
    ]);
  });
});
