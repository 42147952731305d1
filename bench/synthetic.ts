// Synthetic mesh configs for benchmarks: N MetaProtocol ServiceEntries with two addresses each; every other
// one has a MetaRouter (traffic split + attribute match) and a DestinationRule (two subsets, consistent hash).
import { compareStrings } from '../src/model/order.ts';

/** The objects service by service (ServiceEntry, then DestinationRule and MetaRouter), services numbered 0..n-1. */
export function syntheticObjects(services: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < services; i++) {
    const ns = `ns-${i % 50}`;
    const host = `svc-${i}.${ns}.svc.cluster.local`;
    const meta = (name: string) => ({ name, namespace: ns, creationTimestamp: '2026-01-01T00:00:00Z' });
    out.push({
      apiVersion: 'networking.istio.io/v1alpha3',
      kind: 'ServiceEntry',
      metadata: meta(`svc-${i}`),
      spec: {
        hosts: [host],
        addresses: [`240.240.${(i >> 8) & 255}.${i & 255}`, `240.241.${(i >> 8) & 255}.${i & 255}`],
        ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP' }],
        workloadSelector: { labels: { app: `svc-${i}` } },
        resolution: 'STATIC',
      },
    });
    if (i % 2 === 0) {
      out.push({
        apiVersion: 'networking.istio.io/v1alpha3',
        kind: 'DestinationRule',
        metadata: meta(`svc-${i}`),
        spec: {
          host,
          subsets: [
            { name: 'v1', labels: { version: 'v1' } },
            {
              name: 'v2',
              labels: { version: 'v2' },
              trafficPolicy: { loadBalancer: { consistentHash: { httpHeaderName: 'userid' } } },
            },
          ],
        },
      });
      out.push({
        apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
        kind: 'MetaRouter',
        metadata: meta(`svc-${i}`),
        spec: {
          hosts: [host],
          routes: [
            {
              name: 'by-method',
              match: { attributes: { method: { exact: 'sayHello' }, interface: { prefix: 'org.apache' } } },
              route: [{ destination: { host, subset: 'v2' } }],
            },
            {
              name: 'split',
              route: [
                { destination: { host, subset: 'v1' }, weight: 80 },
                { destination: { host, subset: 'v2' }, weight: 20 },
              ],
            },
          ],
          localRateLimit: { tokenBucket: { maxTokens: 100, tokensPerFill: 10, fillInterval: '1s' } },
        },
      });
    }
  }
  return out;
}

/**
 * The same objects in the order a Kubernetes LIST returns them, kind by kind, then namespace and name: the order
 * informers deliver at start-up, so a store filled from it holds its objects as the controller's store does.
 */
export function syntheticObjectsInListOrder(services: number): Record<string, unknown>[] {
  const listKey = (o: Record<string, unknown>) => {
    const meta = o['metadata'] as { namespace: string; name: string };
    return `${String(o['kind'])}\u0000${meta.namespace}\u0000${meta.name}`;
  };
  const keyed = syntheticObjects(services).map((raw) => ({ raw, key: listKey(raw) }));
  keyed.sort((a, b) => compareStrings(a.key, b.key));
  return keyed.map((k) => k.raw);
}
