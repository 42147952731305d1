import { gatewayKey } from '../model/ambient/own-waypoint.ts';
import type { PeerPolicy } from '../util/peer-policy.ts';
import type { GatewayCheck } from './ads-stream-base.ts';

/**
 * Which Gateway an ADS stream serves, and whether its peer may have it: the first request's `node.cluster` is
 * `W.N` (model/ambient/own-waypoint.ts waypointNodeCluster; a namespace has no dot, so the last dot splits it) and
 * the client certificate's SPIFFE id must be the Gateway's own, `spiffe://<trust domain>/ns/N/sa/W` (the trust
 * domain or one of its aliases, compared without case as Istio compares them). Without a policy (`--rds-insecure`,
 * no TLS) any Gateway is served.
 */
export function gatewayCheck(policy: PeerPolicy | undefined): GatewayCheck {
  return (nodeCluster, peer) => {
    const dot = nodeCluster.lastIndexOf('.');
    const shown = JSON.stringify(nodeCluster.slice(0, 300));
    if (dot <= 0 || dot === nodeCluster.length - 1) {
      return {
        problem: `node.cluster ${shown} is not <gateway>.<namespace> of a waypoint Gateway (peer ${peer})`,
      };
    }
    const name = nodeCluster.slice(0, dot);
    const namespace = nodeCluster.slice(dot + 1);
    const gateway = gatewayKey(namespace, name);
    if (!policy) return { gateway };
    const path = `/ns/${namespace}/sa/${name}`;
    const domains = [policy.trustDomain, ...policy.trustDomainAliases].map((d) => d.toLowerCase());
    const m = /^spiffe:\/\/([^/]+)(\/.*)$/i.exec(peer);
    if (m && domains.includes(m[1]!.toLowerCase()) && m[2] === path) return { gateway };
    return {
      problem:
        `node.cluster ${shown} is the waypoint Gateway ${gateway}, served only to ` +
        `spiffe://${policy.trustDomain}${path}; the client certificate is ${peer}`,
    };
  };
}
