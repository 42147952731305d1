import {
  CLUSTER_TYPE,
  DUBBO_ROUTE_TYPE,
  ENDPOINT_TYPE,
  LISTENER_TYPE,
  META_ROUTE_TYPE,
  THRIFT_ROUTE_TYPE,
  WAYPOINT_TYPES,
} from '../model/ambient/xds.ts';
import type { StreamAcks } from './acks.ts';
import { STATUS_PERMISSION_DENIED, STATUS_RESOURCE_EXHAUSTED } from './admission.ts';
import type { AdsCache, AdsWatcher } from './ads-cache.ts';
import type { AdsResource } from './ads-encode.ts';
import type { BudgetRefusal, StreamBudget } from './budgets.ts';
import { openStream, requestRefusal } from './request-checks.ts';
import {
  STATUS_INVALID_ARGUMENT,
  type DeltaRequest,
  type ErrorDetail,
  type StreamDeps,
} from './stream-types.ts';

/** NACK reasons are kept and logged up to this many characters. */
const MAX_REASON = 1024;

/** How each type's resources are named in the acknowledgement tracker ('' = an RDS RouteConfiguration). */
export const ACK_SCOPES: Readonly<Record<string, string>> = {
  [LISTENER_TYPE]: 'listener',
  [CLUSTER_TYPE]: 'cluster',
  [ENDPOINT_TYPE]: 'endpoints',
  [DUBBO_ROUTE_TYPE]: 'dubbo-routes',
  [THRIFT_ROUTE_TYPE]: 'thrift-routes',
  [META_ROUTE_TYPE]: '',
};

/** Where the last answer of a proxy to a type stands (WaypointPrograms reads it). */
export interface TypeStatus {
  readonly status: 'pending' | 'acked' | 'rejected';
  readonly detail?: string;
  /** ms (tracker clock) of the rejection. */
  readonly at?: number;
}

/** One type URL of one stream: its own subscription, nonce, version and answer (xds_protocol: per type). */
export class TypeSubscription {
  wildcard = false;
  readonly names = new Set<string>();
  /** SotW: name -> version last sent; delta: name -> version the client has. */
  readonly versions = new Map<string, string>();
  lastNonce = '';
  sentVersion = '';
  started = false;
  answer: TypeStatus = { status: 'pending' };
  constructor(readonly typeUrl: string) {}
}

/** Checks a Gateway's proxy: '' when `nodeCluster` may be served to the peer, else why not. */
export type GatewayCheck = (nodeCluster: string, peer: string) => { gateway: string } | { problem: string };

/** Told when a stream's answers or Gateway change (AdsPrograms). */
export interface ProgramSink {
  join(gateway: string, s: AdsStreamBase): void;
  leave(gateway: string, s: AdsStreamBase): void;
  changed(gateway: string): void;
}

export interface AdsStreamDeps extends Omit<StreamDeps, 'cache'> {
  readonly ads: AdsCache;
  readonly check: GatewayCheck;
  readonly programs?: ProgramSink;
}

/**
 * What SotW and delta ADS streams share (https://www.envoyproxy.io/docs/envoy/latest/api-docs/xds_protocol,
 * "Aggregated Discovery Service"): the Gateway the first request names (`node.cluster`, checked against the peer's
 * identity), one TypeSubscription per type URL (its own nonce, version and subscription, each answered on its own,
 * as go-control-plane keeps a watch per type, github.com/envoyproxy/go-control-plane 2b88c16,
 * pkg/server/sotw/v3/ads.go), the request checks, budgets, NACK accounting and sending the RDS streams use
 * (stream-base.ts). Changes are pushed in WAYPOINT_TYPES order (clusters, endpoints, then the listener and routes).
 */
export abstract class AdsStreamBase implements AdsWatcher {
  nodeId = '';
  gateway: string | undefined;
  protected readonly subs = new Map<string, TypeSubscription>();
  protected closed = false;
  private nonceCounter = 0;
  protected readonly acks: StreamAcks | undefined;
  protected readonly budget: StreamBudget;

  constructor(protected readonly deps: AdsStreamDeps) {
    ({ acks: this.acks, budget: this.budget } = openStream(deps, this.protocol()));
  }

