import { Gauge, type Registry } from 'prom-client';

/** The listener rejections istiod's proxies report against this controller's EnvoyFilters, by reason. */
export interface ProxyStatusMetrics {
  /** Source objects with a rejection, by reason (ProxyRejected, ProxyLacksExtension). */
  readonly listenerRejections: Gauge<'reason'>;
  /** Proxies rejecting them, by reason (a proxy rejecting two objects' filters counts twice). */
  readonly rejectingProxies: Gauge<'reason'>;
}

export function createProxyStatusMetrics(registers: Registry[]): ProxyStatusMetrics {
  return {
    listenerRejections: new Gauge({
      name: 'aeraki_listener_rejections',
      help: "Objects whose EnvoyFilters istiod's proxies reject (istio.io/debug/syncz), by reason.",
      labelNames: ['reason'],
      registers,
    }),
    rejectingProxies: new Gauge({
      name: 'aeraki_listener_rejecting_proxies',
      help: "Proxies rejecting this controller's EnvoyFilters (per object), by reason.",
      labelNames: ['reason'],
      registers,
    }),
  };
}

/** Sets both gauges from the current rejections; a reason without rejections reads 0. */
export function recordListenerRejections(
  m: ProxyStatusMetrics,
  rejections: readonly { readonly reason: string; readonly proxies: number }[],
): void {
  for (const reason of ['ProxyRejected', 'ProxyLacksExtension']) {
    const of = rejections.filter((r) => r.reason === reason);
    m.listenerRejections.set({ reason }, of.length);
    m.rejectingProxies.set(
      { reason },
      of.reduce((n, r) => n + r.proxies, 0),
    );
  }
}
