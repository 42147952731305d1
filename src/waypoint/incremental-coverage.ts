/**
 * What each Gateway of our class cannot carry (model/ambient/xds.ts WaypointCoverage), kept per service so that a
 * service's new translation replaces its own lines only; listeners hear the Gateways whose list changed.
 */
import type { GatewayKey } from '../model/ambient/own-waypoint.ts';
import type { WaypointCoverage } from '../model/ambient/xds.ts';
import { compareStrings } from '../model/order.ts';

export class CoverageIndex implements WaypointCoverage {
  /** Gateway → service key → its lines (never empty). */
  private readonly lines = new Map<GatewayKey, Map<string, readonly string[]>>();
  private readonly changed = new Set<GatewayKey>();
  private readonly listeners = new Set<(gateways: readonly GatewayKey[]) => void>();

  uncarried(gateway: GatewayKey): readonly string[] {
    const byService = this.lines.get(gateway);
    if (byService === undefined) return [];
    return [...byService.values()].flat().sort(compareStrings);
  }

  subscribe(listener: (gateways: readonly GatewayKey[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Replaces what `service` said (at `before`) by `lines` at `after`. */
  set(
    service: string,
    before: GatewayKey | undefined,
    after: GatewayKey | undefined,
    lines: readonly string[],
  ): void {
    const old = before === undefined ? undefined : this.lines.get(before)?.get(service);
    if (before === after && (old ?? []).join('\n') === lines.join('\n')) return;
    if (before !== undefined) {
      const m = this.lines.get(before);
      if (m?.delete(service) === true) {
        this.changed.add(before);
        if (m.size === 0) this.lines.delete(before);
      }
    }
    if (after === undefined || lines.length === 0) return;
    let m = this.lines.get(after);
    if (m === undefined) this.lines.set(after, (m = new Map<string, readonly string[]>()));
    m.set(service, lines);
    this.changed.add(after);
  }

  /** Tells the listeners which Gateways' lists may have changed since the last call. */
  publish(): void {
    if (this.changed.size === 0) return;
    const gateways = [...this.changed].sort(compareStrings);
    this.changed.clear();
    for (const l of this.listeners) l(gateways);
  }
}
