/**
 * What the sink (the ADS cache, model/ambient/xds.ts WaypointXdsSink) holds, and the WaypointChanges that bring it
 * up to date: per Gateway its listener (given once when the Gateway appears, `null` when it goes) and per service
 * its contribution, sent again only when its content changed or it moved to another Gateway (DESIGN habit 5:
 * unchanged config never causes a push).
 */
import type { GatewayKey } from '../model/ambient/own-waypoint.ts';
import type { ProtoJson, ServiceContribution, WaypointChange } from '../model/ambient/xds.ts';
import { compareStrings } from '../model/order.ts';
import { stableStringify } from '../util/json.ts';

interface Placed {
  readonly gateway: GatewayKey;
  readonly contribution: ServiceContribution;
}

/** The same Gateway and content (compared only for the services a pass translated again). */
function sameAs(old: Placed | undefined, now: Placed): boolean {
  if (old === undefined || old.gateway !== now.gateway) return false;
  if (old.contribution === now.contribution) return true;
  return stableStringify(old.contribution) === stableStringify(now.contribution);
}

export class ChangeSet {
  /** Gateways the sink was given a listener for. */
  private readonly listened = new Set<GatewayKey>();
  private readonly placed = new Map<string, Placed>();
  /** Listener changes of this pass: true gives the template, false removes the Gateway. */
  private readonly listeners = new Map<GatewayKey, boolean>();
  private readonly services = new Map<GatewayKey, Map<string, ServiceContribution | undefined>>();
  /** During a full pass: the Gateways listened before it and not seen again yet. */
  private stale: Set<GatewayKey> | undefined;

  /** Starts a pass that resends everything: every `listen` and `place` is a change. */
  startFull(): void {
    this.stale = new Set(this.listened);
  }

  /** The services the sink holds a contribution of. */
  placedServices(): string[] {
    return [...this.placed.keys()];
  }

  /** Whether Gateway `gateway` is (still) of our class. */
  listen(gateway: GatewayKey, ours: boolean): void {
    if (ours) {
      if (this.stale !== undefined || !this.listened.has(gateway)) this.listeners.set(gateway, true);
      this.stale?.delete(gateway);
      this.listened.add(gateway);
    } else if (this.listened.delete(gateway)) {
      this.listeners.set(gateway, false);
    }
  }

  /** The contribution of service `id` now (undefined: it contributes nothing). */
  place(id: string, gateway: GatewayKey | undefined, contribution: ServiceContribution | undefined): void {
    const old = this.placed.get(id);
    const now = gateway !== undefined && contribution !== undefined ? { gateway, contribution } : undefined;
    if (old !== undefined && old.gateway !== now?.gateway) {
      this.servicesOf(old.gateway).set(id, undefined);
      this.placed.delete(id);
    }
    if (now === undefined) return;
    this.placed.set(id, now);
    if (this.stale !== undefined || !sameAs(old, now)) this.servicesOf(now.gateway).set(id, now.contribution);
  }

  /** The changes of this pass, by Gateway; `template` is the listener a new Gateway is given. */
  take(template: ProtoJson): WaypointChange[] {
    for (const g of this.stale ?? []) this.listen(g, false);
    this.stale = undefined;
    const gateways = new Set([...this.listeners.keys(), ...this.services.keys()]);
    const out: WaypointChange[] = [];
    for (const gateway of [...gateways].sort(compareStrings)) {
      const listener = this.listeners.get(gateway);
      if (listener === false) {
        // The sink drops everything the Gateway had: what was placed there must be sent again if it comes back.
        for (const [id, p] of this.placed) if (p.gateway === gateway) this.placed.delete(id);
        out.push({ gateway, listener: null, services: new Map() });
        continue;
      }
      const changed = this.services.get(gateway) ?? new Map<string, ServiceContribution | undefined>();
      const services = new Map([...changed].sort(([a], [b]) => compareStrings(a, b)));
      out.push(listener === true ? { gateway, listener: template, services } : { gateway, services });
    }
    this.listeners.clear();
    this.services.clear();
    return out;
  }

  private servicesOf(gateway: GatewayKey): Map<string, ServiceContribution | undefined> {
    let m = this.services.get(gateway);
    if (m === undefined) this.services.set(gateway, (m = new Map<string, ServiceContribution | undefined>()));
    return m;
  }
}
