import {
  CLUSTER_TYPE,
  LISTENER_TYPE,
  type WaypointProgramState,
  type WaypointPrograms,
} from '../model/ambient/xds.ts';
import { MAX_ERROR_DETAIL } from './acks.ts';
import type { AdsStreamBase, ProgramSink } from './ads-stream-base.ts';

/** The types whose acknowledgement makes a Gateway programmed (the issue: "its current listeners and clusters"). */
const PROGRAMMED_TYPES = [LISTENER_TYPE, CLUSTER_TYPE] as const;

/**
 * WaypointPrograms from the ADS streams' answers: per Gateway, `acked` once every connected proxy of it ACKed the
 * last Listener and Cluster response it was sent (a stream pushes each change as it happens, so its last response
 * is the current version), `rejected` (the earliest current rejection, with the proxy's node id) when one NACKed,
 * `pending` before, `none` without a proxy. Subscribers hear of the Gateways whose state changed, once per turn of
 * the event loop (changes within one push are coalesced).
 */
export class AdsPrograms implements WaypointPrograms, ProgramSink {
  private readonly streams = new Map<string, Set<AdsStreamBase>>();
  private readonly last = new Map<string, string>();
  private readonly dirty = new Set<string>();
  private readonly listeners = new Set<(gateways: readonly string[]) => void>();
  private scheduled = false;

  state(gateway: string): WaypointProgramState {
    const streams = this.streams.get(gateway);
    if (!streams || streams.size === 0) return this.noneOf(gateway);
    let pending = false;
    let rejection: { proxy: string; detail: string; at: number } | undefined;
    for (const s of streams) {
      for (const typeUrl of PROGRAMMED_TYPES) {
        const t = s.typeStatus(typeUrl);
        if (t.status === 'pending') pending = true;
        if (t.status === 'rejected' && (!rejection || (t.at ?? 0) < rejection.at)) {
          rejection = { proxy: s.nodeId, detail: (t.detail ?? '').slice(0, MAX_ERROR_DETAIL), at: t.at ?? 0 };
        }
      }
    }
    const connected = streams.size;
    if (rejection)
      return { gateway, state: 'rejected', connected, proxy: rejection.proxy, detail: rejection.detail };
    return { gateway, state: pending ? 'pending' : 'acked', connected };
  }

  subscribe(listener: (gateways: readonly string[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Gateways with connected proxies. */
  get gatewayCount(): number {
    return this.streams.size;
  }

  join(gateway: string, s: AdsStreamBase): void {
    let set = this.streams.get(gateway);
    if (!set) this.streams.set(gateway, (set = new Set()));
    set.add(s);
    this.changed(gateway);
  }

  leave(gateway: string, s: AdsStreamBase): void {
    const set = this.streams.get(gateway);
    set?.delete(s);
    if (set?.size === 0) this.streams.delete(gateway);
    this.changed(gateway);
  }

  changed(gateway: string): void {
    this.dirty.add(gateway);
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => this.flush());
  }

  private noneOf(gateway: string): WaypointProgramState {
    return { gateway, state: 'none', connected: 0 };
  }

  private flush(): void {
    this.scheduled = false;
    const changed: string[] = [];
    for (const gateway of [...this.dirty].sort()) {
      const s = this.state(gateway);
      const text = JSON.stringify(s);
      const before = this.last.get(gateway) ?? JSON.stringify(this.noneOf(gateway));
      if (before === text) continue;
      if (s.state === 'none') this.last.delete(gateway);
      else this.last.set(gateway, text);
      changed.push(gateway);
    }
    this.dirty.clear();
    if (changed.length === 0) return;
    for (const l of [...this.listeners]) l(changed);
  }
}
