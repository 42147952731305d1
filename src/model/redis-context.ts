import type { RedisDestination, RedisService, Secret, ServicePort } from './objects.ts';

/**
 * What the Redis generator needs beyond the common SidecarContext, resolved through the ConfigView for `tcp-redis`
 * ports only (the README's "Redis" rules). All lookups are in the ServiceEntry's namespace and compare hosts
 * exactly; the functions are O(1) index lookups and have no side effects.
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
