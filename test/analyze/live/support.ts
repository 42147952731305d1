// Hand-built AnalysisInputs for the live analyzers: objects parsed as every source parses them, generated
// EnvoyFilters and cluster facts written out by hand.
import { parseRawObjects } from '../../../src/model/parse/objects.ts';
import { protocolFactsOf } from '../../../src/model/protocol-facts.ts';
import { createGenerators, createProtocolNames } from '../../../src/plugins/registry.ts';
import { DEFAULT_CONTRIB_IMAGES, DEFAULT_META_PROTOCOL_IMAGES } from '../../../src/analyze/proxy-images.ts';
import type { AmbientView } from '../../../src/model/ambient/view.ts';
import type {
  AnalysisInput,
  ClusterFacts,
  EnvoyFilterFacts,
  EnvoyFilterPatchFacts,
  PodFacts,
} from '../../../src/analyze/types.ts';

export const ROOT = 'istio-system';
export const ORDERS = 'orders.shop.svc.cluster.local';
export const PROXYV2 = 'docker.io/istio/proxyv2:1.24.2';
export const MPP = 'ghcr.io/aeraki-mesh/meta-protocol-proxy:1.4.2';

export function cluster(facts: Partial<ClusterFacts> = {}): ClusterFacts {
  return { namespaces: [], pods: [], envoyFilters: [], unreadable: [], istiodVersion: '1.24.2', ...facts };
}

export function input(o: {
  raws?: unknown[];
  generated?: EnvoyFilterFacts[];
  cluster?: ClusterFacts;
  ambient?: AmbientView;
  waypointFilters?: boolean;
}): AnalysisInput {
  return {
    objects: parseRawObjects(o.raws ?? [], ROOT),
    issues: [],
    generated: o.generated ?? [],
    options: {
      rootNamespace: ROOT,
      namespaceScope: false,
      vipAllocation: false,
      metaProtocolImages: DEFAULT_META_PROTOCOL_IMAGES,
      contribImages: DEFAULT_CONTRIB_IMAGES,
      ...(o.waypointFilters ? { waypointFilters: true } : {}),
    },
    detectedProtocols: createProtocolNames().names,
    protocols: protocolFactsOf(createGenerators()),
    ...(o.cluster ? { cluster: o.cluster } : {}),
    ...(o.ambient ? { ambient: o.ambient } : {}),
  };
}

export function pod(
  namespace: string,
  name: string,
  labels: Record<string, string>,
  proxyImage?: string,
): PodFacts {
  return { namespace, name, labels, ...(proxyImage ? { proxyImage } : {}) };
}

export function filter(
  namespace: string,
  name: string,
  patches: EnvoyFilterPatchFacts[],
  o: { source?: string; managed?: boolean } = {},
): EnvoyFilterFacts {
  return {
    namespace,
    name,
    labels: o.managed === false ? {} : { manager: 'Aeraki' },
    ...(o.source ? { source: o.source } : {}),
    patches,
  };
}

/** The outbound and inbound filters this controller writes for a port (REPLACE of tcp_proxy). */
export function generatedFor(source: string, port: number, address = '240.240.0.10'): EnvoyFilterFacts[] {
  const base = { applyTo: 'NETWORK_FILTER', filterName: 'envoy.filters.network.tcp_proxy' };
  return [
    filter(
      ROOT,
      `aeraki-outbound-${port}`,
      [{ ...base, operation: 'REPLACE', context: 'SIDECAR_OUTBOUND', listenerName: `${address}_${port}` }],
      { source },
    ),
    filter(
      ROOT,
      `aeraki-inbound-${port}`,
      [
        {
          ...base,
          operation: 'REPLACE',
          context: 'SIDECAR_INBOUND',
          listenerName: 'virtualInbound',
          destinationPort: port,
        },
      ],
      { source },
    ),
  ];
}

export function serviceEntry(o: {
  namespace?: string;
  name?: string;
  host?: string;
  portName?: string;
  port?: number;
  selector?: Record<string, string>;
}): unknown {
  return {
    apiVersion: 'networking.istio.io/v1',
    kind: 'ServiceEntry',
    metadata: { namespace: o.namespace ?? 'shop', name: o.name ?? 'orders' },
    spec: {
      hosts: [o.host ?? ORDERS],
      addresses: ['240.240.0.10'],
      ports: [{ number: o.port ?? 20880, name: o.portName ?? 'tcp-metaprotocol-dubbo', protocol: 'TCP' }],
      resolution: 'STATIC',
      ...(o.selector ? { workloadSelector: { labels: o.selector } } : {}),
    },
  };
}
