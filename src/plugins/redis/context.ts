/**
 * What the Redis generator reads beyond the common SidecarContext (the README's "Redis" rules), and how it is
 * resolved: through its own lookup indexes, all in the ServiceEntry's namespace, hosts compared exactly.
 */
import { kindIndex } from '../../model/kinds.ts';
import type { Secret, ServiceEntry, ServicePort } from '../../model/objects.ts';
import { compareByName } from '../../model/order.ts';
import type { ConfigView } from '../../model/view.ts';
import type { RedisDestination, RedisService } from './types.ts';

/**
 * What the Redis generator needs beyond the common SidecarContext, resolved for `tcp-redis` ports only
 * (resolveRedisContext). The functions are O(1) index lookups and have no side effects.
 */
export interface RedisContext {
  /** The RedisService bound to the ServiceEntry: for the first of its hosts that any names, the last by name. */
  readonly service: RedisService | undefined;
  /** The ServiceEntry host `service` was found by ('' without a service). */
  readonly serviceHost: string;
  /** The first RedisDestination by name whose `host` is one of the ServiceEntry's hosts. */
  readonly destination: RedisDestination | undefined;
  /** The Secret of that name in the ServiceEntry's namespace. */
  secret(name: string): Secret | undefined;
  /** Ports of the first ServiceEntry (by name) of the namespace listing `host`; undefined when there is none. */
  portsOfHost(host: string): readonly ServicePort[] | undefined;
}

/** `<namespace>|<host>` of a host as written (no FQDN normalisation, as Aeraki's Redis plugin compares). */
export function exactHostKey(namespace: string, host: string): string {
  return `${namespace}|${host}`;
}

/** RedisServices by each of their `host` entries, as written. */
export const REDIS_SERVICES_BY_HOST = kindIndex({
  name: 'redis/RedisService/host',
  kind: 'RedisService',
  keysOf: (o) => o.spec.host.map((h) => exactHostKey(o.metadata.namespace, h)),
});

/** RedisDestinations by their `host`, as written (none when empty). */
export const REDIS_DESTINATIONS_BY_HOST = kindIndex({
  name: 'redis/RedisDestination/host',
  kind: 'RedisDestination',
  keysOf: (o) => (o.spec.host === '' ? [] : [exactHostKey(o.metadata.namespace, o.spec.host)]),
});

/** ServiceEntries by each of their hosts, as written. */
export const SERVICE_ENTRIES_BY_EXACT_HOST = kindIndex({
  name: 'redis/ServiceEntry/host',
  kind: 'ServiceEntry',
  keysOf: (o) => o.spec.hosts.map((h) => exactHostKey(o.metadata.namespace, h)),
});

/** The Redis inputs of `se` (fixtures README, "Redis"): all in its namespace, hosts compared exactly. */
export function resolveRedisContext(view: ConfigView, se: ServiceEntry): RedisContext {
  const ns = se.metadata.namespace;
  let service: RedisContext['service'];
  let serviceHost = '';
  for (const host of se.spec.hosts) {
    const named = view.indexed(REDIS_SERVICES_BY_HOST, exactHostKey(ns, host));
    if (named.length > 0) {
      service = named[named.length - 1];
      serviceHost = host;
      break;
    }
  }
  let destination: RedisContext['destination'];
  for (const host of se.spec.hosts) {
    const candidate = view.indexed(REDIS_DESTINATIONS_BY_HOST, exactHostKey(ns, host))[0];
    if (candidate && (!destination || compareByName(candidate, destination) < 0)) destination = candidate;
  }
  return {
    service,
    serviceHost,
    destination,
    secret: (name) => view.get('Secret', ns, name),
    portsOfHost: (host) => view.indexed(SERVICE_ENTRIES_BY_EXACT_HOST, exactHostKey(ns, host))[0]?.spec.ports,
  };
}
