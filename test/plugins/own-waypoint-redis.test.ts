// Our own waypoint, Redis (plugins/redis/own-waypoint.ts): redis_proxy from the RedisService (routes, mirrors, Secret
// auth) to the waypoint's clusters, and what a RedisDestination cannot change there.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRedisGenerator } from '../../src/plugins/redis/index.ts';
import { at, checkedChain, issueLines, ownContext, storeOf } from './own-waypoint-support.ts';

const HOST = 'r.cache.svc.cluster.local';
const OTHER = 'shadow.cache.svc.cluster.local';
const SE = (name: string, host: string, port: number) => `
apiVersion: networking.istio.io/v1alpha3
kind: ServiceEntry
metadata: {name: ${name}, namespace: cache}
spec:
  hosts: [${host}]
  addresses: [240.240.1.${port % 250}]
  ports: [{number: ${port}, name: tcp-redis, protocol: TCP}]
---`;
const RS = `
apiVersion: redis.aeraki.io/v1alpha1
kind: RedisService
metadata: {name: rs, namespace: cache}
spec:
  host: [${HOST}]
  settings: {opTimeout: 5s, auth: {secret: {name: auth}}}
  redis:
  - match: {key: {prefix: "user:"}}
    route: {host: ${HOST}}
    mirror: [{route: {host: ${OTHER}}, percentage: {value: 50}}]
  - route: {host: ${HOST}}
---
apiVersion: v1
kind: Secret
metadata: {name: auth, namespace: cache}
stringData: {password: hunter2}
---`;
const RD = `
apiVersion: redis.aeraki.io/v1alpha1
kind: RedisDestination
metadata: {name: rd, namespace: cache}
spec:
  host: ${HOST}
  trafficPolicy: {connectionPool: {tcp: {maxConnections: 3}, redis: {mode: CLUSTER}}}
---`;

const generator = createRedisGenerator();

describe('own waypoint: redis', () => {
  it('redis_proxy from the RedisService: prefix routes, a mirror to another service, downstream auth', () => {
    const store = storeOf(SE('r', HOST, 6379) + SE('shadow', OTHER, 6380) + RS + RD);
    const { ctx, clusters } = ownContext(store, generator, 'cache', 'r');
    const result = generator.generateOwnWaypoint!(ctx);
    const chain = checkedChain(result);
    assert.equal(chain.routes, undefined, 'inline routes: redis_proxy has no RDS');
    assert.deepEqual(
      chain.filters.map((f) => f['name']),
      ['envoy.filters.network.redis_proxy'],
    );
    const proxy = at(chain.filters[0], 'typed_config');
    assert.equal(proxy.statPrefix, `outbound|6379||${HOST}`);
    assert.deepEqual(proxy.settings, { opTimeout: '5s' });
    assert.deepEqual(proxy.downstreamAuthPassword, { inlineString: 'hunter2' });
    assert.deepEqual(proxy.prefixRoutes.routes, [
      {
        prefix: 'user:',
        cluster: `outbound|6379||${HOST}`,
        requestMirrorPolicy: [
          {
            cluster: `outbound|6380||${OTHER}`,
            runtimeFraction: { defaultValue: { numerator: 500000, denominator: 'MILLION' } },
          },
        ],
      },
    ]);
    assert.deepEqual(proxy.prefixRoutes.catchAllRoute, { cluster: `outbound|6379||${HOST}` });
    assert.deepEqual(clusters.slice().sort(), [`outbound|6379||${HOST}`, `outbound|6380||${OTHER}`]);
    assert.deepEqual(issueLines(result.issues), [
      `RedisDestination cache/rd: spec.trafficPolicy: not applied on waypoint cache/waypoint: its cluster outbound|6379||${HOST} is built by the waypoint (EDS to the pods, plain TCP) without connectionPool.tcp, connectionPool.redis.mode`,
    ]);
  });

  it('without a RedisService: every command to the host cluster', () => {
    const { ctx } = ownContext(storeOf(SE('r', HOST, 6379)), generator, 'cache', 'r');
    const result = generator.generateOwnWaypoint!(ctx);
    const chain = checkedChain(result);
    assert.deepEqual(at(chain.filters[0], 'typed_config', 'prefixRoutes'), {
      catchAllRoute: { cluster: `outbound|6379||${HOST}` },
    });
    assert.deepEqual(result.issues, []);
  });

  it('a Secret that cannot serve the auth fails the chain: no proxy without the auth it asks for', () => {
    const noKey = RS.replace('stringData: {password: hunter2}', 'stringData: {other: x}');
    const { ctx } = ownContext(storeOf(SE('r', HOST, 6379) + noKey), generator, 'cache', 'r');
    const result = generator.generateOwnWaypoint!(ctx);
    assert.equal(result.ok, false);
    assert.match(
      issueLines(result.issues).join('\n'),
      /RedisService cache\/rs: spec.settings.auth.secret: Secret cache\/auth has no key "password"/,
    );
  });
});
