// Our own waypoint, MetaProtocol (plugins/metaprotocol/own-waypoint*.ts): meta_protocol_proxy with RDS over ADS on a
// MetaProtocol proxy image; dubbo_proxy with the MetaRouter's routes for the Dubbo codec on stock Envoy, and warnings
// for what it cannot express; no chain for other codecs on stock Envoy.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DUBBO_ROUTE_TYPE } from '../../src/model/ambient/xds.ts';
import { createMetaProtocolGenerator } from '../../src/plugins/metaprotocol/index.ts';
import { at, checkedChain, issueLines, ownContext, storeOf } from './own-waypoint-support.ts';

const HOST = 'demo.rpc.svc.cluster.local';
const OTHER = 'legacy.rpc.svc.cluster.local';
const SE = (port: string) => `
apiVersion: networking.istio.io/v1alpha3
kind: ServiceEntry
metadata: {name: demo, namespace: rpc}
spec:
  hosts: [${HOST}]
  addresses: [240.240.3.1]
  ports: [{number: 20880, name: ${port}, protocol: TCP}]
---
apiVersion: networking.istio.io/v1alpha3
kind: ServiceEntry
metadata: {name: legacy, namespace: rpc}
spec:
  hosts: [${OTHER}]
  addresses: [240.240.3.2]
  ports: [{number: 20881, name: tcp-metaprotocol-dubbo, protocol: TCP}]
---`;
const MR = `
apiVersion: metaprotocol.aeraki.io/v1alpha1
kind: MetaRouter
metadata: {name: demo, namespace: rpc}
spec:
  hosts: [${HOST}]
  routes:
  - name: gold
    match:
      attributes:
        interface: {exact: org.apache.dubbo.samples.DemoService}
        method: {exact: sayHello}
        tenant: {exact: gold}
    route: [{destination: {host: ${HOST}, subset: v2}}]
    mirror: {host: ${HOST}, subset: shadow}
    requestMutation: [{key: x-from, value: waypoint}]
  - name: by-regex
    match:
      attributes:
        interface: {regex: "org\\\\.apache\\\\..*"}
    route: [{destination: {host: ${HOST}, subset: v3}}]
  - name: samples
    match:
      attributes:
        interface: {prefix: org.apache.dubbo.samples.}
        method: {prefix: get}
    route:
    - {destination: {host: ${HOST}, subset: v1}, weight: 70}
    - {destination: {host: ${OTHER}, port: {number: 20881}}, weight: 30}
  - name: rest
    route: [{destination: {host: ${HOST}, subset: v1}}]
  localRateLimit:
    tokenBucket: {fillInterval: 1s, maxTokens: 10, tokensPerFill: 10}
  globalRateLimit:
    domain: production
    rateLimitService: outbound|8081||rate-limit.rpc.svc.cluster.local
    descriptors: [{property: method, descriptorKey: method}]
---`;
const DR = `
apiVersion: networking.istio.io/v1alpha3
kind: DestinationRule
metadata: {name: demo, namespace: rpc}
spec:
  host: ${HOST}
  subsets:
  - {name: v1, labels: {version: v1}}
  - name: v2
    labels: {version: v2}
    trafficPolicy: {loadBalancer: {consistentHash: {httpHeaderName: tenant}}}
---`;
const TRPC = `
apiVersion: metaprotocol.aeraki.io/v1alpha1
kind: ApplicationProtocol
metadata: {name: trpc, namespace: istio-system}
spec: {protocol: trpc, codec: aeraki.meta_protocol.codec.trpc}
---`;

const generator = createMetaProtocolGenerator();
const WAYPOINT_NOTE = `on waypoint rpc/waypoint, whose image docker.io/envoyproxy/envoy:v1.38.4 routes ${HOST}:20880 with dubbo_proxy`;

