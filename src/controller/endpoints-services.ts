/**
 * The ready endpoints of Kubernetes Services, from their EndpointSlices, joined with the labels of the Pods the
 * endpoints name (controller/endpoints-view.ts). Holds per slice its Service, TCP ports and ready endpoints
 * (address, Pod name), and per Pod its labels: nothing else of either.
 *
 * The port a Service port reaches is the slice port of the same name (kubernetes/api discovery/v1/types.go
 * @426b1b99 EndpointPort: "If the EndpointSlice is derived from a Kubernetes service, this corresponds to the
 * Service.ports[].name", and `port` "must be set to the service's target port"), so a named targetPort is resolved
 * per slice, as kube-proxy resolves it.
 */
import type { WorkloadEndpoint } from '../model/ambient/endpoints.ts';
import type { SliceEndpoints } from './kube/workload-endpoints.ts';

type Labels = Readonly<Record<string, string>>;
const NO_LABELS: Labels = Object.freeze({});

interface HeldSlice extends SliceEndpoints {
  readonly namespace: string;
}

/** `namespace/name`. */
const key = (namespace: string, name: string) => `${namespace}/${name}`;

/** Orders endpoints by address, then port (EndpointsView.endpointsOf). */
export function compareEndpoints(a: WorkloadEndpoint, b: WorkloadEndpoint): number {
  if (a.address !== b.address) return a.address < b.address ? -1 : 1;
  return a.port - b.port;
}

export class ServiceEndpointIndex {
  /** `ns/slice` → what it contributes. */
  private readonly slices = new Map<string, HeldSlice>();
  /** `ns/service` → its slices' keys. */
  private readonly slicesOf = new Map<string, Set<string>>();
  /** `ns/pod` → its labels (Pods listed so far). */
  private readonly pods = new Map<string, Labels>();
  /** `ns/pod` → the keys of the slices naming it. */
  private readonly slicesNaming = new Map<string, Set<string>>();

  /** Records slice `namespace/slice` (undefined: deleted); returns the `ns/service` keys whose endpoints changed. */
  setSlice(namespace: string, slice: string, value: SliceEndpoints | undefined): string[] {
    const k = key(namespace, slice);
    const old = this.slices.get(k);
    // An update that changes nothing read (a not-ready endpoint, a node name) notifies nobody.
    if (old === undefined ? value === undefined : value !== undefined && sameSlice(old, value)) return [];
    const changed = new Set<string>();
    if (old) {
      changed.add(key(namespace, old.service));
      this.unlink(k, old);
    }
    if (value) {
      const held: HeldSlice = { ...value, namespace };
      changed.add(key(namespace, value.service));
      this.link(k, held);
    }
    return [...changed];
  }

  /** Records the labels of Pod `namespace/name` (undefined: deleted); returns the `ns/service` keys affected. */
  setPod(namespace: string, name: string, labels: Labels | undefined): string[] {
    const k = key(namespace, name);
    const old = this.pods.get(k);
    if (labels === undefined) this.pods.delete(k);
    else this.pods.set(k, labels);
    if (old !== undefined && labels !== undefined && sameLabels(old, labels)) return [];
    const out = new Set<string>();
    for (const s of this.slicesNaming.get(k) ?? []) {
      const slice = this.slices.get(s);
      if (slice) out.add(key(slice.namespace, slice.service));
    }
    return [...out];
  }

  /** The ready endpoints of port `portName` of Service `namespace/service`, sorted by address then port. */
  endpoints(namespace: string, service: string, portName: string): WorkloadEndpoint[] {
    const byKey = new Map<string, WorkloadEndpoint>();
    for (const s of this.slicesOf.get(key(namespace, service)) ?? []) {
      const slice = this.slices.get(s);
      const port = slice?.ports.find((p) => p.name === portName)?.port;
      if (!slice || port === undefined) continue;
      for (const e of slice.endpoints) {
        const labels = e.pod === undefined ? NO_LABELS : (this.pods.get(key(namespace, e.pod)) ?? NO_LABELS);
        // The same address may be in two slices while the slice controller moves it: sent once.
        byKey.set(`${e.address} ${port}`, { address: e.address, port, labels });
      }
    }
    return [...byKey.values()].sort(compareEndpoints);
  }

  /** Slices and Pods held (tests, memory measurements). */
  sizes(): { slices: number; pods: number } {
    return { slices: this.slices.size, pods: this.pods.size };
  }

  private link(k: string, slice: HeldSlice): void {
    this.slices.set(k, slice);
    addTo(this.slicesOf, key(slice.namespace, slice.service), k);
    for (const e of slice.endpoints) {
      if (e.pod !== undefined) addTo(this.slicesNaming, key(slice.namespace, e.pod), k);
    }
  }

  private unlink(k: string, slice: HeldSlice): void {
    this.slices.delete(k);
    removeFrom(this.slicesOf, key(slice.namespace, slice.service), k);
    for (const e of slice.endpoints) {
      if (e.pod !== undefined) removeFrom(this.slicesNaming, key(slice.namespace, e.pod), k);
    }
  }
}

function sameSlice(a: SliceEndpoints, b: SliceEndpoints): boolean {
  return (
    a.service === b.service &&
    a.ports.length === b.ports.length &&
    a.ports.every((p, i) => p.name === b.ports[i]!.name && p.port === b.ports[i]!.port) &&
    a.endpoints.length === b.endpoints.length &&
    a.endpoints.every((e, i) => e.address === b.endpoints[i]!.address && e.pod === b.endpoints[i]!.pod)
  );
}

function addTo(map: Map<string, Set<string>>, k: string, v: string): void {
  const set = map.get(k);
  if (set) set.add(v);
  else map.set(k, new Set([v]));
}

function removeFrom(map: Map<string, Set<string>>, k: string, v: string): void {
  const set = map.get(k);
  set?.delete(v);
  if (set?.size === 0) map.delete(k);
}

/** Same keys and values (labels from the API server come in no fixed key order). */
export function sameLabels(a: Labels, b: Labels): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}
