/**
 * Filter chains two services of one Gateway would both claim. Envoy rejects a whole Listener when two filter chains
 * have the same FilterChainMatch, or overlap on one destination port and prefix ("multiple filter chains with
 * overlapping matching rules are defined": envoyproxy/envoy source/common/listener_manager/filter_chain_manager_impl.cc
 * addFilterChains and addFilterChainForSourcePorts @997c24d9, code index): one such pair would cost the Gateway every
 * listener update. And a chain's name `<host>_<port>` is also the name of its route resources and the host of its
 * clusters, so two services with the same first host and port on one Gateway would serve each other's endpoints.
 * So each `(destination_port, prefix)` and each chain name of a Gateway belongs to one service, the first by D6
 * precedence (oldest, then namespace/name; a ServiceEntry before a Service); the others serve their chains without
 * what they lost (a chain with nothing left is dropped) and get a coverage line naming the service that has it
 * (DESIGN habit 17: one object's conflict never breaks another's output). Prefixes are compared as written
 * (prefixRange keeps an IP or CIDR as the object has it).
 */
import type { GatewayKey } from '../model/ambient/own-waypoint.ts';
import type { ProtoJson, ServiceContribution } from '../model/ambient/xds.ts';
import type { ServiceEntry } from '../model/objects.ts';
import { precedence } from './incremental-hosts.ts';

interface Claimant {
  readonly id: string;
  readonly source: ServiceEntry;
}

interface ChainShape {
  readonly name?: string;
  readonly filter_chain_match?: {
    readonly destination_port?: number;
    readonly prefix_ranges?: readonly { readonly address_prefix?: string; readonly prefix_len?: number }[];
  };
}

const prefixText = (p: { readonly address_prefix?: string; readonly prefix_len?: number }) =>
  `${p.address_prefix ?? ''}/${p.prefix_len ?? 0}`;

/** The keys a chain claims: its name, and each port and prefix it matches. */
function keysOf(chain: ProtoJson): string[] {
  const c = chain as ChainShape;
  const port = c.filter_chain_match?.destination_port ?? 0;
  const ranges = c.filter_chain_match?.prefix_ranges ?? [];
  return [`name ${c.name ?? ''}`, ...ranges.map((p) => `match ${port} ${prefixText(p)}`)];
}

const refText = (c: Claimant) => c.id.replace('/', ' ');

export class ChainClaims {
  /** `<gateway> <key>` → its claimants, in precedence order (the first has it). */
  private readonly claimants = new Map<string, Claimant[]>();
  /** Service id → the Gateway and keys it claims. */
  private readonly claimed = new Map<
    string,
    { readonly gateway: GatewayKey; readonly keys: readonly string[] }
  >();

  /** Replaces the claims of service `id`; returns the services whose claims' outcome may have changed. */
  set(
    id: string,
    source: ServiceEntry | undefined,
    gateway: GatewayKey | undefined,
    contribution: ServiceContribution | undefined,
  ): string[] {
    const touched = new Set<string>();
    const old = this.claimed.get(id);
    for (const k of old?.keys ?? []) {
      const key = `${old?.gateway ?? ''} ${k}`;
      const list = (this.claimants.get(key) ?? []).filter((c) => c.id !== id);
      for (const c of list) touched.add(c.id);
      if (list.length === 0) this.claimants.delete(key);
      else this.claimants.set(key, list);
    }
    this.claimed.delete(id);
    if (source === undefined || gateway === undefined || contribution === undefined) return [...touched];
    const keys = [...new Set(contribution.chains.flatMap(keysOf))];
    this.claimed.set(id, { gateway, keys });
    for (const k of keys) {
      const key = `${gateway} ${k}`;
      const list = this.claimants.get(key);
      if (list === undefined) {
        this.claimants.set(key, [{ id, source }]);
        continue;
      }
      for (const c of list) touched.add(c.id);
      list.push({ id, source });
      list.sort((a, b) => precedence(a.source, b.source));
    }
    return [...touched];
  }

  /** What service `id` serves of `contribution`, and a line per thing another service has. */
  resolve(
    id: string,
    contribution: ServiceContribution | undefined,
  ): { readonly contribution: ServiceContribution | undefined; readonly lost: readonly string[] } {
    const claimed = this.claimed.get(id);
    if (contribution === undefined || claimed === undefined) return { contribution, lost: [] };
    const owner = (k: string) => this.claimants.get(`${claimed.gateway} ${k}`)?.[0];
    const lostAny = claimed.keys.some((k) => owner(k)?.id !== id);
    if (!lostAny) return { contribution, lost: [] };
    const lost: string[] = [];
    const chains: ProtoJson[] = [];
    for (const chain of contribution.chains) {
      const c = chain as ChainShape;
      const port = c.filter_chain_match?.destination_port ?? 0;
      const line = (what: string, by: Claimant) =>
        lost.push(
          `${refText({ id, source: by.source })} port ${port}: ${what} is carried for ${refText(by)}`,
        );
      const byName = owner(`name ${c.name ?? ''}`);
      if (byName !== undefined && byName.id !== id) {
        line(`filter chain ${c.name ?? ''}`, byName);
        continue;
      }
      const ranges = (c.filter_chain_match?.prefix_ranges ?? []).filter((p) => {
        const by = owner(`match ${port} ${prefixText(p)}`);
        if (by === undefined || by.id === id) return true;
        line(`address ${prefixText(p)}`, by);
        return false;
      });
      if (ranges.length > 0) {
        chains.push({ ...chain, filter_chain_match: { ...c.filter_chain_match, prefix_ranges: ranges } });
      }
    }
    return { contribution: { ...contribution, chains }, lost };
  }
}
