/**
 * The port between the proxy-status feature (which reads istiod's view of its proxies and attributes listener
 * rejections to what this controller wrote) and the status controller (which reports them on the source
 * objects). Rejections of listeners no EnvoyFilter of this controller patches never appear here.
 */

/** `ProxyLacksExtension`: the proxy has no implementation of the filter; `ProxyRejected`: any other rejection. */
export type ListenerRejectionReason = 'ProxyRejected' | 'ProxyLacksExtension';

export interface ListenerRejection {
  /** The source object of the rejected EnvoyFilters (aeraki.io/source): `ServiceEntry/<ns>/<name>`, ... */
  readonly source: string;
  readonly reason: ListenerRejectionReason;
  /** How many proxies reject it. */
  readonly proxies: number;
  /** The namespaces of those proxies, sorted. */
  readonly namespaces: readonly string[];
  /** The first such proxy (istiod's proxy id) and its error (Envoy's message). */
  readonly firstProxy: string;
  readonly firstError: string;
  /** ProxyLacksExtension: the filter (or type URL) the proxy has no implementation of. */
  readonly filter?: string;
}

/** One proxy's listener rejection, attributed to the objects of this controller (`/debug/proxies`). */
export interface ProxyListenerRejection {
  /** istiod's proxy id (`sidecar~<ip>~<pod>.<ns>~<ns>.svc.cluster.local`). */
  readonly id: string;
  readonly namespace: string;
  readonly reason: ListenerRejectionReason;
  /** The listeners Envoy's message names (none when it names only a filter). */
  readonly listeners: readonly string[];
  /** ProxyLacksExtension: the filter (or type URL) the proxy has no implementation of. */
  readonly filter?: string;
  /** Envoy's message (istiod's `error_state.details`). */
  readonly errorDetail: string;
  /** The source objects (aeraki.io/source) of the EnvoyFilters it was attributed to, sorted. */
  readonly sources: readonly string[];
}

/** The current rejections, replaced as a whole on every answer (a proxy that took the filter later drops out). */
export interface ListenerRejections {
  current(): readonly ListenerRejection[];
  /** Called with the new list after each change; returns the unsubscribe function. */
  subscribe(fn: (rejections: readonly ListenerRejection[]) => void): () => void;
}
