/**
 * Held hosts (`aeraki_held_hosts`): ServiceEntry hosts whose output is kept as it was because an object they
 * depend on is rejected. For now these are the first hosts of rejected ServiceEntries (their last valid version)
 * and the hosts of the MetaRouters bound to a rejected Gateway; this is the one place to widen when the store
 * reports held hosts itself.
 */
import type { RejectedObject } from '../model/parse-objects.ts';
import type { ConfigView } from '../model/view.ts';

/** The held hosts, sorted, without repeats. */
export function heldHosts(view: ConfigView, rejected: readonly RejectedObject[]): string[] {
  const hosts = new Set<string>();
  for (const { ref } of rejected) {
    if (ref.kind === 'ServiceEntry') {
      const host = view.get('ServiceEntry', ref.namespace, ref.name)?.spec.hosts[0];
      if (host) hosts.add(host);
    } else if (ref.kind === 'Gateway') {
      for (const mr of view.metaRoutersForGateway(ref.namespace, ref.name)) {
        const host = mr.spec.hosts[0];
        if (host) hosts.add(host);
      }
    }
  }
  return [...hosts].sort();
}
