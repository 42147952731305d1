/**
 * AER0101 SubsetSelectsNoPod: a MetaRouter routes (or mirrors) to a subset whose DestinationRule labels, with the
 * selector of the service of that host, match no pod of the service's namespace: calls sent there find no
 * endpoint (istioctl's IST0173 DestinationRuleSubsetNotSelectPods, for MetaRouters).
 */
import type { Destination, DestinationRule, MetaRouter, ServiceEntry } from '../../model/objects.ts';
import { refOf } from '../../model/result.ts';
import type { AnalysisCode, AnalysisInput, AnalysisMessage, Analyzer, PodFacts } from '../types.ts';
import { labelText, selectorOf, selects, servicesOf } from './services.ts';
import { unreadable } from './unreadable.ts';

export const SUBSET_SELECTS_NO_POD: AnalysisCode = {
  code: 'AER0101',
  name: 'SubsetSelectsNoPod',
  severity: 'warning',
  why: 'A MetaRouter sends calls to a subset no running pod belongs to: those calls find no endpoint and fail.',
  fix: "Correct the subset's labels in the DestinationRule, or deploy pods carrying them (and the service's selector).",
  live: true,
  example: `apiVersion: metaprotocol.aeraki.io/v1alpha1
kind: MetaRouter
metadata: { name: orders, namespace: shop }
spec:
  hosts: [orders.shop.svc.cluster.local]
  routes:
    - name: v2
      route: [{ destination: { host: orders.shop.svc.cluster.local, subset: v2 } }]
---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: { name: orders, namespace: shop }
spec:
  host: orders.shop.svc.cluster.local
  subsets: [{ name: v2, labels: { version: v2 } }]
---
apiVersion: v1
kind: Service
metadata: { name: orders, namespace: shop }
spec:
  selector: { app: orders }
  clusterIP: 10.96.0.10
  ports: [{ name: tcp-metaprotocol-dubbo, port: 20880 }]
# In the cluster: the pods of namespace shop labelled app=orders all have version=v1.`,
};

/** The destinations of a MetaRouter's routes and mirrors, with their field paths. */
function destinations(mr: MetaRouter): { readonly d: Destination; readonly path: string }[] {
  const out: { d: Destination; path: string }[] = [];
  mr.spec.routes.forEach((r, i) => {
    r.route.forEach((rd, j) =>
      out.push({ d: rd.destination, path: `spec.routes[${i}].route[${j}].destination.subset` }),
    );
    if (r.mirror) out.push({ d: r.mirror, path: `spec.routes[${i}].mirror.subset` });
  });
  return out;
}

function byHost<T>(items: readonly T[], hostsOf: (t: T) => readonly string[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const t of items) {
    for (const h of hostsOf(t)) {
      const key = h.toLowerCase();
      out.set(key, [...(out.get(key) ?? []), t]);
    }
  }
  return out;
}

function analyze(input: AnalysisInput): AnalysisMessage[] {
  const cluster = input.cluster;
  if (!cluster || unreadable(cluster, 'Pod')) return [];
  const objects = input.objects.objects;
  const rules = byHost(
    objects.filter((o): o is DestinationRule => o.kind === 'DestinationRule'),
    (dr) => [dr.spec.host],
  );
  const services = byHost(servicesOf(input), (s) => s.spec.hosts);
  const out: AnalysisMessage[] = [];
  for (const mr of objects.filter((o): o is MetaRouter => o.kind === 'MetaRouter')) {
    for (const { d, path } of destinations(mr)) {
      if (d.subset === undefined) continue;
      const host = d.host.toLowerCase();
      const subset = (rules.get(host) ?? [])
        .flatMap((dr) => dr.spec.subsets)
        .find((s) => s.name === d.subset);
      if (!subset) continue; // no DestinationRule defines it: an offline finding
      const selected = (services.get(host) ?? []).filter((s) => Object.keys(selectorOf(s)).length > 0);
      if (selected.length === 0) continue; // no service selects pods (endpoints, registries): nothing to compare
      const matching = (s: ServiceEntry) => (p: PodFacts) =>
        p.namespace === s.metadata.namespace && selects({ ...selectorOf(s), ...subset.labels }, p.labels);
      if (selected.some((s) => cluster.pods.some(matching(s)))) continue;
      const where = selected
        .map((s) => `${s.kind} ${s.metadata.namespace}/${s.metadata.name} (${labelText(selectorOf(s))})`)
        .join(', ');
      out.push({
        code: SUBSET_SELECTS_NO_POD,
        ref: refOf(mr),
        path,
        message:
          `subset "${d.subset}" of ${d.host} (labels ${labelText(subset.labels)}) with the selector of ${where} ` +
          `selects no pod: calls routed to it find no endpoint`,
      });
    }
  }
  return out;
}

export const subsetPodsAnalyzer: Analyzer = { codes: [SUBSET_SELECTS_NO_POD], analyze };
