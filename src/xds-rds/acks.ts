import { compareStrings } from '../model/order.ts';
import type { ProxyReport, RouteAckState } from '../model/route-acks.ts';
import { systemClock, type Clock } from '../util/clock.ts';

/** Rejection details (`error_detail.message`) are kept up to this many characters. */
export const MAX_ERROR_DETAIL = 1024;

/** Where one route stands on one stream, for the version last sent there. */

/** One route on one stream: the version last sent, the version the proxy has, the last rejection. */
export interface RouteAck {
  /** The resource version last sent ('' when the proxy declared a version it had and nothing was sent). */
  sent: string;
  /** ms (tracker clock) when `sent` was first sent. */
  sentAt: number;
  /** The nonce of the response that last carried the route. */
  sentNonce: string;
  state: RouteAckState;
  /** The last version the proxy acknowledged (or declared it has), if any. */
  acked?: string;
  /** The last rejection, until a later ACK of the route clears it. */
  rejected?: { readonly version: string; readonly detail: string; readonly at: number };
  /**
   * The scope of a waypoint's ADS resource other than a RouteConfiguration (e.g. `listener`): kept and reported
   * with the stream (as `<scope>/<name>`), not counted in the per-route aggregates, metrics and MetaRouter status.
   */
  scope?: string;
}

/** The key of a resource of `scope` ('' = an RDS RouteConfiguration) in a stream's entries. */
export function scopedName(scope: string, name: string): string {
  return scope === '' ? name : `${scope}/${name}`;
}

/** Per route configuration, over every stream subscribed to it. */
export interface RouteAckSummary {
  readonly name: string;
  /** Streams that were sent the route (or declared they have it) and are still connected. */
  readonly subscribed: number;
  readonly acked: number;
  readonly pending: number;
  /** ms since the oldest pending version was sent; 0 without pending proxies. */
  readonly oldestPendingMs: number;
  readonly rejected: number;
  /** The earliest of the current rejections: the proxy's node id (or peer identity) and the error detail. */
  readonly firstRejection?: { readonly proxy: string; readonly version: string; readonly detail: string };
}

interface RouteAggregate {
  readonly entries: Map<StreamAcks, RouteAck>;
  pending: number;
  acked: number;
  rejected: number;
  /** When the change that led to the version being pushed happened (tracker clock), until every proxy ACKed it. */
  changeAt?: number;
}

/** Bound of the responses a stream may leave unanswered before the oldest are forgotten (they stay pending). */
const MAX_IN_FLIGHT = 64;

/**
 * The namespace of a proxy: from a SPIFFE peer (`spiffe://<td>/ns/<ns>/sa/<sa>`), else from an Istio node id
 * (`sidecar~<ip>~<pod>.<ns>~<ns>.svc.cluster.local`).
 */
export function proxyNamespace(nodeId: string, peer: string): string | undefined {
  const spiffe = /^spiffe:\/\/[^/]+\/ns\/([^/]+)\//.exec(peer);
  if (spiffe) return spiffe[1];
  const parts = nodeId.split('~');
  if (parts.length === 4) {
    const dot = parts[2]!.indexOf('.');
    if (dot > 0) return parts[2]!.slice(dot + 1);
  }
  return undefined;
}

/**
 * What each RDS stream was sent, acknowledged and rejected, route by route, and the same per route configuration
 * over every stream. Fed by the streams (one StreamAcks each); every update costs O(routes in the response or
 * answer), counts per route and the gauges are kept as they change (no scans per ACK). Summaries that need the
 * oldest pending time or the first rejection scan only the streams of the routes asked about.
 */
export class AckTracker {
  private readonly routes = new Map<string, RouteAggregate>();
  private readonly streams = new Set<StreamAcks>();
  private rejectedRoutes = 0;
  private rejectingStreams = 0;
  readonly clock: Clock;
  /** Called once per noted change (`noteChange`) when every subscribed proxy acknowledged it: ms from the change. */
  onAllAcked: ((ms: number) => void) | undefined;
  /**
   * Called after every change of where a route stands on a stream (sent, acknowledged, rejected, forgotten): the
   * status of the MetaRouters built into `route` may change. Cheap callers only (the status controller debounces
   * its trigger).
   */
  onStateChange: ((route: string) => void) | undefined;

