/**
 * AER0007 SubsetNotDefined: a MetaRouter destination or mirror names a subset that no DestinationRule for that
 * host defines: the proxy routes to a cluster with no endpoints (`outbound|<port>|<subset>|<host>`), so those
 * requests fail. Any DestinationRule of the host in the input counts, whatever its namespace or exportTo (a
 * short host is completed in the DestinationRule's own namespace), so a subset defined out of sight is not reported.
 */
import { CLUSTER_DOMAIN } from '../../model/constants.ts';
import type { ConfigObject, Destination, DestinationRule, MetaRouter } from '../../model/objects.ts';
import { refOf } from '../../model/result.ts';
import type { AnalysisCode, AnalysisInput, AnalysisMessage, Analyzer } from '../types.ts';
import { message } from './shared.ts';
import { ORDERS_ENTRY } from '../examples.ts';

export const SUBSET_NOT_DEFINED: AnalysisCode = {
  code: 'AER0007',
  name: 'SubsetNotDefined',
  severity: 'warning',
  why: 'The MetaRouter sends traffic to a subset that no DestinationRule for that host defines, so the proxy finds no endpoint for it and those requests fail.',
  fix: 'Define the subset (name and labels) in the DestinationRule of the host, or correct the subset name.',
  live: false,
  example: `${ORDERS_ENTRY}---
apiVersion: metaprotocol.aeraki.io/v1alpha1
kind: MetaRouter
metadata: {name: orders, namespace: shop}
spec:
  hosts: [orders.shop.svc.cluster.local]
  routes:
  - route: [{destination: {host: orders.shop.svc.cluster.local, subset: v3}}]
---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: orders, namespace: shop}
spec:
  host: orders.shop.svc.cluster.local
  subsets: [{name: v1, labels: {version: v1}}]
`,
};

/** A host as hosts are compared: lower case, no trailing dot, a short name completed in `namespace`. */
export function fullHost(host: string, namespace: string, domain: string): string {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h.includes('.') || h.includes('*') ? h : `${h}.${namespace}.svc.${domain}`;
}

/** Whether a DestinationRule host (possibly `*.shop.svc.cluster.local`) applies to `host`. */
function appliesTo(drHost: string, host: string): boolean {
  return drHost === host || (drHost.startsWith('*') && host.endsWith(drHost.slice(1)));
}

function destinationRules(objects: readonly ConfigObject[]): DestinationRule[] {
  return objects.filter((o): o is DestinationRule => o.kind === 'DestinationRule');
}

function checkDestination(
  mr: MetaRouter,
  d: Destination,
  path: string,
  rules: readonly { host: string; subsets: ReadonlySet<string> }[],
  domain: string,
): AnalysisMessage[] {
  if (d.subset === undefined || d.subset === '') return [];
  const host = fullHost(d.host, mr.metadata.namespace, domain);
  const forHost = rules.filter((r) => appliesTo(r.host, host));
  if (forHost.some((r) => r.subsets.has(d.subset ?? ''))) return [];
  const why =
    forHost.length === 0
      ? `no DestinationRule is for host ${JSON.stringify(d.host)}`
      : `no DestinationRule for host ${JSON.stringify(d.host)} defines it`;
  const text = `subset ${JSON.stringify(d.subset)}: ${why}, so the requests routed to it find no endpoint`;
  return [message(SUBSET_NOT_DEFINED, refOf(mr), `${path}.subset`, text)];
}

function analyze(input: AnalysisInput): AnalysisMessage[] {
  const domain = input.options.clusterDomain ?? CLUSTER_DOMAIN;
  const objects = input.objects.objects;
  const rules = destinationRules(objects).map((dr) => ({
    host: fullHost(dr.spec.host, dr.metadata.namespace, domain),
    subsets: new Set(dr.spec.subsets.map((s) => s.name)),
  }));
  const out: AnalysisMessage[] = [];
  for (const o of objects) {
    if (o.kind !== 'MetaRouter') continue;
    o.spec.routes.forEach((route, r) => {
      route.route.forEach((rd, d) => {
        out.push(
          ...checkDestination(o, rd.destination, `spec.routes[${r}].route[${d}].destination`, rules, domain),
        );
      });
      if (route.mirror)
        out.push(...checkDestination(o, route.mirror, `spec.routes[${r}].mirror`, rules, domain));
    });
  }
  return out;
}

export const subsetNotDefinedAnalyzer: Analyzer = { codes: [SUBSET_NOT_DEFINED], analyze };
