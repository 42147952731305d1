/**
 * The findings the controller's own generation already makes, under stable codes (so analyze reports exactly
 * what `render` finds):
 * - AER0003 MissingCodec: a MetaProtocol port whose application protocol has no codec (no ApplicationProtocol);
 * - AER0004 NoOutboundListener: a handled port on a ServiceEntry without addresses, unless VIPs are allocated
 *   (then the warning is moot, and left out), or on a Kubernetes Service without a cluster IP (not in the file,
 *   headless, or ExternalName: VIP allocation gives ServiceEntries addresses, never Services);
 * - AER0005 MetaRouterHostNotFound and AER0006 MetaRouterHostClaimedTwice (model/conflicts/metarouter.ts).
 * Each is recognised by the rule its maker sets (ConfigIssue.rule), so rewording a message cannot drop a code.
 */
import type { ConfigIssue } from '../../model/result.ts';
import type { AnalysisCode, AnalysisInput } from '../types.ts';
import { controllerSeverity, issueAnalyzer } from './shared.ts';
import { ORDERS_ENTRY, ORDERS_ENTRY_HEAD } from '../examples.ts';

export const MISSING_CODEC: AnalysisCode = {
  code: 'AER0003',
  name: 'MissingCodec',
  severity: 'error',
  why: 'A MetaProtocol port names an application protocol that is not built in (dubbo, thrift) and no ApplicationProtocol defines, so the ServiceEntry gets no filter at all.',
  fix: 'Apply an ApplicationProtocol for that protocol with its codec, or fix the third segment of the port name.',
  live: false,
  example: `${ORDERS_ENTRY_HEAD}  ports: [{number: 8080, name: tcp-metaprotocol-trpc, protocol: TCP}]
`,
};

export const NO_OUTBOUND_LISTENER: AnalysisCode = {
  code: 'AER0004',
  name: 'NoOutboundListener',
  severity: 'warning',
  why: 'A ServiceEntry with a handled port but no addresses (while VIP allocation is off), or a Kubernetes Service without a cluster IP (headless, ExternalName, or none in the file), has no outbound listener `<address>_<port>`: clients send plain TCP, only inbound filters apply.',
  fix: 'Give the ServiceEntry `spec.addresses`, or run with VIP allocation (`serve --allocate-vips`, analyze `--allocate-vips`); for a Service, follow the message (the API server allocates a missing `spec.clusterIP`; a headless or ExternalName Service never has one).',
  live: false,
  example: `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: orders, namespace: shop}
spec:
  hosts: [orders.shop.svc.cluster.local]
  ports: [{number: 20880, name: tcp-metaprotocol-dubbo, protocol: TCP}]
  resolution: STATIC
  endpoints: [{address: 10.0.0.5}]
`,
};

export const META_ROUTER_HOST_NOT_FOUND: AnalysisCode = {
  code: 'AER0005',
  name: 'MetaRouterHostNotFound',
  severity: 'warning',
  why: "No ServiceEntry or Service has the MetaRouter's host as its first host, so the MetaRouter configures no sidecar and no route is served for it.",
  fix: "Correct the MetaRouter's host (a full name such as `orders.shop.svc.cluster.local`), or apply the ServiceEntry it is for.",
  live: false,
  example: `apiVersion: metaprotocol.aeraki.io/v1alpha1
kind: MetaRouter
metadata: {name: orders, namespace: shop}
spec:
  hosts: [orders.shop.svc.cluster.local]
  routes:
  - route: [{destination: {host: orders.shop.svc.cluster.local}}]
`,
};

export const META_ROUTER_HOST_CLAIMED_TWICE: AnalysisCode = {
  code: 'AER0006',
  name: 'MetaRouterHostClaimedTwice',
  severity: 'warning',
  why: 'Two MetaRouters are for one host: only the oldest is used, the other is ignored.',
  fix: 'Merge the routes into the MetaRouter that is used and delete the other one.',
  live: false,
  example: `${ORDERS_ENTRY}---
apiVersion: metaprotocol.aeraki.io/v1alpha1
kind: MetaRouter
metadata: {name: orders, namespace: shop, creationTimestamp: '2026-01-01T00:00:00Z'}
spec:
  hosts: [orders.shop.svc.cluster.local]
  routes:
  - route: [{destination: {host: orders.shop.svc.cluster.local, subset: v1}}]
---
apiVersion: metaprotocol.aeraki.io/v1alpha1
kind: MetaRouter
metadata: {name: orders-canary, namespace: shop, creationTimestamp: '2026-02-01T00:00:00Z'}
spec:
  hosts: [orders.shop.svc.cluster.local]
  routes:
  - route: [{destination: {host: orders.shop.svc.cluster.local, subset: v2}}]
---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: orders, namespace: shop}
spec:
  host: orders.shop.svc.cluster.local
  subsets: [{name: v1, labels: {version: v1}}, {name: v2, labels: {version: v2}}]
`,
};

/** The issue each code reports, by its rule (ConfigIssue.rule), never by its wording. */
function select(i: ConfigIssue, input: AnalysisInput): AnalysisCode | null | undefined {
  switch (i.rule) {
    case 'codec-missing':
      return controllerSeverity(i, 'error') ? MISSING_CODEC : undefined;
    case 'no-addresses':
      if (!controllerSeverity(i, 'warning')) return undefined;
      // VIP allocation gives ServiceEntries addresses, never Kubernetes Services.
      return input.options.vipAllocation && i.ref.kind !== 'Service' ? null : NO_OUTBOUND_LISTENER;
    case 'metarouter-host-not-found':
      return controllerSeverity(i, 'warning') ? META_ROUTER_HOST_NOT_FOUND : undefined;
    case 'metarouter-host-claimed':
      return controllerSeverity(i, 'warning') ? META_ROUTER_HOST_CLAIMED_TWICE : undefined;
    default:
      return undefined;
  }
}

export const generationAnalyzer = issueAnalyzer(
  [MISSING_CODEC, NO_OUTBOUND_LISTENER, META_ROUTER_HOST_NOT_FOUND, META_ROUTER_HOST_CLAIMED_TWICE],
  select,
);