  constructor(options: { readonly clock?: Clock; readonly onAllAcked?: (ms: number) => void } = {}) {
    this.clock = options.clock ?? systemClock;
    this.onAllAcked = options.onAllAcked;
  }

  /** A new stream's record; `close()` it when the stream ends. */
  open(peer: string, protocol: 'sotw' | 'delta'): StreamAcks {
    const s = new StreamAcks(this, peer, protocol, this.clock.now());
    this.streams.add(s);
    return s;
  }

  /** Route configurations with at least one rejecting proxy (`aeraki_route_configs_rejected`). */
  get routeConfigsRejected(): number {
    return this.rejectedRoutes;
  }

  /** Connected proxies rejecting at least one route (`aeraki_proxies_rejecting_routes`). */
  get proxiesRejecting(): number {
    return this.rejectingStreams;
  }

  get streamCount(): number {
    return this.streams.size;
  }

  /** Route configurations some open stream was sent (or declared it has). */
  get routeCount(): number {
    return this.routes.size;
  }

  /**
   * The routes `names` got a new version from a change at `at` (ms, same clock as the tracker's; the oldest store
   * event of the rebuild). Call after the cache pushed them; `onAllAcked` reports the time once every subscribed
   * proxy acknowledged the route's new version. Routes nobody subscribes to are not measured.
   */
  noteChange(names: readonly string[], at: number): void {
    for (const name of names) {
      const agg = this.routes.get(name);
      if (!agg || agg.entries.size === 0) continue;
      agg.changeAt = at;
      this.checkComplete(agg);
    }
  }

  summary(name: string): RouteAckSummary | undefined {
    const agg = this.routes.get(name);
    if (!agg) return undefined;
    const now = this.clock.now();
    let oldest: number | undefined;
    let first: { s: StreamAcks; e: RouteAck } | undefined;
    if (agg.pending > 0 || agg.rejected > 0) {
      for (const [s, e] of agg.entries) {
        if (e.state === 'pending' && (oldest === undefined || e.sentAt < oldest)) oldest = e.sentAt;
        if (e.state === 'rejected' && (!first || e.rejected!.at < first.e.rejected!.at)) first = { s, e };
      }
    }
    return {
      name,
      subscribed: agg.entries.size,
      acked: agg.acked,
      pending: agg.pending,
      oldestPendingMs: oldest === undefined ? 0 : Math.max(0, now - oldest),
      rejected: agg.rejected,
      ...(first
        ? {
            firstRejection: {
              proxy: first.s.nodeId || first.s.peer,
              version: first.e.rejected!.version,
              detail: first.e.rejected!.detail,
            },
          }
        : {}),
    };
  }

  /** When (ms, tracker clock) the oldest version still pending for `name` was sent; undefined without any. */
  oldestPendingAt(name: string): number | undefined {
    const agg = this.routes.get(name);
    if (!agg || agg.pending === 0) return undefined;
    let oldest: number | undefined;
    for (const e of agg.entries.values()) {
      if (e.state === 'pending' && (oldest === undefined || e.sentAt < oldest)) oldest = e.sentAt;
    }
    return oldest;
  }

  /** Every route configuration some connected proxy was sent, in name order. */
  summaries(): RouteAckSummary[] {
    return [...this.routes.keys()].sort(compareStrings).map((n) => this.summary(n)!);
  }

  /** Every connected proxy and its routes (/debug/proxies), by node id then peer. */
  proxies(): ProxyReport[] {
    const reports = [...this.streams].map((s) => s.report());
    return reports.sort(
      (a, b) =>
        compareStrings(a.nodeId, b.nodeId) ||
        compareStrings(a.peer, b.peer) ||
        compareStrings(a.connectedSince, b.connectedSince),
    );
  }

