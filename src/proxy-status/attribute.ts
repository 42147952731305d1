import { SOURCE_ANNOTATION } from '../model/constants.ts';
import type {
  ListenerRejection,
  ListenerRejectionReason,
  ProxyListenerRejection,
} from '../model/listener-rejections.ts';
import { WAYPOINT_LISTENER } from '../model/ambient/names.ts';
import type { EnvoyFilterObject } from '../model/objects.ts';
import type { ProxySync } from './decode.ts';
import {
  isWaypoint,
  ofWaypoint,
  rejectedChains,
  waypointTargetsOf,
  type WaypointTargets,
} from './waypoint.ts';

/** What one EnvoyFilter of this controller patches, and where it applies. */
interface FilterRef {
  readonly source: string;
  /** The EnvoyFilter's namespace; undefined = the root namespace (applies to every proxy). */
  readonly namespace: string | undefined;
  readonly listeners: ReadonlySet<string>;
  /** Filter names and config type URLs (without prefix) of its patches. */
  readonly filters: ReadonlySet<string>;
  /** The filter chains its patches match by name (a waypoint's `inbound-vip|<port>|tcp|<host>`). */
  readonly chains: ReadonlySet<string>;
  /** With `targetRefs`: the waypoints it reaches (waypoint.ts); it never applies to a sidecar then. */
  readonly waypoint?: WaypointTargets;
}

/** The desired EnvoyFilters indexed by the listener names, ports and filter names / type URLs they patch. */
export interface FilterIndex {
  readonly byListener: ReadonlyMap<string, readonly FilterRef[]>;
  /** Patches that match a listener by port only (`portNumber`), by port. */
  readonly byPort: ReadonlyMap<number, readonly FilterRef[]>;
  /** By filter name (`envoy.filters.network.meta_protocol_proxy`) and by config type URL (without prefix). */
  readonly byFilter: ReadonlyMap<string, readonly FilterRef[]>;
  /** The EnvoyFilters with `targetRefs` (waypoint filters), in input order. */
  readonly waypointFilters: readonly FilterRef[];
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (!list) m.set(k, [v]);
  else if (list[list.length - 1] !== v) list.push(v);
}

const TYPE_PREFIX = 'type.googleapis.com/';
const stripType = (t: string): string => (t.startsWith(TYPE_PREFIX) ? t.slice(TYPE_PREFIX.length) : t);

/** Indexes the EnvoyFilters this controller writes (those with a source annotation). */
export function indexEnvoyFilters(filters: readonly EnvoyFilterObject[], rootNamespace: string): FilterIndex {
  const byListener = new Map<string, FilterRef[]>();
  const byPort = new Map<number, FilterRef[]>();
  const byFilter = new Map<string, FilterRef[]>();
  const waypointFilters: FilterRef[] = [];
  for (const ef of filters) {
    const source = ef.metadata.annotations?.[SOURCE_ANNOTATION];
    if (!source) continue;
    const listeners = new Set<string>();
    const ports: number[] = [];
    const filterKeys = new Set<string>();
    const chains = new Set<string>();
    for (const p of ef.spec.configPatches) {
      const listener = p.match?.['listener'] as
        { name?: unknown; portNumber?: unknown; filterChain?: { name?: unknown } } | undefined;
      if (typeof listener?.filterChain?.name === 'string') chains.add(listener.filterChain.name);
      if (typeof listener?.name === 'string') listeners.add(listener.name);
      else if (typeof listener?.portNumber === 'number') ports.push(listener.portNumber);
      const value = p.patch.value as
        { name?: unknown; typed_config?: { '@type'?: unknown; type_url?: unknown } } | undefined;
      if (typeof value?.name === 'string') filterKeys.add(value.name);
      const tc = value?.typed_config;
      if (typeof tc?.type_url === 'string') filterKeys.add(stripType(tc.type_url));
      if (typeof tc?.['@type'] === 'string') filterKeys.add(stripType(tc['@type']));
    }
    const ns = ef.metadata.namespace;
    const waypoint = waypointTargetsOf(ef, rootNamespace);
    const ref: FilterRef = {
      source,
      namespace: ns === rootNamespace ? undefined : ns,
      listeners,
      filters: filterKeys,
      chains,
      ...(waypoint ? { waypoint } : {}),
    };
    if (waypoint) {
      waypointFilters.push(ref);
      continue;
    }
    for (const l of listeners) push(byListener, l, ref);
    for (const port of ports) push(byPort, port, ref);
    for (const f of filterKeys) push(byFilter, f, ref);
  }
  return { byListener, byPort, byFilter, waypointFilters };
}

