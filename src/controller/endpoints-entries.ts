/**
 * The endpoints of a ServiceEntry (controller/endpoints-view.ts): its inline `spec.endpoints`, or the
 * WorkloadEntries of its namespace its `workloadSelector` selects (the two are exclusive: Istio's validation, and
 * model/validate/istio-entries.ts). As istiod converts them (istio/istio
 * pilot/pkg/serviceregistry/serviceentry/conversion.go @0098d99f convertEndpoint): the port is the entry's
 * `ports[<service port name>]`, else the service port's `targetPort`, else its number; labels and weight are the
 * entry's. Only IP addresses are sent: a DNS name or a Unix socket is no endpoint an EDS cluster of our waypoint
 * can reach (and a DNS name could be a VIP: docs/waypoint-own.md section 1, loop avoidance).
 */
import { isIP } from 'node:net';
import type { EndpointsOwner, WorkloadEndpoint } from '../model/ambient/endpoints.ts';
import type { ServiceEntry, ServiceEntryEndpoint, ServicePort } from '../model/objects.ts';
import { compareEndpoints, sameLabels } from './endpoints-services.ts';
import type { WorkloadEntryFacts } from './kube/workload-endpoints.ts';

type Labels = Readonly<Record<string, string>>;
const NO_LABELS: Labels = Object.freeze({});

/** The labels of `selector` are a subset of `labels` (Istio labels.Instance.SubsetOf: an empty selector selects all). */
export function selects(selector: Labels, labels: Labels): boolean {
  return Object.entries(selector).every(([k, v]) => Object.hasOwn(labels, k) && labels[k] === v);
}

/** WorkloadEntries by namespace, as reduced (kube/workload-endpoints.ts workloadEntryOf). */
export class WorkloadEntryIndex {
  private readonly byNamespace = new Map<string, Map<string, WorkloadEntryFacts>>();

  /**
   * Records WorkloadEntry `namespace/name` (undefined: deleted). Returns the label sets a selector may have
   * selected it by before or after (empty when nothing read changed), for `ownersSelecting`.
   */
  set(namespace: string, name: string, facts: WorkloadEntryFacts | undefined): Labels[] {
    const entries = this.byNamespace.get(namespace);
    const old = entries?.get(name);
    if (old === undefined && facts === undefined) return [];
    if (old !== undefined && facts !== undefined && sameFacts(old, facts)) return [];
    if (facts === undefined) {
      entries?.delete(name);
      if (entries?.size === 0) this.byNamespace.delete(namespace);
    } else if (entries) entries.set(name, facts);
    else this.byNamespace.set(namespace, new Map([[name, facts]]));
    return [old, facts].filter((f) => f !== undefined).map((f) => f.labels);
  }

  /** The entries of `namespace`, in no particular order. */
  in(namespace: string): Iterable<WorkloadEntryFacts> {
    return this.byNamespace.get(namespace)?.values() ?? [];
  }

  get size(): number {
    let n = 0;
    for (const m of this.byNamespace.values()) n += m.size;
    return n;
  }
}

function sameFacts(a: WorkloadEntryFacts, b: WorkloadEntryFacts): boolean {
  return (
    a.address === b.address &&
    a.weight === b.weight &&
    a.healthy === b.healthy &&
    sameLabels(a.labels, b.labels) &&
    sameLabels(portsAsText(a.ports), portsAsText(b.ports))
  );
}

function portsAsText(ports: Readonly<Record<string, number>>): Labels {
  return Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)]));
}

/** One endpoint of `port`, or undefined when its address is no IP. */
function endpointOf(
  e: Pick<ServiceEntryEndpoint, 'address' | 'ports' | 'labels' | 'weight'>,
  port: ServicePort,
): WorkloadEndpoint | undefined {
  if (isIP(e.address) === 0) return undefined;
  const own = e.ports?.[port.name];
  const target =
    own !== undefined && own > 0
      ? own
      : port.targetPort !== undefined && port.targetPort > 0
        ? port.targetPort
        : port.number;
  return {
    address: e.address,
    port: target,
    labels: e.labels ?? NO_LABELS,
    ...(e.weight !== undefined && e.weight > 0 ? { weight: e.weight } : {}),
  };
}

/** The endpoints of `port` of ServiceEntry `se`, sorted by address then port. */
export function serviceEntryEndpoints(
  se: ServiceEntry,
  port: ServicePort,
  workloadEntries: WorkloadEntryIndex,
): WorkloadEndpoint[] {
  const out: WorkloadEndpoint[] = [];
  const selector = se.spec.workloadSelector?.labels;
  if (selector !== undefined) {
    for (const we of workloadEntries.in(se.metadata.namespace)) {
      if (!we.healthy || !selects(selector, we.labels)) continue;
      const e = endpointOf(we, port);
      if (e) out.push(e);
    }
  } else {
    for (const inline of se.spec.endpoints ?? []) {
      const e = endpointOf(inline, port);
      if (e) out.push(e);
    }
  }
  return dedupe(out.sort(compareEndpoints));
}

/** Drops an endpoint equal in address and port to the one before it (sorted input). */
function dedupe(sorted: WorkloadEndpoint[]): WorkloadEndpoint[] {
  return sorted.filter((e, i) => i === 0 || compareEndpoints(sorted[i - 1]!, e) !== 0);
}

/**
 * The ServiceEntries among `entries` (every one the store holds) whose workloadSelector selects one of the label
 * sets a WorkloadEntry of `namespace` had before or has now.
 */
export function ownersSelecting(
  entries: readonly ServiceEntry[],
  changed: ReadonlyMap<string, readonly Labels[]>,
): EndpointsOwner[] {
  const out: EndpointsOwner[] = [];
  for (const se of entries) {
    const selector = se.spec.workloadSelector?.labels;
    const labelSets = changed.get(se.metadata.namespace);
    if (se.kind !== 'ServiceEntry' || selector === undefined || labelSets === undefined) continue;
    if (labelSets.some((l) => selects(selector, l))) {
      out.push({ kind: 'ServiceEntry', namespace: se.metadata.namespace, name: se.metadata.name });
    }
  }
  return out;
}
