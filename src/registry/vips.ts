/**
 * VIPs of registry ServiceEntries, stable across resyncs and restarts without any stored state:
 * - a host's VIP is derived from the SHA-256 of the host into 241.0.0.0/8 (class E like Istio's own 240.240.0.0/16,
 *   and outside it, so the ServiceEntry VIP allocator of src/vip/ leaves these ServiceEntries alone); addresses
 *   ending in .0 or .255 are skipped;
 * - a collision (another host holds the value) is resolved by re-hashing with an attempt counter
 *   (`<host>#1`, `<host>#2`, ...): the host that asked first keeps the value. With 16 million values a given
 *   host collides with about n/16M probability (0.03% at 5,000 hosts), so a VIP changes across a restart only
 *   when two hosts collided and arrive in the other order;
 * - `seed` pins VIPs already written (kube mode reads them back from the existing ServiceEntries before the first
 *   assignment), so what the API server holds survives even that case;
 * - a VIP stays assigned while any holder holds its host: every `acquire` is matched by one `release`.
 * One instance is shared by every registry of a process, so no two hosts get the same VIP.
 */
import { createHash } from 'node:crypto';
import { isIPv4 } from 'node:net';

export const REGISTRY_VIP_CIDR = '241.0.0.0/8';
const MAX_ATTEMPTS = 1000;

/** The `attempt`-th candidate VIP of `host`. */
export function candidateVip(host: string, attempt: number): string {
  const digest = createHash('sha256')
    .update(attempt === 0 ? host : `${host}#${attempt}`)
    .digest();
  const b = digest.readUIntBE(0, 3);
  const second = (b >> 16) & 0xff;
  const third = (b >> 8) & 0xff;
  const fourth = 1 + ((b & 0xff) % 254); // 1..254
  return `241.${second}.${third}.${fourth}`;
}

export class RegistryVips {
  private readonly byHost = new Map<string, string>();
  private readonly byVip = new Map<string, string>();
  private readonly holds = new Map<string, number>();

  /** Pins `vip` for `host` (read back from an existing ServiceEntry); ignored when either is already taken. */
  seed(host: string, vip: string): void {
    if (!isIPv4(vip) || this.byHost.has(host) || this.byVip.has(vip)) return;
    this.byHost.set(host, vip);
    this.byVip.set(vip, host);
  }

  /** The VIP of `host` (assigned on the first acquire), held until the matching `release`. */
  acquire(host: string): string {
    this.holds.set(host, (this.holds.get(host) ?? 0) + 1);
    const held = this.byHost.get(host);
    if (held !== undefined) return held;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const vip = candidateVip(host, attempt);
      if (this.byVip.has(vip)) continue;
      this.byHost.set(host, vip);
      this.byVip.set(vip, host);
      return vip;
    }
    throw new Error(`no free registry VIP for ${host} after ${MAX_ATTEMPTS} attempts`);
  }

  /** Drops one hold; the VIP is freed (and a seed forgotten) when the last holder releases it. */
  release(host: string): void {
    const n = (this.holds.get(host) ?? 0) - 1;
    if (n > 0) {
      this.holds.set(host, n);
      return;
    }
    this.holds.delete(host);
    const vip = this.byHost.get(host);
    if (vip === undefined) return;
    this.byHost.delete(host);
    this.byVip.delete(vip);
  }

  get size(): number {
    return this.byHost.size;
  }
}
