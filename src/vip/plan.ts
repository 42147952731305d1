/**
 * The pure part of VIP allocation (spec/aeraki-periphery.md 5.1): which ServiceEntries of the API server get
 * which VIP from 240.240.0.0/16, so that outbound filters can match `<vip>_<port>` in every sidecar alike.
 *
 * Rules:
 * - a ServiceEntry is eligible when its resolution is not NONE (an absent resolution is NONE, Istio's default)
 *   and at least one port selects a protocol some generator handles; others are never written;
 * - a ServiceEntry whose `addresses[0]` is an IPv4 address outside 240.240.0.0/16 (or not a single address) is
 *   left alone;
 * - a VIP written as `addresses[0]` and held by exactly one ServiceEntry is kept (this is how VIPs survive
 *   restarts: the API server is the only state); when several hold it, the first in D6 precedence
 *   (model/claims.ts: oldest, then namespace/name) keeps it and every other eligible holder gets a new one;
 * - new VIPs follow Aeraki's sequence (n = 1, 2, ...; values ≡ 0 mod 255 skipped; `240.240.<n/255>.<n%255>`),
 *   lowest free value first, handed out in D6 precedence; a value is free when no ServiceEntry (eligible or
 *   not) has it anywhere in `addresses`, nor a CIDR there covering it;
 * - no free value left is an issue of the ServiceEntry that needed one, never a crash.
 * Fixed against Aeraki: its counter lived in memory and wrapped to reuse values at exhaustion; it wrote every
 * ServiceEntry, also those no generator handles.
 */
import { comparePrecedence } from '../model/claims.ts';
import { protocolSegment, type Protocol } from '../model/protocol.ts';
import { issue, type ConfigIssue } from '../model/result.ts';
import { diffObjects } from '../kit/diff.ts';

export const VIP_CIDR = '240.240.0.0/16';
/** 240.240.0.0 as an unsigned 32-bit number. */
const VIP_BASE = ((240 << 24) | (240 << 16)) >>> 0;
/** The sequence ends before n = 255 * 255 (third octet 255). */
const SEQUENCE_END = 255 * 255;

/** A ServiceEntry as the API server holds it: what the planner reads of it. */
export interface VipServiceEntry {
  readonly kind: 'ServiceEntry';
  readonly metadata: {
    readonly namespace: string;
    readonly name: string;
    readonly creationTimestamp?: string;
  };
  /** `spec.resolution` as written; undefined when absent (which Istio reads as NONE). */
  readonly resolution: string | undefined;
  /** `spec.addresses` as written. */
  readonly addresses: readonly string[];
  /** `spec.ports[].name`. */
  readonly portNames: readonly string[];
}

export interface VipUpdate<S extends VipServiceEntry> {
  readonly serviceEntry: S;
  readonly vip: string;
  /** The new `spec.addresses`: `[vip]`, or the VIP in place of a shared `addresses[0]` (others kept). */
  readonly addresses: readonly string[];
  /** `unaddressed`: it had no address; `duplicate`: another ServiceEntry keeps the VIP it held. */
  readonly reason: 'unaddressed' | 'duplicate';
}

/** What a ServiceEntry should hold: its `spec.addresses`, and the Update that gives it a new VIP, if any. */
interface VipAssignment<S extends VipServiceEntry> {
  readonly serviceEntry: S;
  readonly addresses: readonly string[];
  readonly update?: VipUpdate<S>;
}

export interface VipPlan<S extends VipServiceEntry> {
  /** At most one per ServiceEntry, in D6 precedence order. */
  readonly updates: readonly VipUpdate<S>[];
  /** Eligible ServiceEntries whose VIP stays. */
  readonly kept: number;
  /** ServiceEntries that needed a VIP and got none (range exhausted). */
  readonly issues: readonly ConfigIssue[];
}

/** A dotted IPv4 address as an unsigned 32-bit number; undefined for anything else. */
function parseIpv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = value * 256 + octet;
  }
  return value;
}

/** The inclusive range of an IPv4 address or CIDR (`a.b.c.d/p`); undefined for anything else (IPv6 too). */
function ipv4Range(address: string): readonly [number, number] | undefined {
  const [ip, prefix, extra] = address.trim().split('/');
  if (ip === undefined || extra !== undefined) return undefined;
  const start = parseIpv4(ip);
  if (start === undefined) return undefined;
  if (prefix === undefined) return [start, start];
  if (!/^\d{1,2}$/.test(prefix) || Number(prefix) > 32) return undefined;
  const size = 2 ** (32 - Number(prefix));
  const lo = start - (start % size);
  return [lo, lo + size - 1];
}

function inVipRange(value: number): boolean {
  return value >= VIP_BASE && value <= VIP_BASE + 0xffff;
}

/** The VIP `address` names when it is one address (or a /32) in 240.240.0.0/16, in canonical form. */
export function vipOf(address: string): string | undefined {
  const range = ipv4Range(address);
  if (!range || range[0] !== range[1] || !inVipRange(range[0])) return undefined;
  const low = range[0] - VIP_BASE;
  return `240.240.${Math.floor(low / 256)}.${low % 256}`;
}

