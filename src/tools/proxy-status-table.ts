/**
 * `aeraki proxy-status` as data and text: the `/debug/proxies` document (proxies-document.ts) summed up per source
 * object and per proxy, and printed as tables as `istioctl proxy-status` prints istiod's view. Pure functions.
 */
import type { ProxyListenerRejection } from '../model/listener-rejections.ts';
import type { ProxiesDocument, ProxyDoc, RouteState } from './proxies-document.ts';

/** Where the proxies stand on what one source object (MetaRouter, ServiceEntry, ...) made. */
export interface SourceRow {
  /** `MetaRouter/<ns>/<name>`, `ServiceEntry/<ns>/<name>`, or `RouteConfiguration/<name>` when the origin is unknown. */
  readonly source: string;
  /** RDS proxies whose every route of this source is acknowledged; undefined when no RDS proxy has its routes. */
  readonly acked?: number;
  /** RDS proxies with a route of this source still unanswered (and none rejected); undefined as above. */
  readonly pending?: number;
  /**
   * RDS proxies subscribed to a route of this source that they were not sent (the server holds none of that name:
   * istioctl's NOT SENT), each counted once.
   */
  readonly notSent: number;
  /** Proxies rejecting a route of it (RDS) or a listener its EnvoyFilters patch (istiod), each counted once. */
  readonly rejected: number;
  /** The first rejection: the proxy, what it rejected and Envoy's message. */
  readonly firstError?: RejectionText;
}

export interface RejectionText {
  readonly proxy: string;
  /** `route <name>` or the listener rejection's reason (`ProxyRejected`, `ProxyLacksExtension`). */
  readonly what: string;
  readonly detail: string;
}

/** One proxy: its routes by state (RDS) and whether istiod reported it rejecting a listener of this controller. */
export interface ProxyRow {
  readonly id: string;
  readonly namespace: string;
  readonly routes: number;
  readonly acked: number;
  readonly pending: number;
  /** Routes it subscribes to and was not sent (NOT SENT). */
  readonly notSent: number;
  readonly rejected: number;
  /** Source objects whose listeners it rejects (istiod's view). */
  readonly listenerSources: readonly string[];
  readonly firstError?: RejectionText;
}

const RANK: Record<RouteState, number> = { acked: 0, pending: 1, rejected: 2 };

/** The object route `name` comes from, by the document's `routes` list. */
function originsOf(doc: ProxiesDocument): (route: string) => string {
  const origins = new Map(doc.routes.map((r) => [r.name, r.source]));
  return (route) => origins.get(route) ?? `RouteConfiguration/${route}`;
}

const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function addTo(map: Map<string, Set<string>>, key: string, value: string): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set<string>()));
  set.add(value);
}

/** One row per source object, sorted: each proxy counts once per source, in its worst state there. */
export function sourceRows(doc: ProxiesDocument): SourceRow[] {
  const origin = originsOf(doc);
  const states = new Map<string, Map<string, RouteState>>();
  const errors = new Map<string, RejectionText>();
  for (const p of doc.proxies) {
    for (const r of p.routes) {
      const source = origin(r.name);
      let perProxy = states.get(source);
      if (!perProxy) states.set(source, (perProxy = new Map<string, RouteState>()));
      const was = perProxy.get(p.nodeId);
      if (was === undefined || RANK[r.state] > RANK[was]) perProxy.set(p.nodeId, r.state);
      if (r.rejected && !errors.has(source)) {
        errors.set(source, { proxy: proxyName(p), what: `route ${r.name}`, detail: r.rejected.errorDetail });
      }
    }
  }
  const notSent = new Map<string, Set<string>>();
  for (const p of doc.proxies) {
    for (const name of p.notSent ?? []) addTo(notSent, origin(name), proxyName(p));
  }
  const listenerRejecting = new Map<string, Set<string>>();
  for (const p of doc.listenerRejections?.proxies ?? []) {
    for (const source of p.sources) {
      let ids = listenerRejecting.get(source);
      if (!ids) listenerRejecting.set(source, (ids = new Set<string>()));
      ids.add(p.id);
      if (!errors.has(source)) errors.set(source, { proxy: p.id, what: p.reason, detail: p.errorDetail });
    }
  }
  const sources = [...new Set([...states.keys(), ...notSent.keys(), ...listenerRejecting.keys()])].sort(
    byText,
  );
  return sources.map((source) => {
    const perProxy = states.get(source);
    const rejecting = new Set(listenerRejecting.get(source));
    let acked = 0;
    let pending = 0;
    for (const [id, state] of perProxy ?? []) {
      if (state === 'rejected' || rejecting.has(id)) rejecting.add(id);
      else if (state === 'pending') pending++;
      else acked++;
    }
    const error = errors.get(source);
    return {
      source,
      ...(perProxy ? { acked, pending } : {}),
      notSent: notSent.get(source)?.size ?? 0,
      rejected: rejecting.size,
      ...(error ? { firstError: error } : {}),
    };
  });
}