  protected abstract protocol(): 'sotw' | 'delta';

  /** Pushes what changed of one type (a subscription that has started). */
  protected abstract push(sub: TypeSubscription, changed: readonly string[]): void;

  /** Where the proxy's last answer to `typeUrl` stands. */
  typeStatus(typeUrl: string): TypeStatus {
    return this.subs.get(typeUrl)?.answer ?? { status: 'pending' };
  }

  /**
   * Pushes each changed type in WAYPOINT_TYPES order (clusters, endpoints, listener, routes: what is referenced
   * first), except that clusters and endpoints that are only removed go last, once nothing refers to them any more
   * (xds_protocol, "Eventual consistency considerations": stale clusters and endpoints are removed after the
   * updates that stopped using them).
   */
  onAdsChanged(changed: ReadonlyMap<string, readonly string[]>): void {
    const later: [TypeSubscription, readonly string[]][] = [];
    for (const typeUrl of WAYPOINT_TYPES) {
      const names = changed.get(typeUrl);
      const sub = this.subs.get(typeUrl);
      if (!names || !sub?.started || this.closed) continue;
      const removalsOnly =
        (typeUrl === CLUSTER_TYPE || typeUrl === ENDPOINT_TYPE) && names.every((n) => !this.lookup(sub, n));
      if (removalsOnly) later.push([sub, names]);
      else this.push(sub, names);
    }
    for (const [sub, names] of later) if (!this.closed) this.push(sub, names);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const sub of this.subs.values()) this.unwatchAll(sub);
    this.subs.clear();
    this.budget.close();
    this.acks?.close();
    if (this.gateway !== undefined) this.deps.programs?.leave(this.gateway, this);
    this.deps.metrics.streamsActive--;
  }

  /**
   * Checks a request (decodable, sizes, names within budgets, type URL one of WAYPOINT_TYPES: ADS needs it on every
   * request), and on the first one the Gateway (`node.cluster` and the peer's identity); the stream's subscription
   * of the type, or undefined when the stream was ended (INVALID_ARGUMENT, RESOURCE_EXHAUSTED, PERMISSION_DENIED).
   */
  protected accept(
    req: { readonly resourceNames: readonly string[] } | DeltaRequest,
  ): TypeSubscription | undefined {
    if (this.closed) return undefined;
    const r = req as Parameters<typeof requestRefusal>[0];
    const refused = requestRefusal(r, this.budget);
    if (refused && 'problem' in refused) return this.refuse('ads: invalid request', refused.problem);
    if (refused) return this.exhausted(refused.overBudget);
    if (r.nodeId) {
      this.nodeId = r.nodeId;
      if (this.acks) this.acks.nodeId = r.nodeId;
    }
    if (this.gateway === undefined && !this.admitGateway(r.nodeCluster ?? '')) return undefined;
    if (!(WAYPOINT_TYPES as readonly string[]).includes(r.typeUrl)) {
      this.deps.metrics.rejectedTypeUrls++;
      return this.refuse('ads: unknown type URL', `unsupported type URL "${r.typeUrl.slice(0, 200)}"`);
    }
    let sub = this.subs.get(r.typeUrl);
    if (!sub) this.subs.set(r.typeUrl, (sub = new TypeSubscription(r.typeUrl)));
    return sub;
  }

  private admitGateway(nodeCluster: string): boolean {
    const verdict = this.deps.check(nodeCluster, this.deps.peer);
    if ('problem' in verdict) {
      this.deps.logger.warn('ads: proxy refused', {
        proxy: this.nodeId,
        peer: this.deps.peer,
        problem: verdict.problem,
      });
      this.close();
      this.deps.sink.fail(STATUS_PERMISSION_DENIED, verdict.problem);
      return false;
    }
    this.gateway = verdict.gateway;
    this.deps.programs?.join(verdict.gateway, this);
    return true;
  }

  /** Subscribes to / drops `added` / `removed` names of a named subscription, within the budgets. */
  protected rename(sub: TypeSubscription, added: readonly string[], removed: readonly string[]): boolean {
    let total = 0;
    for (const s of this.subs.values()) total += s.names.size;
    const refusal = this.budget.change(added, removed, total + added.length - removed.length);
    if (refusal) return this.exhausted(refusal) ?? false;
    for (const n of removed) {
      sub.names.delete(n);
      sub.versions.delete(n);
      this.deps.ads.unwatch(this.gateway!, sub.typeUrl, n, this);
      this.acks?.forget(n, ACK_SCOPES[sub.typeUrl]);
    }
    for (const n of added) {
      sub.names.add(n);
      this.deps.ads.watch(this.gateway!, sub.typeUrl, n, this);
    }
    return true;
  }

  protected setWildcard(sub: TypeSubscription, wildcard: boolean): void {
    if (sub.wildcard === wildcard) return;
    sub.wildcard = wildcard;
    if (wildcard) this.deps.ads.watch(this.gateway!, sub.typeUrl, undefined, this);
    else this.deps.ads.unwatch(this.gateway!, sub.typeUrl, undefined, this);
  }

  private unwatchAll(sub: TypeSubscription): void {
    this.setWildcard(sub, false);
    for (const n of sub.names) this.deps.ads.unwatch(this.gateway!, sub.typeUrl, n, this);
  }

  /** The resource `name` of the subscription's type, as the stream's Gateway serves it. */
  protected lookup(sub: TypeSubscription, name: string): AdsResource | undefined {
    return this.deps.ads.resource(this.gateway!, sub.typeUrl, name);
  }

  protected refuse(log: string, problem: string): undefined {
    this.deps.metrics.invalidRequests++;
    this.deps.logger.warn(log, { proxy: this.nodeId, peer: this.deps.peer, problem });
    this.close();
    this.deps.sink.fail(STATUS_INVALID_ARGUMENT, problem);
    return undefined;
  }

  protected exhausted(refusal: BudgetRefusal): undefined {
    this.deps.logger.debug('ads: over budget', { proxy: this.nodeId, peer: this.deps.peer, ...refusal });
    this.close();
    this.deps.sink.fail(STATUS_RESOURCE_EXHAUSTED, refusal.message);
    return undefined;
  }

  /** An ACK (`detail` undefined) or NACK of response `nonce` of the subscription's type. */
  protected answered(sub: TypeSubscription, nonce: string, detail: ErrorDetail | undefined): void {
    if (detail) {
      const reason = detail.message.slice(0, MAX_REASON);
      this.acks?.nack(nonce, reason);
      const at = this.deps.acks?.clock.now() ?? 0;
      if (sub.answer.status !== 'rejected') sub.answer = { status: 'rejected', detail: reason, at };
      this.deps.metrics.recordNack({
        proxy: this.nodeId,
        peer: this.deps.peer,
        version: sub.sentVersion,
        reason,
      });
      this.deps.logger.warn('ads: NACK', {
        proxy: this.nodeId,
        peer: this.deps.peer,
        type: sub.typeUrl,
        reason,
      });
    } else {
      this.deps.metrics.acks++;
      this.acks?.ack(nonce);
      if (nonce === sub.lastNonce) sub.answer = { status: 'acked' };
    }
    this.deps.programs?.changed(this.gateway!);
  }

  /** Sends one response of the subscription's type, built for its next nonce. */
  protected send(
    sub: TypeSubscription,
    version: string,
    resources: readonly AdsResource[],
    encode: (nonce: string) => Buffer,
    removed = 0,
  ): void {
    const nonce = String(++this.nonceCounter);
    const bytes = encode(nonce);
    sub.lastNonce = nonce;
    sub.sentVersion = version;
    sub.answer = { status: 'pending' };
    this.acks?.sent(nonce, resources, this.protocol() === 'sotw', ACK_SCOPES[sub.typeUrl]);
    this.deps.metrics.responses++;
    this.deps.metrics.responseBytes += bytes.length;
    this.deps.logger.debug('ads: push', {
      proxy: this.nodeId,
      gateway: this.gateway,
      type: sub.typeUrl,
      version,
      nonce,
      resources: resources.length,
      removed,
    });
    this.deps.sink.send(bytes);
    this.deps.programs?.changed(this.gateway!);
  }
}
