/**
 * Held hosts (`aeraki_held_hosts`): hosts whose output is kept as it was because an object they depend on is
 * rejected: the first hosts of rejected ServiceEntries (their last valid version), the hosts of the MetaRouters
 * bound to a rejected Gateway, and the hosts the store holds for MetaRouters, VirtualServices and DestinationRules
 * that were invalid with no valid version known (`storeHeld`, ConfigStore.heldHosts()).
 */
import type { RejectedObject } from '../model/parse/objects.ts';
import type { ConfigView } from '../model/view.ts';

/** The held hosts, sorted, without repeats. */
export function heldHosts(
  view: ConfigView,
  rejected: readonly RejectedObject[],
  storeHeld: readonly { readonly host: string }[] = [],
): string[] {
  const hosts = new Set<string>(storeHeld.map((h) => h.host));
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
