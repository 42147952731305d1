/**
 * AER0008 HostProducedTwice: two registries (ServiceEntries labelled `registry=<name>` by different registry
 * bridges), or a registry and a Kubernetes Service (`<svc>.<ns>.svc.<domain>`), produce the same host: istiod
 * merges or picks between them, so which endpoints a client reaches depends on the order objects arrived in.
 * Reported on each registry ServiceEntry of the host, naming the other producers.
 */
import type { ServiceEntry } from '../../model/objects.ts';
import { refOf, refString } from '../../model/result.ts';
import type { AnalysisCode, AnalysisInput, AnalysisMessage, Analyzer } from '../types.ts';
import { message, servicesOf } from './shared.ts';

export const HOST_PRODUCED_TWICE: AnalysisCode = {
  code: 'AER0008',
  name: 'HostProducedTwice',
  severity: 'warning',
  why: 'Two registries, or a registry and a Kubernetes Service, produce the same host: the endpoints clients reach depend on which object istiod takes.',
  fix: 'Bridge the service from one registry only (or in another namespace/group), or stop registering a Kubernetes service in the registry too.',
  live: false,
  example: `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: zk-orders, namespace: shop, labels: {manager: Aeraki, registry: zk}}
spec:
  hosts: [orders.shop.svc.cluster.local]
  addresses: [240.240.0.10]
  ports: [{number: 20880, name: tcp-metaprotocol-dubbo, protocol: TCP}]
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: nacos-orders, namespace: shop, labels: {manager: Aeraki, registry: nacos}}
spec:
  hosts: [orders.shop.svc.cluster.local]
  addresses: [240.240.0.11]
  ports: [{number: 20880, name: tcp-metaprotocol-dubbo, protocol: TCP}]
`,
};

/** `registry=<name>` (registry/convert.ts REGISTRY_LABEL). */
const REGISTRY_LABEL = 'registry';

interface Producer {
  /** `registry zk` or `Service shop/orders`: two entries of one registry are one producer. */
  readonly who: string;
  readonly se: ServiceEntry;
  readonly hostIndex: number;
}

function producersByHost(input: AnalysisInput): Map<string, Producer[]> {
  const byHost = new Map<string, Producer[]>();
  const add = (host: string, p: Producer): void => {
    const key = host.toLowerCase();
    const list = byHost.get(key);
    if (list) list.push(p);
    else byHost.set(key, [p]);
  };
  for (const se of servicesOf(input)) {
    if (se.kind === 'Service') {
      const host = se.spec.hosts[0];
      if (host !== undefined) add(host, { who: refString(refOf(se)), se, hostIndex: 0 });
      continue;
    }
    const registry = se.metadata.labels[REGISTRY_LABEL];
    if (registry === undefined || registry === '') continue;
    se.spec.hosts.forEach((h, i) => add(h, { who: `registry "${registry}"`, se, hostIndex: i }));
  }
  return byHost;
}

function analyze(input: AnalysisInput): AnalysisMessage[] {
  const out: AnalysisMessage[] = [];
  for (const [host, producers] of producersByHost(input)) {
    const who = [...new Set(producers.map((p) => p.who))];
    if (who.length < 2) continue;
    for (const p of producers) {
      if (p.se.kind === 'Service') continue;
      const others = who.filter((w) => w !== p.who).join(', ');
      const text = `host ${JSON.stringify(host)} is also produced by ${others}: clients reach the endpoints of whichever istiod takes`;
      out.push(message(HOST_PRODUCED_TWICE, refOf(p.se), `spec.hosts[${p.hostIndex}]`, text));
    }
  }
  return out;
}

export const hostProducedTwiceAnalyzer: Analyzer = { codes: [HOST_PRODUCED_TWICE], analyze };