  /** @internal: a stream's entry for `name` moved from `from` (undefined: new) to `to` (undefined: gone). */
  transition(
    s: StreamAcks,
    name: string,
    e: RouteAck,
    from: RouteAckState | undefined,
    to: RouteAckState | undefined,
  ): void {
    let agg = this.routes.get(name);
    if (!agg) {
      if (to === undefined) return;
      this.routes.set(name, (agg = { entries: new Map(), pending: 0, acked: 0, rejected: 0 }));
    }
    const wasRejected = agg.rejected > 0;
    if (from !== undefined) agg[from]--;
    if (to !== undefined) {
      agg[to]++;
      agg.entries.set(s, e);
    } else agg.entries.delete(s);
    if (from === 'rejected') s.rejecting--;
    if (to === 'rejected') s.rejecting++;
    if (from === 'rejected' && to !== 'rejected' && s.rejecting === 0) this.rejectingStreams--;
    if (to === 'rejected' && from !== 'rejected' && s.rejecting === 1) this.rejectingStreams++;
    if (wasRejected !== agg.rejected > 0) this.rejectedRoutes += wasRejected ? -1 : 1;
    if (agg.entries.size === 0) this.routes.delete(name);
    else if (to !== 'pending') this.checkComplete(agg);
    this.onStateChange?.(name);
  }

  /** @internal */
  closed(s: StreamAcks): void {
    this.streams.delete(s);
  }

  private checkComplete(agg: RouteAggregate): void {
    if (agg.changeAt === undefined || agg.acked !== agg.entries.size) return;
    const ms = Math.max(0, this.clock.now() - agg.changeAt);
    delete agg.changeAt;
    this.onAllAcked?.(ms);
  }
}

/** One stream's routes: what it was sent, and its answers. */
export class StreamAcks {
  nodeId = '';
  /** @internal: routes in state rejected. */
  rejecting = 0;
  private readonly entries = new Map<string, RouteAck>();
  /** nonce -> scope and keys the response carried, until answered (or pushed out past MAX_IN_FLIGHT). */
  private readonly inFlight = new Map<string, { readonly scope: string; readonly keys: readonly string[] }>();
  private closedFlag = false;
  /**
   * The RouteConfiguration names the stream subscribes to now (set by the stream; read only by `report()`): those
   * it was never sent, or no longer has, are reported as not sent.
   */
  subscription: () => Iterable<string> = () => [];

  constructor(
    private readonly tracker: AckTracker,
    readonly peer: string,
    readonly protocol: 'sotw' | 'delta',
    readonly openedAt: number,
  ) {}

  /**
   * A response `nonce` carried these resources. `full` (SotW): the response is the stream's whole set of its
   * scope, so resources of the scope it does not carry are gone from the stream; an older unanswered response of
   * the scope is superseded. `scope`: '' for RouteConfigurations, else a waypoint resource type (RouteAck.scope).
   */
  sent(
    nonce: string,
    resources: readonly { readonly name: string; readonly version: string }[],
    full: boolean,
    scope = '',
  ): void {
    if (this.closedFlag) return;
    const now = this.tracker.clock.now();
    const keys = resources.map((r) => scopedName(scope, r.name));
    if (full) {
      for (const [n, f] of [...this.inFlight]) if (f.scope === scope) this.inFlight.delete(n);
      const carried = new Set(keys);
      for (const [key, e] of [...this.entries]) {
        if ((e.scope ?? '') === scope && !carried.has(key)) this.forgetKey(key);
      }
    }
    for (const [i, { version }] of resources.entries()) {
      const name = keys[i]!;
      const e = this.entries.get(name);
      if (!e) {
        const fresh: RouteAck = { sent: version, sentAt: now, sentNonce: nonce, state: 'pending' };
        if (scope !== '') fresh.scope = scope;
        this.entries.set(name, fresh);
        this.transition(name, fresh, undefined, 'pending');
        continue;
      }
      e.sentNonce = nonce;
      if (e.sent === version) continue; // the same version again (SotW resends the whole set): state stands
      e.sent = version;
      e.sentAt = now;
      this.move(name, e, 'pending');
    }
    this.inFlight.set(nonce, { scope, keys });
    if (this.inFlight.size > MAX_IN_FLIGHT) this.inFlight.delete(this.inFlight.keys().next().value!);
  }

