/**
 * The contract between a service registry (ZooKeeper, etcd, Nacos) and the bridge that turns what it lists into
 * mesh ServiceEntries (src/registry/). A watcher only reads its registry and keeps a complete, current view of it;
 * conversion, pruning and output are the bridge's, so every registry gets the same full-state guarantees.
 */
import type { ConfigObject } from './objects.ts';
import type { ObjectRef } from './result.ts';

/**
 * Where the registries put their ServiceEntries, typed, in the config store: each registry as a source of its own
 * that owns the keys it puts in (controller/store.ts `applyOwned`). Called on every change of a registry.
 */
export interface RegistryEntriesTarget {
  applyOwned(source: string, upserts: readonly ConfigObject[], removals: readonly ObjectRef[]): void;
}

/**
 * One Dubbo provider instance as its registry lists it. Nothing here is validated: the address may not be an IP and
 * the port may be out of range; the conversion drops such providers with a warning naming `origin`.
 */
export interface DubboProvider {
  /**
   * Interface-level discovery: the Dubbo interface (`org.apache.dubbo.samples.DemoService`).
   * Application-level discovery (Dubbo 3 `/services/<application>`): the application name.
   */
  readonly service: string;
  readonly level: 'interface' | 'application';
  /** The provider's `group` parameter; '' when none. */
  readonly group: string;
  /** The provider's `version` parameter; '' when none. */
  readonly version: string;
  /** As registered (an IPv4 or IPv6 literal when valid). */
  readonly address: string;
  /** As registered. */
  readonly port: number;
  /** Every provider URL parameter (or instance metadata entry), decoded, as registered. */
  readonly params: Readonly<Record<string, string>>;
  /** Where it was read, for warnings: a ZooKeeper node path, an etcd key, `nacos <namespace>/<group>/<service>`. */
  readonly origin: string;
}

/** What a watcher reports; the bridge reads the providers back with `RegistryWatcher.providers(key)`. */
export type RegistryChange =
  /** The providers of these services (keys as in `RegistryWatcher.services()`) changed, appeared or vanished. */
  | { readonly type: 'services'; readonly keys: readonly string[] }
  /**
   * A full read of the registry finished in the current session (after the first connect, and after every
   * reconnect or session expiry): `services()` is now complete, and what it lacks is gone.
   */
  | { readonly type: 'synced' }
  /** The connection is down or the session expired: until the next `synced`, nothing may be deleted. */
  | { readonly type: 'disconnected'; readonly error: string }
  | { readonly type: 'connected' };

export interface RegistryWatcherStatus {
  readonly connected: boolean;
  /** A full read finished in the current session. */
  readonly synced: boolean;
  readonly lastError?: string;
}

/**
 * One registry connection. Contract: `start` returns at once and never throws for I/O (errors are reported as
 * `disconnected` and retried with backoff); `onChange` is never called after `stop` resolves; `services()` and
 * `providers()` reflect the registry as last read, including between `disconnected` and `synced` (stale then).
 */
export interface RegistryWatcher {
  /** The registry's name as given in `--registry NAME=URL`. */
  readonly name: string;
  start(onChange: (change: RegistryChange) => void): void;
  stop(): Promise<void>;
  /** Every service key currently listed (an interface name, or an application name for application level). */
  services(): readonly string[];
  /** The providers of one service key; [] when it has none or is unknown. */
  providers(key: string): readonly DubboProvider[];
  status(): RegistryWatcherStatus;
}

/** One `--registry NAME=URL`, parsed (src/registry/spec.ts). */
export interface RegistrySpec {
  /** NAME: a DNS-1123 label; it names the ServiceEntries (`<name>-<host>`) and labels them `registry=<name>`. */
  readonly name: string;
  readonly type: 'zookeeper' | 'etcd' | 'nacos';
  /** `host:port` of each server, in the URL's order (`zookeeper://zk-0:2181,zk-1:2181/dubbo`). */
  readonly servers: readonly string[];
  /**
   * The URL's path: Dubbo's root node (registry group) for ZooKeeper, the key prefix for etcd (both default
   * `/dubbo`); unused for Nacos.
   */
  readonly root: string;
  /** Every URL query parameter, decoded (registry-specific ones such as Nacos `namespace` and `groups` included). */
  readonly params: Readonly<Record<string, string>>;
  /** Target namespace of the ServiceEntries; undefined means the root namespace. */
  readonly namespace: string | undefined;
  /** Glob patterns over service names; empty allow means all. Deny wins. */
  readonly allow: readonly string[];
  readonly deny: readonly string[];
  /** Keep a service's last endpoints when its provider list becomes empty. */
  readonly keepStaleWhenEmpty: boolean;
  /** Quiet period before the bridge recomputes (default 500 ms; at most 5 s). */
  readonly debounceMs: number;
}