/** The n-th value of Aeraki's sequence: `240.240.<n/255>.<n%255>`; undefined for skipped or out-of-range n. */
export function sequenceVip(n: number): string | undefined {
  if (!Number.isInteger(n) || n <= 0 || n >= SEQUENCE_END || n % 255 === 0) return undefined;
  return `240.240.${Math.floor(n / 255)}.${n % 255}`;
}

/** Eligible: not resolution NONE (absent = NONE) and a port some generator handles. */
export function isEligible(se: VipServiceEntry, handled: ReadonlySet<Protocol>): boolean {
  if ((se.resolution ?? 'NONE').toUpperCase() === 'NONE') return false;
  return se.portNames.some((name) => {
    const p = protocolSegment(name);
    return p !== undefined && handled.has(p);
  });
}

/** Every 240.240/16 value some ServiceEntry uses, as offsets into the range: single values and CIDR blocks. */
class UsedVips {
  private readonly values = new Set<number>();
  private readonly blocks: (readonly [number, number])[] = [];
  private next = 1;

  add(address: string): void {
    const range = ipv4Range(address);
    if (!range || range[1] < VIP_BASE || range[0] > VIP_BASE + 0xffff) return;
    if (range[0] === range[1]) this.values.add(range[0]);
    else this.blocks.push(range);
  }

  /** The lowest free value of the sequence (marked used), or undefined when none is left. */
  take(): string | undefined {
    for (; this.next < SEQUENCE_END; this.next++) {
      const vip = sequenceVip(this.next);
      if (vip === undefined) continue;
      const value = VIP_BASE + Math.floor(this.next / 255) * 256 + (this.next % 255);
      if (this.values.has(value) || this.blocks.some(([lo, hi]) => value >= lo && value <= hi)) continue;
      this.values.add(value);
      this.next++;
      return vip;
    }
    return undefined;
  }
}

/**
 * Plans the Updates that give every eligible ServiceEntry a VIP of its own: allocates, then diffs (kit/diff.ts) the
 * addresses every eligible ServiceEntry should hold against those it holds. `serviceEntries` is every
 * ServiceEntry of the API server (all namespaces); `handled` the protocols the generators handle. Pure and
 * deterministic: the input order does not matter.
 */
export function planVips<S extends VipServiceEntry>(
  serviceEntries: readonly S[],
  handled: ReadonlySet<Protocol>,
): VipPlan<S> {
  const used = new UsedVips();
  const holders = new Map<string, S[]>();
  const needing: { se: S; reason: VipUpdate<S>['reason'] }[] = [];
  for (const se of serviceEntries) {
    for (const address of se.addresses) used.add(address);
    const first = se.addresses[0];
    if (first === undefined) {
      if (isEligible(se, handled)) needing.push({ se, reason: 'unaddressed' });
      continue;
    }
    const vip = vipOf(first);
    if (vip === undefined) continue;
    const group = holders.get(vip);
    if (group) group.push(se);
    else holders.set(vip, [se]);
  }
  // The desired state: every eligible ServiceEntry holds a VIP of its own; the holders that keep theirs first.
  const desired: VipAssignment<S>[] = [];
  for (const group of holders.values()) {
    const [winner, ...losers] = group.length > 1 ? group.sort(comparePrecedence) : group;
    if (winner && isEligible(winner, handled))
      desired.push({ serviceEntry: winner, addresses: winner.addresses });
    for (const se of losers) if (isEligible(se, handled)) needing.push({ se, reason: 'duplicate' });
  }
  needing.sort((a, b) => comparePrecedence(a.se, b.se));

  const issues: ConfigIssue[] = [];
  for (const { se, reason } of needing) {
    const vip = used.take();
    if (vip === undefined) {
      const ref = { kind: se.kind, namespace: se.metadata.namespace, name: se.metadata.name };
      issues.push(issue(ref, 'spec.addresses', `no free VIP left in ${VIP_CIDR}`));
      continue;
    }
    const addresses = reason === 'unaddressed' ? [vip] : [vip, ...se.addresses.slice(1)];
    desired.push({ serviceEntry: se, addresses, update: { serviceEntry: se, vip, addresses, reason } });
  }
  // Only Updates: every desired ServiceEntry exists, and one that is not desired is never written.
  const key = (se: S) => `${se.metadata.namespace}/${se.metadata.name}`;
  const plan = diffObjects<VipAssignment<S>, S>(desired, serviceEntries, {
    desiredKey: (a) => key(a.serviceEntry),
    existingKey: key,
    changed: (a, se) => (se !== undefined && sameList(a.addresses, se.addresses) ? undefined : a),
    mayDelete: () => false,
  });
  const updates = plan.updates.flatMap((u) => (u.desired.update ? [u.desired.update] : []));
  return { updates, kept: plan.unchanged, issues };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
