/**
 * The ports the endpoints of each Kubernetes Service receive on, by the Service port's name, kept from the
 * EndpointSlices (ConfigView.endpointPorts, deviation D16). Only what inbound filters need is held: per slice, its
 * Service and its (port name, number) pairs; never the slice, its addresses or its pods.
 */
import { compareStrings } from '../model/order.ts';

/** What one EndpointSlice contributes: its Service and the ports of its endpoints (none without endpoints). */
export interface SlicePorts {
  readonly service: string;
  readonly ports: readonly { readonly name: string; readonly port: number }[];
}

const EMPTY: ReadonlyMap<string, readonly number[]> = new Map();

export class EndpointPortIndex {
  /** `<namespace>/<slice>` → what that slice contributes. */
  private readonly slices = new Map<string, SlicePorts & { readonly namespace: string }>();
  /** `<namespace>/<service>` → its slices' keys. */
  private readonly slicesOf = new Map<string, Set<string>>();
  /** `<namespace>/<service>` → port name → sorted distinct numbers (computed from slicesOf). */
  private readonly ports = new Map<string, ReadonlyMap<string, readonly number[]>>();

  /** The ports of `namespace/service` (ConfigView.endpointPorts); an empty map when none is known. */
  get(namespace: string, service: string): ReadonlyMap<string, readonly number[]> {
    return this.ports.get(`${namespace}/${service}`) ?? EMPTY;
  }

  /**
   * Records slice `namespace/slice` (`value` undefined: deleted). Returns the Services (`name`, in this
   * namespace) whose ports changed: none, one, or two when a slice moved from one Service to another.
   */
  set(namespace: string, slice: string, value: SlicePorts | undefined): string[] {
    const key = `${namespace}/${slice}`;
    const old = this.slices.get(key);
    const touched = new Set<string>();
    if (old) {
      touched.add(old.service);
      const keys = this.slicesOf.get(`${namespace}/${old.service}`);
      keys?.delete(key);
      if (keys?.size === 0) this.slicesOf.delete(`${namespace}/${old.service}`);
      this.slices.delete(key);
    }
    if (value) {
      touched.add(value.service);
      this.slices.set(key, { namespace, service: value.service, ports: value.ports });
      const serviceKey = `${namespace}/${value.service}`;
      const keys = this.slicesOf.get(serviceKey) ?? new Set<string>();
      keys.add(key);
      this.slicesOf.set(serviceKey, keys);
    }
    const changed: string[] = [];
    for (const service of [...touched].sort(compareStrings)) {
      if (this.recompute(namespace, service)) changed.push(service);
    }
    return changed;
  }

  /** Recomputes the ports of one Service; true when they changed. */
  private recompute(namespace: string, service: string): boolean {
    const serviceKey = `${namespace}/${service}`;
    const byName = new Map<string, Set<number>>();
    for (const key of this.slicesOf.get(serviceKey) ?? []) {
      for (const p of this.slices.get(key)?.ports ?? []) {
        const set = byName.get(p.name) ?? new Set<number>();
        set.add(p.port);
        byName.set(p.name, set);
      }
    }
    const now = new Map<string, readonly number[]>();
    for (const name of [...byName.keys()].sort(compareStrings)) {
      now.set(
        name,
        [...byName.get(name)!].sort((a, b) => a - b),
      );
    }
    const before = this.ports.get(serviceKey) ?? EMPTY;
    if (sameMap(before, now)) return false;
    if (now.size === 0) this.ports.delete(serviceKey);
    else this.ports.set(serviceKey, now);
    return true;
  }
}

function sameMap(
  a: ReadonlyMap<string, readonly number[]>,
  b: ReadonlyMap<string, readonly number[]>,
): boolean {
  if (a.size !== b.size) return false;
  for (const [name, list] of a) {
    const other = b.get(name);
    if (!other || other.length !== list.length || other.some((n, i) => n !== list[i])) return false;
  }
  return true;
}
