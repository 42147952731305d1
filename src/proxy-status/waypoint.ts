/**
 * Waypoint proxies in syncz answers, and which waypoint EnvoyFilters (envoyfilter/waypoint.ts: `targetRefs`, patches
 * on `main_internal` and its `inbound-vip|<port>|tcp|<host>` chains) one of them takes. Read in istio/istio at
 * release-1.30 @b9a2bbd2 (master @86c9f01f the same):
 * - a waypoint's node type is `waypoint` (pkg/model/proxy.go `Waypoint NodeType = "waypoint"`; the waypoint template
 *   starts `pilot-agent proxy waypoint`, manifests/charts/istio-control/istio-discovery/files/waypoint.yaml);
 * - istiod's proxy id is the third part of the node id, `<pod>.<namespace>` (pilot/pkg/model/context.go
 *   ParseServiceNodeWithMetadata `out.ID = parts[2]`): the ClientConfig answer (pilot/pkg/xds/statusgen.go,
 *   `Node{Id: con.proxy.ID}`) carries no type; `/debug/syncz` JSON has `proxy_type` (pilot/pkg/xds/debug.go
 *   SyncStatus). A full node id `<type>~<ip>~<pod>.<ns>~<domain>` gives its type too;
 * - a waypoint's Deployment is named after its Gateway: class istio-waypoint has DisableNameSuffix
 *   (pilot/pkg/config/kube/gatewaycommon/classinfo.go, GetDefaultName in gateway_utils.go), unless the Gateway's
 *   `gateway.istio.io/name-override` annotation renames it (then its rejections are attributed to nothing here); its
 *   pods are `<deployment>-<pod-template-hash>-<suffix>`, as every Deployment's;
 * - a waypoint takes only EnvoyFilters with `targetRefs` (model/ambient/envoyfilter.ts reachesWaypoint).
 */
import { GATEWAY_API_GROUP, WAYPOINT_GATEWAY_CLASS } from '../model/ambient/labels.ts';
import { INBOUND_VIP, WAYPOINT_LISTENER } from '../model/ambient/names.ts';
import type { EnvoyFilterObject } from '../model/objects.ts';
import type { ProxySync } from './decode.ts';

export const WAYPOINT_NODE_TYPE = 'waypoint';

/** The waypoints an EnvoyFilter with `targetRefs` reaches (the Gateways named, or every one of class istio-waypoint). */
export interface WaypointTargets {
  readonly namespace: string;
  readonly gateways: ReadonlySet<string>;
  /** A root-namespace filter naming the GatewayClass istio-waypoint: every waypoint. */
  readonly everyWaypoint: boolean;
}

/** The targets of an EnvoyFilter with `targetRefs`; undefined without (it never reaches a waypoint). */
export function waypointTargetsOf(ef: EnvoyFilterObject, rootNamespace: string): WaypointTargets | undefined {
  const refs = ef.spec.targetRefs ?? [];
  if (refs.length === 0) return undefined;
  const namespace = ef.metadata.namespace;
  const gateways = new Set<string>();
  let everyWaypoint = false;
  for (const ref of refs) {
    if (ref.group !== GATEWAY_API_GROUP) continue;
    const sameNamespace = ref.namespace === undefined || ref.namespace === '' || ref.namespace === namespace;
    if (ref.kind === 'Gateway' && sameNamespace && ref.name) gateways.add(ref.name);
    if (ref.kind === 'GatewayClass' && ref.name === WAYPOINT_GATEWAY_CLASS && namespace === rootNamespace) {
      everyWaypoint = true;
    }
  }
  return { namespace, gateways, everyWaypoint };
}

const CHAIN = new RegExp(`${INBOUND_VIP}\\|\\d+\\|(?:tcp|http)\\|[A-Za-z0-9*.-]+`, 'g');

/** The waypoint chains (`inbound-vip|<port>|tcp|<host>`, `http` the same) an Envoy message names, in order. */
export function rejectedChains(message: string): string[] {
  return [...new Set(message.match(CHAIN) ?? [])];
}

/** `<pod>` of istiod's proxy id (`<pod>.<ns>`, or a full node id `<type>~<ip>~<pod>.<ns>~<domain>`). */
export function podOfProxyId(id: string): string {
  const parts = id.split('~');
  const podNs = parts.length === 4 ? parts[2]! : id;
  const dot = podNs.indexOf('.');
  return dot >= 0 ? podNs.slice(0, dot) : podNs;
}

/** The Deployment of a Deployment's pod (`<deployment>-<hash>-<suffix>`); undefined for another shape. */
export function deploymentOfPod(pod: string): string | undefined {
  const m = /^(.+)-[a-z0-9]+-[a-z0-9]+$/.exec(pod);
  return m?.[1];
}

/**
 * Whether the proxy is a waypoint: its type says so when the answer gives one; otherwise when the rejection names
 * `main_internal` or a waypoint chain, which only a waypoint has.
 */
export function isWaypoint(p: ProxySync, listeners: readonly string[], chains: readonly string[]): boolean {
  if (p.type !== undefined) return p.type === WAYPOINT_NODE_TYPE;
  return listeners.includes(WAYPOINT_LISTENER) || chains.length > 0;
}

/**
 * Of the waypoint filters `candidates` (each with its targets), those the waypoint proxy `p` takes: those for every
 * waypoint, and those of its namespace targeting the Gateway its pod's Deployment is named after.
 */
export function ofWaypoint<T extends { readonly waypoint?: WaypointTargets }>(
  p: ProxySync,
  candidates: readonly T[],
): T[] {
  const gateway = deploymentOfPod(podOfProxyId(p.id));
  return candidates.filter(
    (c) =>
      c.waypoint !== undefined &&
      (c.waypoint.everyWaypoint ||
        (c.waypoint.namespace === p.namespace && gateway !== undefined && c.waypoint.gateways.has(gateway))),
  );
}
