/**
 * Native Dubbo plugin: Envoy's dubbo_proxy on `tcp-dubbo` ports.
 * https://www.envoyproxy.io/docs/envoy/latest/api-v3/extensions/filters/network/dubbo_proxy/v3/dubbo_proxy.proto
 */
import type { Generator } from '../../model/generator.ts';
import { resolveDubboContext, type DubboContext } from './context.ts';
import { generateDubboSidecar, type DubboGeneratorOptions } from './generator.ts';
import { DUBBO_KINDS } from './kinds.ts';
import { generateDubboOwnWaypoint } from './own-waypoint.ts';
import { generateDubboWaypoint } from './waypoint.ts';

export type { DubboContext } from './context.ts';
export type { DubboGeneratorOptions } from './generator.ts';
export type { DubboFilter } from './filters.ts';
export { DUBBO_RBAC_FILTER, DUBBO_ROUTER_FILTER } from './filters.ts';

export function createDubboGenerator(options: DubboGeneratorOptions = {}): Generator<DubboContext> {
  return {
    name: 'dubbo',
    protocols: ['dubbo'],
    // Dubbo's default protocol port (Apache Dubbo DubboProtocol.DEFAULT_PORT).
    facts: [{ name: 'dubbo', wellKnownPorts: [20880] }],
    kinds: DUBBO_KINDS,
    resolveContext: resolveDubboContext,
    generateSidecar: (ctx) => generateDubboSidecar(ctx, options),
    generateWaypoint: generateDubboWaypoint,
    generateOwnWaypoint: generateDubboOwnWaypoint,
  } satisfies Generator<DubboContext>;
}
