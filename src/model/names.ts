import { CLUSTER_DOMAIN } from './constants.ts';
import type { ServiceEntry } from './objects.ts';

/** Istio cluster names (pilot/pkg/model/service.go BuildSubsetKey). */
export function outboundClusterName(port: number, subset: string | undefined, host: string): string {
  return `outbound|${port}|${subset ?? ''}|${host}`;
}

export function inboundClusterName(port: number): string {
  return `inbound|${port}||`;
}

/** Name of a MetaProtocol RDS resource: `<host>_<port>`. */
export function routeConfigName(host: string, port: number): string {
  return `${host}_${port}`;
}

/**
 * FQDN normalisation for lookups (deviation D6): a name without a dot in namespace `ns` means
 * `<name>.<ns>.svc.<clusterDomain>` (`--cluster-domain`, default cluster.local); names with a dot are used as
 * written.
 */
export function normalizeHost(host: string, namespace: string, clusterDomain = CLUSTER_DOMAIN): string {
  return host.includes('.') ? host : `${host}.${namespace}.svc.${clusterDomain}`;
}

export function outboundFilterName(host: string, address: string, port: number): string {
  return `aeraki-outbound-${host}-${address}-${port}`;
}

export function inboundFilterName(host: string, port: number): string {
  return `aeraki-inbound-${host}-${port}`;
}

/**
 * The waypoint filter of one service port (src/envoyfilter/waypoint.ts), in the waypoint's namespace: named after
 * the service's first host and the port, as the inbound filter is; one object per service port.
 */
export function waypointFilterName(host: string, port: number): string {
  return `aeraki-waypoint-${host}-${port}`;
}

export function gatewayFilterName(gatewayName: string, gatewayNamespace: string, port: number): string {
  return `aeraki-gateway-outbound-${gatewayName}.${gatewayNamespace}-${port}`;
}

export function gatewayVirtualServiceName(
  gatewayNamespace: string,
  gatewayName: string,
  port: number,
): string {
  return `aeraki-vs-${gatewayNamespace}.${gatewayName}-${port}`;
}

/**
 * The key of a config object that generated objects come from, as written in their source annotation and in
 * the reconciler's failed and held sources: `ServiceEntry/<ns>/<name>`, `Service/<ns>/<name>` (a Kubernetes
 * Service converted into a ServiceEntry) or `Gateway/<ns>/<name>`.
 */
export function sourceKey(
  kind: 'ServiceEntry' | 'Service' | 'Gateway',
  namespace: string,
  name: string,
): string {
  return `${kind}/${namespace}/${name}`;
}

/** Name prefix istiod gives the ServiceEntry it synthesises for a Kubernetes Service (aeraki-core.md 4.4). */
export const SYNTHETIC_PREFIX = 'synthetic-';

/**
 * The name of the Kubernetes Service `se` stands for (in its namespace), or undefined: a converted Service
 * (`--config-source kube`, render) is that Service; a ServiceEntry named `synthetic-<svc>` whose first host is
 * `<svc>.<namespace>.svc.<domain>` is istiod's conversion of Service `<svc>`; any other ServiceEntry is none.
 */
export function kubeServiceOf(se: ServiceEntry): string | undefined {
  const { name, namespace } = se.metadata;
  if (se.kind === 'Service') return name;
  if (!name.startsWith(SYNTHETIC_PREFIX)) return undefined;
  const service = name.slice(SYNTHETIC_PREFIX.length);
  return se.spec.hosts[0]?.startsWith(`${service}.${namespace}.svc.`) ? service : undefined;
}