  /** Delta: the proxy declared it has `version` of `name` and nothing was sent for it. */
  has(name: string, version: string, scope = ''): void {
    const key = scopedName(scope, name);
    if (this.closedFlag || this.entries.has(key)) return;
    const e: RouteAck = { sent: version, sentAt: this.tracker.clock.now(), sentNonce: '', state: 'acked' };
    e.acked = version;
    if (scope !== '') e.scope = scope;
    this.entries.set(key, e);
    this.transition(key, e, undefined, 'acked');
  }

  /** The proxy ACKed response `nonce`. */
  ack(nonce: string): void {
    for (const [name, e] of this.answered(nonce)) {
      e.acked = e.sent;
      delete e.rejected;
      this.move(name, e, 'acked');
    }
  }

  /**
   * The proxy NACKed response `nonce` with `detail` (kept up to MAX_ERROR_DETAIL characters). A SotW response
   * carries every route: the ones whose version the proxy had not acknowledged are the rejected ones (all of them
   * when it had acknowledged each).
   */
  nack(nonce: string, detail: string): void {
    const answered = this.answered(nonce);
    const unacked = answered.filter(([, e]) => e.acked !== e.sent);
    const rejected = unacked.length > 0 ? unacked : answered;
    const at = this.tracker.clock.now();
    const text = detail.slice(0, MAX_ERROR_DETAIL);
    for (const [name, e] of rejected) {
      e.rejected = { version: e.sent, detail: text, at };
      this.move(name, e, 'rejected');
    }
  }

  /** The stream no longer has `name` of `scope` (unsubscribed, or removed from the proxy). */
  forget(name: string, scope = ''): void {
    this.forgetKey(scopedName(scope, name));
  }

  private forgetKey(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.transition(key, e, e.state, undefined);
  }

  /** Only RouteConfigurations count in the tracker's per-route aggregates. */
  private transition(
    key: string,
    e: RouteAck,
    from: RouteAckState | undefined,
    to: RouteAckState | undefined,
  ): void {
    if (e.scope === undefined) this.tracker.transition(this, key, e, from, to);
  }

  /** The stream ended: none of its routes count any more. Idempotent. */
  close(): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    for (const key of [...this.entries.keys()]) this.forgetKey(key);
    this.inFlight.clear();
    this.tracker.closed(this);
  }

  report(): ProxyReport {
    const namespace = proxyNamespace(this.nodeId, this.peer);
    const notSent = this.notSent();
    return {
      nodeId: this.nodeId,
      peer: this.peer,
      ...(namespace !== undefined ? { namespace } : {}),
      protocol: this.protocol,
      connectedSince: new Date(this.openedAt).toISOString(),
      routes: [...this.entries]
        .sort(([a], [b]) => compareStrings(a, b))
        .map(([name, e]) => ({
          name,
          state: e.state,
          sent: e.sent,
          ...(e.acked !== undefined ? { acked: e.acked } : {}),
          ...(e.rejected
            ? { rejected: { version: e.rejected.version, errorDetail: e.rejected.detail } }
            : {}),
        })),
      ...(notSent.length > 0 ? { notSent } : {}),
    };
  }

  /** Subscribed RouteConfiguration names the stream does not have from this server, sorted. */
  private notSent(): string[] {
    const out: string[] = [];
    for (const name of this.subscription()) if (!this.entries.has(name)) out.push(name);
    return out.sort(compareStrings);
  }

  /** The entries response `nonce` carried that still stand as it sent them; forgets the nonce. */
  private answered(nonce: string): [string, RouteAck][] {
    if (this.closedFlag) return [];
    const names = this.inFlight.get(nonce)?.keys;
    if (!names) return [];
    this.inFlight.delete(nonce);
    const out: [string, RouteAck][] = [];
    for (const name of names) {
      const e = this.entries.get(name);
      if (e && e.sentNonce === nonce) out.push([name, e]);
    }
    return out;
  }

  private move(name: string, e: RouteAck, to: RouteAckState): void {
    const from = e.state;
    if (from === to) return;
    e.state = to;
    this.transition(name, e, from, to);
  }
}