/** One row per proxy (RDS streams of one node id merged, and the proxies istiod reports rejecting), by id. */
export function proxyRows(doc: ProxiesDocument): ProxyRow[] {
  const rows = new Map<string, { -readonly [K in keyof ProxyRow]: ProxyRow[K] }>();
  const row = (id: string, namespace: string) => {
    let r = rows.get(id);
    if (!r)
      rows.set(
        id,
        (r = {
          id,
          namespace,
          routes: 0,
          acked: 0,
          pending: 0,
          notSent: 0,
          rejected: 0,
          listenerSources: [],
        }),
      );
    return r;
  };
  for (const p of doc.proxies) {
    const r = row(p.nodeId || p.peer, p.namespace ?? '');
    for (const route of p.routes) {
      r.routes++;
      r[route.state]++;
      if (route.rejected && !r.firstError) {
        r.firstError = { proxy: r.id, what: `route ${route.name}`, detail: route.rejected.errorDetail };
      }
    }
    r.routes += p.notSent?.length ?? 0;
    r.notSent += p.notSent?.length ?? 0;
  }
  for (const p of doc.listenerRejections?.proxies ?? []) {
    const r = row(p.id, p.namespace);
    r.listenerSources = [...new Set([...r.listenerSources, ...p.sources])].sort(byText);
    r.firstError ??= { proxy: p.id, what: p.reason, detail: p.errorDetail };
  }
  return [...rows.values()].sort((a, b) => byText(a.id, b.id));
}

/** Everything the document says about one proxy: `name` is its id, node id, or short name (`<pod>.<ns>`). */
export interface ProxyDetail {
  readonly id: string;
  readonly streams: readonly ProxyDoc[];
  readonly listeners?: ProxyListenerRejection;
}

export function proxyDetail(doc: ProxiesDocument, name: string): ProxyDetail | undefined {
  const matches = (id: string): boolean => id === name || shortName(id) === name;
  const streams = doc.proxies.filter((p) => matches(p.nodeId) || p.peer === name);
  const listeners = doc.listenerRejections?.proxies.find((p) => matches(p.id));
  const id = streams[0]?.nodeId || streams[0]?.peer || listeners?.id;
  if (id === undefined) return undefined;
  return { id, streams, ...(listeners ? { listeners } : {}) };
}

/** `<pod>.<ns>` of an Istio node id (`sidecar~<ip>~<pod>.<ns>~<ns>.svc.<domain>`); else the id itself. */
export function shortName(id: string): string {
  const parts = id.split('~');
  return parts.length === 4 && parts[2] ? parts[2] : id;
}

const proxyName = (p: ProxyDoc): string => p.nodeId || p.peer;

/** The terminal-friendly width of an error cell (`-o wide` prints it whole). */
export const ERROR_WIDTH = 60;

/** `text` on one line, cut to `width` characters with `...` (no cut when width is undefined). */
export function oneLine(text: string, width?: number): string {
  const line = text.replace(/\s*\n\s*/g, ' ').trim();
  return width === undefined || line.length <= width ? line : `${line.slice(0, width - 3)}...`;
}

/** Columns left-aligned, separated by three spaces, as kubectl and istioctl print them. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('   ')
      .trimEnd();
  return [headers, ...rows].map(line).join('\n') + '\n';
}

const count = (n: number | undefined): string => (n === undefined ? '-' : String(n));

/**
 * Wide: the whole proxy id (unless the row is the proxy's), what it rejected and the whole message; else the short
 * name (unless the row is the proxy's) and the message, cut.
 */
