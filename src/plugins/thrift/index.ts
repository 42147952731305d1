/**
 * Native Thrift plugin: Envoy's thrift_proxy on `tcp-thrift` ports.
 * https://www.envoyproxy.io/docs/envoy/latest/api-v3/extensions/filters/network/thrift_proxy/v3/thrift_proxy.proto
 */
import type { Generator } from '../../model/generator.ts';
import { generateThriftSidecar, generateThriftWaypoint } from './generator.ts';
import { generateThriftOwnWaypoint } from './own-waypoint.ts';

export { THRIFT_ROUTER_FILTER } from './generator.ts';

export function createThriftGenerator(): Generator {
  return {
    name: 'thrift',
    protocols: ['thrift'],
    // The port Thrift's own servers and tutorials listen on by default.
    facts: [{ name: 'thrift', wellKnownPorts: [9090] }],
    generateSidecar: generateThriftSidecar,
    generateWaypoint: generateThriftWaypoint,
    generateOwnWaypoint: generateThriftOwnWaypoint,
  } satisfies Generator;
}