const LISTENER_PREFIX = 'Error adding/updating listener(s) ';
const LACKS = /Didn't find a registered implementation for '([^']+)'(?: with type URL: '([^']+)')?/;
const LISTENER_NAME = /(?:^|\n|, )([^\s,]+?): /g;

/** The listener names an Envoy LDS rejection names (`Error adding/updating listener(s) a: ...\nb: ...`). */
export function rejectedListeners(message: string): string[] {
  const at = message.indexOf(LISTENER_PREFIX);
  if (at < 0) return [];
  const rest = message.slice(at + LISTENER_PREFIX.length);
  const out: string[] = [];
  LISTENER_NAME.lastIndex = 0;
  for (let m = LISTENER_NAME.exec(rest); m; m = LISTENER_NAME.exec(rest)) {
    if (/^[\w.:[\]-]+$/.test(m[1]!) && /\d$|^virtual|^main_internal$/.test(m[1]!)) out.push(m[1]!);
  }
  return out;
}

function portOf(listener: string): number | undefined {
  const m = /_(\d+)$/.exec(listener);
  return m ? Number(m[1]) : undefined;
}

interface Acc {
  source: string;
  reason: ListenerRejectionReason;
  proxies: number;
  namespaces: Set<string>;
  firstProxy: string;
  firstError: string;
  filter: string | undefined;
}

/**
 * Attributes one proxy's listener rejection (LDS `ERROR` with its detail) to the source objects of the EnvoyFilters
 * that patch the named listener, or that carry the filter the proxy has no implementation of. An EnvoyFilter in
 * the root namespace applies to every sidecar, another to its namespace's; an EnvoyFilter with `targetRefs` only to
 * the waypoints it reaches, for a rejection of `main_internal` or of the chain it patches (waypoint.ts, waypointRefs).
 * Undefined when the proxy rejects nothing or nothing of this controller.
 */
export function attributeProxy(p: ProxySync, index: FilterIndex): ProxyListenerRejection | undefined {
  if (p.listeners !== 'ERROR' || !p.listenerError) return undefined;
  const applies = (ref: FilterRef): boolean => ref.namespace === undefined || ref.namespace === p.namespace;
  const error = p.listenerError;
  const listeners = rejectedListeners(error);
  const chains = rejectedChains(error);
  const sources = new Set<string>();
  let reason: ListenerRejectionReason = 'ProxyRejected';
  let filter: string | undefined;
  const lacks = LACKS.exec(error);
  if (isWaypoint(p, listeners, chains)) {
    filter = lacks?.[1];
    if (lacks) reason = 'ProxyLacksExtension';
    for (const r of waypointRefs(p, index, { listeners, chains }, lacks)) sources.add(r.source);
  } else if (lacks) {
    reason = 'ProxyLacksExtension';
    filter = lacks[1]!;
    const name = stripType(lacks[1]!);
    const typeUrl = lacks[2] ? stripType(lacks[2]) : undefined;
    const carries = (r: FilterRef): boolean =>
      applies(r) && (r.filters.has(name) || (typeUrl !== undefined && r.filters.has(typeUrl)));
    // The EnvoyFilters carrying the filter on a listener the message names; else every one carrying it.
    for (const l of listeners) {
      for (const r of index.byListener.get(l) ?? []) if (carries(r)) sources.add(r.source);
    }
    if (sources.size === 0) {
      for (const key of typeUrl !== undefined ? [name, typeUrl] : [name]) {
        for (const r of index.byFilter.get(key) ?? []) if (carries(r)) sources.add(r.source);
      }
    }
  } else {
    for (const l of listeners) {
      for (const r of index.byListener.get(l) ?? []) if (applies(r)) sources.add(r.source);
      const port = portOf(l);
      if (port !== undefined) {
        for (const r of index.byPort.get(port) ?? []) if (applies(r)) sources.add(r.source);
      }
    }
  }
  if (sources.size === 0) return undefined;
  return {
    id: p.id,
    namespace: p.namespace,
    reason,
    listeners,
    ...(filter !== undefined ? { filter } : {}),
    errorDetail: error,
    sources: [...sources].sort(),
  };
}

/**
 * The waypoint filters a waypoint's rejection is attributed to, of those it takes (waypoint.ts ofWaypoint), and for
 * a missing implementation only those carrying that filter: the ones patching a chain the message names; when it
 * names no chain, every one when it names `main_internal` (or, for a missing implementation, no listener at all).
 */
function waypointRefs(
  p: ProxySync,
  index: FilterIndex,
  named: { readonly listeners: readonly string[]; readonly chains: readonly string[] },
  lacks: RegExpExecArray | null,
): FilterRef[] {
  let refs = ofWaypoint(p, index.waypointFilters);
  if (lacks) {
    const name = stripType(lacks[1]!);
    const typeUrl = lacks[2] ? stripType(lacks[2]) : undefined;
    refs = refs.filter((r) => r.filters.has(name) || (typeUrl !== undefined && r.filters.has(typeUrl)));
  }
  if (named.chains.length > 0) return refs.filter((r) => named.chains.some((c) => r.chains.has(c)));
  if (named.listeners.includes(WAYPOINT_LISTENER)) return refs;
  return lacks && named.listeners.length === 0 ? refs : [];
}

/** The proxies' attributed rejections (attributeProxy), in the answer's order. Pure. */
export function attributeProxies(
  proxies: readonly ProxySync[],
  index: FilterIndex,
): ProxyListenerRejection[] {
  const out: ProxyListenerRejection[] = [];
  for (const p of proxies) {
    const r = attributeProxy(p, index);
    if (r) out.push(r);
  }
  return out;
}

/**
 * The attributed rejections per source object and reason: how many proxies, their namespaces, the first proxy (in
 * `byProxy` order) and its error. Pure; the result is sorted by source and reason.
 */
export function rejectionsBySource(byProxy: readonly ProxyListenerRejection[]): ListenerRejection[] {
  const acc = new Map<string, Acc>();
  for (const p of byProxy) {
    for (const source of p.sources) {
      const key = `${source}\n${p.reason}`;
      const a = acc.get(key);
      if (a) {
        a.proxies++;
        a.namespaces.add(p.namespace);
      } else {
        acc.set(key, {
          source,
          reason: p.reason,
          proxies: 1,
          namespaces: new Set([p.namespace]),
          firstProxy: p.id,
          firstError: p.errorDetail,
          filter: p.filter,
        });
      }
    }
  }
  return [...acc.values()]
    .sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : a.reason < b.reason ? -1 : 1))
    .map((a) => ({
      source: a.source,
      reason: a.reason,
      proxies: a.proxies,
      namespaces: [...a.namespaces].sort(),
      firstProxy: a.firstProxy,
      firstError: a.firstError,
      ...(a.filter !== undefined ? { filter: a.filter } : {}),
    }));
}

/**
 * Every listener rejection istiod reports, attributed to this controller's source objects (attributeProxy) and
 * counted per source and reason (rejectionsBySource). Rejections of listeners no EnvoyFilter here patches are
 * left out. Pure; the result is sorted by source and reason.
 */
export function attributeRejections(proxies: readonly ProxySync[], index: FilterIndex): ListenerRejection[] {
  return rejectionsBySource(attributeProxies(proxies, index));
}
