/**
 * Which Service or ServiceEntry serves a host, for the clusters a generator names on another service (a mirror, a
 * route to another host), kept up to date from the store's events instead of scanning `serviceEntries()` per lookup
 * (which would make every service depend on every other). A lookup records `svchost:<normalised host>`; an event of a
 * Service or ServiceEntry names the keys of its hosts before and after, so only the services that looked one of them
 * up are translated again.
 */
import type { EndpointsView } from '../model/ambient/endpoints.ts';
import { normalizeHost } from '../model/names.ts';
import type { ServiceEntry } from '../model/objects.ts';
import { compareOldestFirst } from '../model/order.ts';
import type { ConfigEvent } from '../model/view.ts';

export function serviceHostDepKey(normalisedHost: string): string {
  return `svchost:${normalisedHost}`;
}

/** The key an endpoints lookup of a service is recorded under, and an EndpointsView change names. */
export function endpointsDepKey(kind: string, namespace: string, name: string): string {
  return `ep:${kind}/${namespace}/${name}`;
}

/** An EndpointsView over `endpoints` that adds to `deps` the key of every service whose endpoints were read. */
export function recordingEndpoints(endpoints: EndpointsView, deps: Set<string>): EndpointsView {
  return {
    endpointsOf: (service, port) => {
      const { namespace, name } = service.metadata;
      deps.add(endpointsDepKey(service.kind, namespace, name));
      return endpoints.endpointsOf(service, port);
    },
    subscribe: (listener) => endpoints.subscribe(listener),
    synced: () => endpoints.synced(),
  };
}

const idOf = (se: ServiceEntry) => `${se.kind}/${se.metadata.namespace}/${se.metadata.name}`;

/** D6 precedence among services of one host: the oldest first, then namespace/name, a ServiceEntry before a Service. */
export function precedence(a: ServiceEntry, b: ServiceEntry): number {
  return compareOldestFirst(a, b) || (a.kind === b.kind ? 0 : a.kind === 'Service' ? 1 : -1);
}

export class HostIndex {
  /** Normalised host → the services having it, in precedence order. */
  private readonly byHost = new Map<string, ServiceEntry[]>();

  constructor(private readonly clusterDomain: string) {}

  rebuild(services: readonly ServiceEntry[]): void {
    this.byHost.clear();
    for (const se of services) this.add(se);
  }

  /** Follows one store event; adds to `changed` the keys of the hosts it touched. */
  apply(e: ConfigEvent, changed: Set<string>): void {
    if (e.kind !== 'Service' && e.kind !== 'ServiceEntry') return;
    for (const o of [e.old, e.object]) {
      if (o === undefined || !('metadata' in o)) continue;
      const se = o as ServiceEntry;
      for (const h of this.hostsOf(se)) changed.add(serviceHostDepKey(h));
    }
    if (e.old !== undefined) this.remove(e.old as ServiceEntry);
    if (e.object !== undefined) this.add(e.object as ServiceEntry);
  }

  /** The service of `host` (normalised in `namespace`), recording the lookup in `deps`. */
  lookup(host: string, namespace: string, deps: Set<string>): ServiceEntry | undefined {
    const h = normalizeHost(host, namespace, this.clusterDomain);
    deps.add(serviceHostDepKey(h));
    return this.byHost.get(h)?.[0];
  }

  private hostsOf(se: ServiceEntry): Set<string> {
    return new Set(se.spec.hosts.map((h) => normalizeHost(h, se.metadata.namespace, this.clusterDomain)));
  }

  private add(se: ServiceEntry): void {
    for (const h of this.hostsOf(se)) {
      const list = this.byHost.get(h);
      if (list === undefined) this.byHost.set(h, [se]);
      else {
        list.push(se);
        list.sort(precedence);
      }
    }
  }

  private remove(se: ServiceEntry): void {
    const id = idOf(se);
    for (const h of this.hostsOf(se)) {
      const list = this.byHost.get(h)?.filter((o) => idOf(o) !== id);
      if (list === undefined || list.length === 0) this.byHost.delete(h);
      else this.byHost.set(h, list);
    }
  }
}