function errorCell(e: RejectionText | undefined, wide: boolean, proxyRow = false): string {
  if (!e) return '';
  if (wide) return oneLine(`${proxyRow ? '' : `${e.proxy}: `}${e.what}: ${e.detail}`);
  return oneLine(`${proxyRow ? '' : `${shortName(e.proxy)}: `}${e.detail}`, ERROR_WIDTH);
}

export function formatSources(rows: readonly SourceRow[], wide: boolean): string {
  return table(
    ['SOURCE', 'ACKED', 'PENDING', 'NOT SENT', 'REJECTED', 'FIRST ERROR'],
    rows.map((r) => [
      r.source,
      count(r.acked),
      count(r.pending),
      String(r.notSent),
      String(r.rejected),
      errorCell(r.firstError, wide),
    ]),
  );
}

export function formatProxies(rows: readonly ProxyRow[], wide: boolean): string {
  return table(
    ['PROXY', 'NAMESPACE', 'ROUTES', 'ACKED', 'PENDING', 'NOT SENT', 'REJECTED', 'LISTENERS', 'FIRST ERROR'],
    rows.map((r) => [
      wide ? r.id : shortName(r.id),
      r.namespace,
      String(r.routes),
      String(r.acked),
      String(r.pending),
      String(r.notSent),
      String(r.rejected),
      r.listenerSources.length > 0 ? 'REJECTED' : '-',
      errorCell(r.firstError, wide, true),
    ]),
  );
}

/** One proxy's streams and routes (with their source objects), and the listener rejection istiod reported. */
export function formatDetail(doc: ProxiesDocument, d: ProxyDetail, wide: boolean): string {
  const origin = originsOf(doc);
  const width = wide ? undefined : ERROR_WIDTH;
  let out = `Proxy: ${d.id}\n`;
  for (const s of d.streams) {
    out += `RDS stream (${s.protocol}) from ${s.peer}, namespace ${s.namespace ?? '-'}, since ${s.connectedSince}\n`;
    const sent = s.routes.map((r) => [
      r.name,
      origin(r.name),
      r.state.toUpperCase(),
      r.sent,
      r.acked ?? '-',
      r.rejected ? oneLine(`version ${r.rejected.version}: ${r.rejected.errorDetail}`, width) : '',
    ]);
    const notSent = (s.notSent ?? []).map((name) => [name, origin(name), 'NOT SENT', '-', '-', '']);
    const rows = [...sent, ...notSent].sort((a, b) => byText(a[0]!, b[0]!));
    out += table(['ROUTE', 'SOURCE', 'STATE', 'SENT', 'ACKED', 'ERROR'], rows);
  }
  if (d.streams.length === 0) out += 'RDS: not connected to this controller\n';
  const l = d.listeners;
  if (l) {
    out += `Listeners (istiod): ${l.reason} by ${l.sources.join(', ')}\n`;
    if (l.listeners.length > 0) out += `  listeners: ${l.listeners.join(', ')}\n`;
    if (l.filter !== undefined) out += `  filter: ${l.filter}\n`;
    out += `  error: ${oneLine(l.errorDetail, width)}\n`;
  } else if (doc.listenerRejections) {
    out += 'Listeners (istiod): no rejection of this controller reported\n';
  }
  return out;
}

/** What the tables cannot say: whether istiod was asked and answered (for stderr). */
export function notes(doc: ProxiesDocument): string[] {
  const out: string[] = [];
  const l = doc.listenerRejections;
  if (!l)
    out.push(
      'listener rejections: not asked (proxy status is off: --output kube and --proxy-status-interval)',
    );
  else if (l.state === 'refused')
    out.push('listener rejections: istiod refuses istio.io/debug/syncz (see the controller log)');
  else if (l.answeredAt === undefined)
    out.push(`listener rejections: istiod has not answered yet (${l.state})`);
  else if (l.state === 'unreachable')
    out.push(`listener rejections: istiod unreachable; last answer at ${l.answeredAt}`);
  if (l?.answeredAt !== undefined && l.form === 'status')
    out.push(
      'listener rejections: istiod answers istio.io/debug/syncz only, where a rejected push reads as stale: ' +
        'rejections without their message are not shown (docs/wire-formats.md)',
    );
  if (doc.proxies.length === 0 && (l?.proxies.length ?? 0) === 0)
    out.push('no proxy is connected to the RDS server');
  return out;
}
