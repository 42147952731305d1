/**
 * When two EnvoyFilter patches (EnvoyFilterPatchFacts) reach the same place of a proxy: the same listener (by
 * name, else by port; the shared `virtualInbound`/`virtualOutbound` listeners need a port on both sides, the
 * filter chain's destinationPort first) in an overlapping context. Shared by the analyzers of other EnvoyFilters
 * (AER0013, AER0107). Pure.
 */
import {
  DUBBO_PROXY_FILTER,
  MANAGER_LABEL,
  MANAGER_VALUE,
  META_PROTOCOL_PROXY_FILTER,
  TCP_PROXY_FILTER,
  THRIFT_PROXY_FILTER,
} from '../model/constants.ts';
import type { AnalysisInput, EnvoyFilterFacts, EnvoyFilterPatchFacts } from './types.ts';

/** tcp_proxy and the filters this controller puts in its place. */
export const CONTESTED_FILTERS: ReadonlySet<string> = new Set([
  TCP_PROXY_FILTER,
  META_PROTOCOL_PROXY_FILTER,
  DUBBO_PROXY_FILTER,
  THRIFT_PROXY_FILTER,
  'envoy.filters.network.redis_proxy',
]);

const SHARED_LISTENERS = new Set(['virtualInbound', 'virtualOutbound']);

/** Whether the EnvoyFilter was written by someone else than this controller (no `manager: Aeraki` label). */
export function isOthers(f: EnvoyFilterFacts): boolean {
  return f.labels[MANAGER_LABEL] !== MANAGER_VALUE;
}

/**
 * The port a patch is for: its filter chain's destinationPort (an inbound chain of `virtualInbound`), else the
 * listener's portNumber (Istio matches it against that destination port on the shared listeners), else a listener
 * name's `_<port>` suffix.
 */
export function portOf(p: EnvoyFilterPatchFacts): number | undefined {
  if (p.destinationPort !== undefined) return p.destinationPort;
  if (p.portNumber !== undefined) return p.portNumber;
  const m = p.listenerName === undefined ? null : /_(\d+)$/.exec(p.listenerName);
  return m ? Number(m[1]) : undefined;
}

/** Same listener: the same name (not a shared one), else the same port. */
export function sameListener(a: EnvoyFilterPatchFacts, b: EnvoyFilterPatchFacts): boolean {
  const named = a.listenerName !== undefined && b.listenerName !== undefined;
  if (named && a.listenerName !== b.listenerName) return false;
  if (named && !SHARED_LISTENERS.has(a.listenerName ?? '')) return true;
  const pa = portOf(a);
  return pa !== undefined && pa === portOf(b);
}

const contextOf = (p: EnvoyFilterPatchFacts) => p.context ?? 'ANY';

/** Only inbound filter chains: SIDECAR_INBOUND, or the `virtualInbound` listener. */
const inboundOnly = (p: EnvoyFilterPatchFacts) =>
  contextOf(p) === 'SIDECAR_INBOUND' || p.listenerName === 'virtualInbound';

/** Never an inbound chain: an outbound or gateway context, or a listener named other than `virtualInbound`. */
const neverInbound = (p: EnvoyFilterPatchFacts) =>
  contextOf(p) === 'SIDECAR_OUTBOUND' ||
  contextOf(p) === 'GATEWAY' ||
  (p.listenerName !== undefined && p.listenerName !== 'virtualInbound');

/**
 * Overlapping contexts (absent = ANY), where a patch without a context takes its listener's: `virtualInbound` is
 * inbound, any other named listener (`10.96.10.20_20880`, `virtualOutbound`) is not.
 */
export function sameContext(a: EnvoyFilterPatchFacts, b: EnvoyFilterPatchFacts): boolean {
  const ca = contextOf(a);
  const cb = contextOf(b);
  if (ca !== 'ANY' && cb !== 'ANY' && ca !== cb) return false;
  return !((inboundOnly(a) && neverInbound(b)) || (inboundOnly(b) && neverInbound(a)));
}

/** `listener 10.96.10.20_20880`, `listener virtualInbound port 20880`, `listener port 20880`. */
export function listenerText(p: EnvoyFilterPatchFacts): string {
  const port = p.destinationPort ?? p.portNumber;
  if (p.listenerName === undefined) return `listener port ${port ?? '?'}`;
  return SHARED_LISTENERS.has(p.listenerName) && port !== undefined
    ? `listener ${p.listenerName} port ${port}`
    : `listener ${p.listenerName}`;
}

/**
 * The EnvoyFilters of others an analysis knows: those given in files (AnalysisInput.envoyFilters) and, live, the
 * cluster's, a file's winning over the cluster's of the same namespace and name; files first, in input order.
 */
export function othersEnvoyFilters(input: AnalysisInput): EnvoyFilterFacts[] {
  const files = input.envoyFilters ?? [];
  const key = (f: EnvoyFilterFacts) => `${f.namespace}/${f.name}`;
  const given = new Set(files.map(key));
  const cluster = (input.cluster?.envoyFilters ?? []).filter((f) => !given.has(key(f)));
  return [...files, ...cluster].filter(isOthers);
}

/**
 * Whether two EnvoyFilters can reach the same proxies: Istio applies one of the root namespace to every proxy,
 * any other only to the proxies of its own namespace (a workloadSelector narrows further; not read here).
 */
export function sameProxies(a: EnvoyFilterFacts, b: EnvoyFilterFacts, rootNamespace: string): boolean {
  return a.namespace === rootNamespace || b.namespace === rootNamespace || a.namespace === b.namespace;
}
