import { networkInterfaces } from 'node:os';

/**
 * Aeraki's xDS node identity (aeraki controller.go; istio pkg/adsc/adsc.go New):
 * `sidecar~<ip>~<pod>.<ns>~<ns>.svc.cluster.local`, metadata `GENERATOR: api` (selects istiod's MCP
 * generator) and `ISTIO_VERSION: 65536.65536.65536`; CLUSTER_ID is left out so synthetic ServiceEntries
 * carry the VIPs of every cluster (spec/wire-formats.md §1.3).
 */
export interface NodeIdentity {
  readonly podName: string;
  /** The controller's namespace; istiod's api-generator auth wants the root namespace (istio-system). */
  readonly namespace: string;
  readonly podIp: string;
  readonly clusterDomain?: string;
}

export const ISTIO_VERSION_META = '65536.65536.65536';

export interface NodeMessage {
  readonly id: string;
  readonly metadata: { readonly fields: Record<string, { readonly stringValue: string }> };
}

export function nodeId(n: NodeIdentity): string {
  const domain = n.clusterDomain ?? 'cluster.local';
  return `sidecar~${n.podIp}~${n.podName}.${n.namespace}~${n.namespace}.svc.${domain}`;
}

export function buildNode(n: NodeIdentity): NodeMessage {
  return {
    id: nodeId(n),
    metadata: {
      fields: { GENERATOR: { stringValue: 'api' }, ISTIO_VERSION: { stringValue: ISTIO_VERSION_META } },
    },
  };
}

/** First non-internal IPv4 address of the host (adsc's getPrivateIPIfAvailable), else `0.0.0.0`. */
export function firstHostIp(): string {
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) if (!a.internal && a.family === 'IPv4') return a.address;
  }
  return '0.0.0.0';
}
