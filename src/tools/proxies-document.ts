/**
 * The `/debug/proxies` document: what `aeraki serve` builds (app/debug.ts) and `aeraki proxy-status` reads. Field
 * names are stable; new fields may be added, so readers ignore what they do not know.
 */
import type { ListenerRejection, ProxyListenerRejection } from '../model/listener-rejections.ts';
import type { ProxyReport, RouteAckState } from '../model/route-acks.ts';

/** Where a proxy stands on a route (model/route-acks.ts). */
export type RouteState = RouteAckState;

/** One RDS proxy (stream) of this controller and where each route it was sent stands (model/route-acks.ts). */
export type ProxyDoc = ProxyReport;

/** One route configuration over every proxy subscribed to it. */
export interface RouteDoc {
  readonly name: string;
  /** The object it is built from: `MetaRouter/<ns>/<name>`, else (the default route) `ServiceEntry/<ns>/<name>`. */
  readonly source?: string;
  readonly subscribed: number;
  readonly acked: number;
  readonly pending: number;
  readonly oldestPendingMs: number;
  readonly rejected: number;
  readonly firstRejection?: { readonly proxy: string; readonly version: string; readonly detail: string };
}

/** What istiod's proxies reported about the listeners this controller's EnvoyFilters patch (istio.io/debug/syncz). */
export interface ListenerRejectionsDoc {
  /** The syncz client: `answering`, `refused` (istiod refuses or lacks the type), `unreachable`, `idle`. */
  readonly state: string;
  /** ISO time of the last answer; absent before the first. */
  readonly answeredAt?: string;
  /**
   * The form of the last answer: `detailed` (istio.io/debug `syncz`: each rejection with its message) or `status`
   * (istio.io/debug/syncz: an istiod that keeps no message reports a rejected push as stale, so none is reported).
   */
  readonly form?: 'detailed' | 'status';
  /** Proxies istiod listed in the last answer. */
  readonly proxiesReported: number;
  /** Per source object and reason, sorted. */
  readonly sources: readonly ListenerRejection[];
  /** Per proxy, by id. */
  readonly proxies: readonly ProxyListenerRejection[];
}

export interface ProxiesDocument {
  /** RDS proxies by node id. */
  readonly proxies: readonly ProxyDoc[];
  /** Route configurations by name. */
  readonly routes: readonly RouteDoc[];
  readonly routeConfigsRejected: number;
  readonly proxiesRejecting: number;
  /** Absent when proxy status is off (`--proxy-status-interval 0`, or not `--output kube`). */
  readonly listenerRejections?: ListenerRejectionsDoc;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** `value` as a ProxiesDocument when it has that shape's lists; else a reason it is not one. */
export function readProxiesDocument(
  value: unknown,
): { readonly ok: true; readonly doc: ProxiesDocument } | { readonly ok: false; readonly reason: string } {
  if (!isObject(value)) return { ok: false, reason: 'not a JSON object' };
  if (!Array.isArray(value['proxies']) || !Array.isArray(value['routes'])) {
    return { ok: false, reason: 'no proxies and routes lists' };
  }
  const lr = value['listenerRejections'];
  if (lr !== undefined && (!isObject(lr) || !Array.isArray(lr['sources']) || !Array.isArray(lr['proxies']))) {
    return { ok: false, reason: 'listenerRejections has no sources and proxies lists' };
  }
  return { ok: true, doc: value as unknown as ProxiesDocument };
}