describe('own waypoint: metaprotocol', () => {
  it('the Dubbo codec on stock Envoy: dubbo_proxy, one route configuration per MetaRouter route, in order', () => {
    const store = storeOf(SE('tcp-metaprotocol-dubbo') + MR + DR);
    const { ctx, clusters } = ownContext(store, generator, 'rpc', 'demo');
    const result = generator.generateOwnWaypoint!(ctx);
    const chain = checkedChain(result);
    assert.deepEqual(
      chain.filters.map((f) => f['name']),
      ['envoy.filters.network.dubbo_proxy'],
    );
    assert.deepEqual(at(chain.filters[0], 'typed_config', 'drds', 'route_config_name'), `${HOST}_20880`);
    const route = chain.routes![0]!;
    assert.equal(route.typeUrl, DUBBO_ROUTE_TYPE);
    const configs = at(route.json, 'route_config') as {
      name: string;
      interface: string;
      routes: unknown[];
    }[];
    assert.deepEqual(
      configs.map((c) => `${c.name} ${c.interface}`),
      [
        'gold org.apache.dubbo.samples.DemoService',
        'samples org.apache.dubbo.samples.',
        'samples org.apache.dubbo.samples.*',
        `rest *`,
      ],
    );
    assert.deepEqual(configs[0]!.routes, [
      {
        match: {
          method: { name: { exact: 'sayHello' } },
          headers: [{ name: 'tenant', string_match: { exact: 'gold' } }],
        },
        route: { cluster: `outbound|20880|v2|${HOST}` },
      },
    ]);
    assert.deepEqual(configs[1]!.routes, [
      {
        match: { method: { name: { prefix: 'get' } } },
        route: {
          weighted_clusters: {
            clusters: [
              { name: `outbound|20880|v1|${HOST}`, weight: 70 },
              { name: `outbound|20881||${OTHER}`, weight: 30 },
            ],
          },
        },
      },
    ]);
    assert.deepEqual(configs[3]!.routes, [
      {
        match: { method: { name: { safe_regex: { regex: '.*' } } } },
        route: { cluster: `outbound|20880|v1|${HOST}` },
      },
    ]);
    assert.deepEqual(clusters.slice().sort(), [
      `outbound|20880|v1|${HOST}`,
      `outbound|20880|v2|${HOST}`,
      `outbound|20880||${HOST}`,
      `outbound|20881||${OTHER}`,
    ]);
    assert.deepEqual(issueLines(result.issues), [
      `MetaRouter rpc/demo: spec.routes[0].mirror: not applied ${WAYPOINT_NOTE}`,
      `MetaRouter rpc/demo: spec.routes[0].requestMutation: not applied ${WAYPOINT_NOTE}`,
      `MetaRouter rpc/demo: spec.routes[1].match.attributes.interface: route left out ${WAYPOINT_NOTE}: dubbo_proxy matches "interface" exactly or by prefix only (no regex, no name starting or ending in "*")`,
      `MetaRouter rpc/demo: spec.localRateLimit: not applied ${WAYPOINT_NOTE}, which has no rate limit (a MetaProtocol proxy image has)`,
      `MetaRouter rpc/demo: spec.globalRateLimit: not applied ${WAYPOINT_NOTE}, which has no rate limit (a MetaProtocol proxy image has)`,
      `DestinationRule rpc/demo: spec.subsets[1].trafficPolicy.loadBalancer.consistentHash.httpHeaderName: not applied ${WAYPOINT_NOTE}, which hashes on no header`,
    ]);
  });

  it('the Dubbo codec on stock Envoy without a MetaRouter: every call to the host cluster', () => {
    const { ctx, clusters } = ownContext(
      storeOf(SE('tcp-metaprotocol-dubbo')),
      generator,
      'rpc',
      'demo',
      0,
      'envoy-contrib',
    );
    const result = generator.generateOwnWaypoint!(ctx);
    const chain = checkedChain(result);
    assert.deepEqual(at(chain.routes, 0, 'json', 'route_config'), [
      {
        name: `${HOST}_20880`,
        interface: '*',
        routes: [
          {
            match: { method: { name: { safe_regex: { regex: '.*' } } } },
            route: { cluster: `outbound|20880||${HOST}` },
          },
        ],
      },
    ]);
    assert.deepEqual(clusters, [`outbound|20880||${HOST}`]);
    assert.deepEqual(result.issues, []);
  });

  it('on a MetaProtocol proxy image: meta_protocol_proxy over RDS from ADS, every cluster its routes name', () => {
    const store = storeOf(SE('tcp-metaprotocol-trpc') + MR + TRPC);
    const { ctx, clusters } = ownContext(store, generator, 'rpc', 'demo', 0, 'metaprotocol');
    const result = generator.generateOwnWaypoint!(ctx);
    const chain = checkedChain(result);
    assert.equal(chain.routes, undefined, 'the RDS server serves the routes');
    assert.equal(chain.filters.length, 1);
    const typed = at(chain.filters[0], 'typed_config');
    assert.equal(at(chain.filters[0], 'name'), 'envoy.filters.network.meta_protocol_proxy');
    assert.equal(typed['@type'], 'type.googleapis.com/xds.type.v3.TypedStruct');
    assert.equal(typed.type_url, 'type.googleapis.com/aeraki.meta_protocol_proxy.v1alpha.MetaProtocolProxy');
    assert.deepEqual(typed.value.rds, {
      config_source: { ads: {}, resource_api_version: 'V3' },
      route_config_name: `${HOST}_20880`,
    });
    assert.equal(typed.value.codec.name, 'aeraki.meta_protocol.codec.trpc');
    assert.deepEqual(
      typed.value.metaProtocolFilters.map((f: { name: string }) => f.name),
      [
        'aeraki.meta_protocol.filters.local_ratelimit',
        'aeraki.meta_protocol.filters.ratelimit',
        'aeraki.meta_protocol.filters.metadata_exchange',
        'aeraki.meta_protocol.filters.istio_stats',
        'aeraki.meta_protocol.filters.router',
      ],
    );
    assert.deepEqual(clusters.slice().sort(), [
      `outbound|20880|shadow|${HOST}`,
      `outbound|20880|v1|${HOST}`,
      `outbound|20880|v2|${HOST}`,
      `outbound|20880|v3|${HOST}`,
      `outbound|20880||${HOST}`,
      `outbound|20881||${OTHER}`,
      'outbound|8081||rate-limit.rpc.svc.cluster.local',
    ]);
    assert.deepEqual(result.issues, []);
  });

  it('another codec on stock Envoy: no chain, a warning naming the service, port, waypoint and image', () => {
    const store = storeOf(SE('tcp-metaprotocol-trpc') + TRPC);
    const { ctx, clusters } = ownContext(store, generator, 'rpc', 'demo');
    const result = generator.generateOwnWaypoint!(ctx);
    assert.ok(result.ok);
    assert.equal(result.value, undefined);
    assert.deepEqual(clusters, []);
    assert.deepEqual(issueLines(result.issues), [
      'ServiceEntry rpc/demo: spec.ports[0].name: ServiceEntry rpc/demo port 20880 ("tcp-metaprotocol-trpc") is bound to waypoint rpc/waypoint, whose image docker.io/envoyproxy/envoy:v1.38.4 (envoy) has no envoy.filters.network.meta_protocol_proxy: the waypoint does not carry this port (its aeraki.io/proxy-image must name a MetaProtocol proxy image)',
    ]);
  });
});
