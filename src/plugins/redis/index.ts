/**
 * Redis plugin: Envoy's redis_proxy on `tcp-redis` ports, configured by RedisService (client side) and
 * RedisDestination (the upstream cluster).
 * https://www.envoyproxy.io/docs/envoy/latest/api-v3/extensions/filters/network/redis_proxy/v3/redis_proxy.proto
 */
import type { Generator } from '../../model/generator.ts';
import { resolveRedisContext, type RedisContext } from './context.ts';
import { generateRedisSidecar } from './generator.ts';
import { REDIS_KINDS, REDIS_SECRET_KEYS } from './kinds.ts';
import { generateRedisOwnWaypoint } from './own-waypoint.ts';
import { generateRedisWaypoint } from './waypoint.ts';

export function createRedisGenerator(): Generator<RedisContext> {
  return {
    name: 'redis',
    protocols: ['redis'],
    kinds: REDIS_KINDS,
    secretKeys: REDIS_SECRET_KEYS,
    resolveContext: resolveRedisContext,
    generateSidecar: generateRedisSidecar,
    generateWaypoint: generateRedisWaypoint,
    generateOwnWaypoint: generateRedisOwnWaypoint,
  } satisfies Generator<RedisContext>;
}
