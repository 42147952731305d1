/**
 * Listener rejections reported by istiod's proxies (model/listener-rejections.ts), as Events on the source
 * objects and as the Programmed condition of the MetaRouters binding their hosts.
 */
import type { ListenerRejection } from '../model/listener-rejections.ts';
import type { ObjectRef } from '../model/result.ts';
import type { ConfigView } from '../model/view.ts';
import { refKey, type DesiredCondition } from './conditions.ts';

/** `ServiceEntry/<ns>/<name>` (aeraki.io/source) as a reference; undefined for another shape. */
export function sourceRef(source: string): ObjectRef | undefined {
  const parts = source.split('/');
  if (parts.length !== 3 || !parts[0] || !parts[2]) return undefined;
  return { kind: parts[0], namespace: parts[1] ?? '', name: parts[2] };
}

const ADVICE =
  'the proxy has no implementation of this filter: use the MetaProtocol proxy image for MetaProtocol services, ' +
  'an Envoy build with contrib extensions for Kafka, or namespace scope to keep the filter off proxies that ' +
  'cannot load it';

/** The Event note: how many proxies, which namespaces, the first proxy and its error (and advice). */
export function rejectionNote(r: ListenerRejection): string {
  const who =
    `${r.proxies} ${r.proxies === 1 ? 'proxy' : 'proxies'} in ${r.namespaces.length === 1 ? 'namespace' : 'namespaces'} ` +
    r.namespaces.join(', ');
  const what =
    r.reason === 'ProxyLacksExtension'
      ? `${who} cannot load filter ${r.filter ?? ''}: ${ADVICE}`
      : `${who} reject the listener this object's EnvoyFilters patch`;
  return `${what}; first: ${r.firstProxy}: ${r.firstError}`;
}

/**
 * The Event key: object, reason and the first error (not the counts, so a growing count is not a new Event;
 * a new error is).
 */
export function rejectionKey(ref: ObjectRef, r: ListenerRejection): string {
  return `${refKey(ref)}|${r.reason}|${r.filter ?? r.firstError}`;
}

/** MetaRouters (refKey) binding a host of a rejected ServiceEntry, with the rejection. */
export function rejectedMetaRouters(
  view: ConfigView,
  rejections: readonly ListenerRejection[],
): Map<string, ListenerRejection> {
  const out = new Map<string, ListenerRejection>();
  for (const r of rejections) {
    const ref = sourceRef(r.source);
    if (ref?.kind !== 'ServiceEntry') continue;
    const se = view.get('ServiceEntry', ref.namespace, ref.name);
    for (const host of se?.spec.hosts ?? []) {
      const mr = view.configForHost(host, ref.namespace).metaRouter;
      if (!mr) continue;
      const k = refKey({ kind: 'MetaRouter', namespace: mr.metadata.namespace, name: mr.metadata.name });
      if (!out.has(k)) out.set(k, r);
    }
  }
  return out;
}

/** Programmed False while proxies reject what this controller wrote for the MetaRouter's host. */
export function rejectedProgrammed(r: ListenerRejection): DesiredCondition {
  return {
    type: 'Programmed',
    status: 'False',
    reason: r.reason,
    message: rejectionNote(r).slice(0, 32_768),
  };
}
