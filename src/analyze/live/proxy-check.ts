/**
 * What AER0103 and AER0104 share: for each handled service with a port of some protocols, the sidecars that take
 * its filters (server pods: the service's selector; client pods: the namespaces of its outbound filters, every
 * namespace for the root namespace) whose istio-proxy image is not among the images known to carry the filter.
 * One message per service, grouped: how many pods, which images, which namespaces.
 */
import { protocolSegment, type Protocol } from '../../model/protocol.ts';
import { refOf } from '../../model/result.ts';
import { isKnownImage } from '../proxy-images.ts';
import type { AnalysisCode, AnalysisInput, AnalysisMessage, PodFacts } from '../types.ts';
import { clientPods, handledServices, serverPods } from './services.ts';
import { unreadable } from './unreadable.ts';

export interface ProxyCheck {
  readonly code: AnalysisCode;
  /** The protocols whose ports need the filter. */
  readonly protocols: ReadonlySet<Protocol>;
  /** The filter the proxies need (for the message). */
  readonly filter: string;
  /** The images known to carry it. */
  images(input: AnalysisInput): readonly string[];
}

/** `a ×2, b ×1`, by count then name. */
function counted(values: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([v, n]) => `${v} ×${n}`)
    .join(', ');
}

export function checkProxies(check: ProxyCheck, input: AnalysisInput): AnalysisMessage[] {
  const cluster = input.cluster;
  if (!cluster || unreadable(cluster, 'Pod')) return [];
  const known = check.images(input);
  const lacking = (p: PodFacts) => p.proxyImage !== undefined && !isKnownImage(p.proxyImage, known);
  const out: AnalysisMessage[] = [];
  for (const h of handledServices(input)) {
    const port = h.service.spec.ports.findIndex((p) => {
      const protocol = protocolSegment(p.name);
      return protocol !== undefined && check.protocols.has(protocol);
    });
    if (port < 0) continue;
    const servers = serverPods(h.service, cluster.pods).filter(lacking);
    const serverKeys = new Set(servers.map((p) => `${p.namespace}/${p.name}`));
    const clients = clientPods(h, cluster.pods, input.options.rootNamespace)
      .filter(lacking)
      .filter((p) => !serverKeys.has(`${p.namespace}/${p.name}`));
    const pods = [...servers, ...clients];
    if (pods.length === 0) continue;
    const namespaces = [...new Set(pods.map((p) => p.namespace))].sort().join(', ');
    out.push({
      code: check.code,
      ref: refOf(h.service),
      path: `spec.ports[${port}].name`,
      message:
        `${pods.length} pod(s) (${servers.length} server, ${clients.length} client) in namespace(s) ${namespaces} ` +
        `run an istio-proxy image without ${check.filter}: ${counted(pods.map((p) => p.proxyImage ?? ''))}; ` +
        `they reject the listeners that carry it`,
    });
  }
  return out;
}
