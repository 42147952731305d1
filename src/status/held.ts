/**
 * Held hosts (`aeraki_held_hosts`): hosts whose output is kept as it was because an object they depend on is
 * rejected: the first hosts of rejected ServiceEntries (their last valid version), the hosts of the MetaRouters
 * bound to a rejected Gateway or to a Gateway held by an invalid MetaRouter (`heldGateways`,
 * ConfigStore.heldGateways(): one of its namespace, or of another while no valid MetaRouter binds it), and the first hosts of the ServiceEntries held by an invalid VirtualService or
 * DestinationRule of their own namespace with no valid version (`storeHeld`, ConfigStore.heldHosts(), says whether
 * any is). An invalid MetaRouter holds no host (model/view.ts isHostHeld): its hosts are rendered and routed.
 */
import { holdersOf } from '../model/held.ts';
import type { RejectedObject } from '../model/parse/objects.ts';
import type { ConfigView } from '../model/view.ts';

/** The held hosts, sorted, without repeats. */
export function heldHosts(
  view: ConfigView,
  rejected: readonly RejectedObject[],
  storeHeld: readonly { readonly host: string }[] = [],
  heldGateways: readonly { readonly gateway: string }[] = [],
): string[] {
  const hosts = new Set<string>();
  const addRouters = (namespace: string, name: string) => {
    for (const mr of view.metaRoutersForGateway(namespace, name)) {
      const host = mr.spec.hosts[0];
      if (host) hosts.add(host);
    }
  };
  for (const { ref } of rejected) {
    if (ref.kind === 'ServiceEntry') {
      const host = view.get('ServiceEntry', ref.namespace, ref.name)?.spec.hosts[0];
      if (host) hosts.add(host);
    } else if (ref.kind === 'Gateway') addRouters(ref.namespace, ref.name);
  }
  for (const { gateway } of heldGateways) {
    const [namespace = '', name = ''] = gateway.split('/');
    addRouters(namespace, name);
  }
  // Held for the ServiceEntries of the holder's namespace only: which ones, only they say (one pass, and only
  // while something is held).
  if (storeHeld.length > 0) {
    for (const se of view.serviceEntries()) {
      const host = se.spec.hosts[0];
      if (host && holdersOf(view, se).length > 0) hosts.add(host);
    }
  }
  return [...hosts].sort();
}
