import type {
  DubboProvider,
  RegistryChange,
  RegistrySpec,
  RegistryWatcher,
  RegistryWatcherStatus,
} from '../model/registry-bridge.ts';
import { Backoff } from '../util/backoff.ts';
import { systemClock, type TimerHandle } from '../util/clock.ts';
import type { Logger } from '../util/logger.ts';
import { ProviderTable } from './provider-table.ts';
import type { RegistryWatcherDeps } from './types.ts';

/**
 * What the ZooKeeper and etcd watchers share: the provider table, the status and the change reports (none after
 * `stop`), one retry timer with backoff, and warnings about malformed entries (once per entry). A subclass opens
 * its connection in `open()` and releases it in `close()`.
 */
export abstract class WatcherBase implements RegistryWatcher {
  readonly name: string;
  protected readonly table = new ProviderTable();
  protected readonly logger: Logger;
  protected stopped = false;
  private readonly backoff: Backoff;
  private onChange: ((change: RegistryChange) => void) | undefined;
  private retryTimer: TimerHandle | undefined;
  private readonly warned = new Set<string>();
  private connected = false;
  private synced = false;
  private lastError: string | undefined;

  constructor(
    protected readonly spec: RegistrySpec,
    deps: RegistryWatcherDeps,
  ) {
    this.name = spec.name;
    this.logger = deps.logger.child({ registry: spec.name, registryType: spec.type });
    this.backoff = new Backoff(deps.backoff);
  }

  start(onChange: (change: RegistryChange) => void): void {
    if (this.onChange || this.stopped) return;
    this.onChange = onChange;
    try {
      this.open();
    } catch (err) {
      // A client that refuses its configuration (no server, a malformed one): reported, never thrown.
      this.failed(`cannot open the ${this.spec.type} client`, err);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) systemClock.clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    await this.close();
  }

  services(): readonly string[] {
    return this.table.keys();
  }

  providers(key: string): readonly DubboProvider[] {
    return this.table.providers(key);
  }

  status(): RegistryWatcherStatus {
    return {
      connected: this.connected,
      synced: this.synced,
      ...(this.lastError ? { lastError: this.lastError } : {}),
    };
  }

  /** Opens the connection and starts reading; never throws (errors go through `failed`). */
  protected abstract open(): void;
  /** Releases the connection; called once by `stop`. */
  protected abstract close(): Promise<void>;

  protected emit(change: RegistryChange): void {
    if (!this.stopped) this.onChange?.(change);
  }

  protected reportServices(keys: Iterable<string>): void {
    const sorted = [...new Set(keys)].sort();
    if (sorted.length > 0) this.emit({ type: 'services', keys: sorted });
  }

  protected markConnected(): void {
    if (this.connected) return;
    this.connected = true;
    this.logger.info('registry connected');
    this.emit({ type: 'connected' });
  }

  /**
   * The connection is down or the session is gone: not synced until the next full read. Reported when it was up,
   * or always when `always` (a session expiry is worth its own report even while the connection was down).
   */
  protected markDisconnected(error: string, always = false): void {
    const was = this.connected || this.synced || always;
    this.connected = false;
    this.synced = false;
    this.lastError = error;
    if (!was) return;
    this.logger.warn('registry disconnected', { error });
    this.emit({ type: 'disconnected', error });
  }

  protected markSynced(): void {
    this.synced = true;
    this.backoff.reset();
    this.logger.info('registry synced', { services: this.table.keys().length });
    this.emit({ type: 'synced' });
  }

  /** Records a failure; `retry` (if given) runs after the next backoff delay unless the watcher stopped. */
  protected failed(message: string, err: unknown, retry?: () => void): void {
    const error = err instanceof Error ? err.message : String(err);
    this.lastError = `${message}: ${error}`;
    this.logger.warn(message, { error });
    if (!retry || this.stopped) return;
    if (this.retryTimer) systemClock.clearTimeout(this.retryTimer);
    this.retryTimer = systemClock.setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.stopped) retry();
    }, this.backoff.next());
  }

  /** Warns once per origin about an entry that is not a provider (skipped). */
  protected warnMalformed(origin: string, what: string): void {
    if (this.warned.has(origin)) return;
    this.warned.add(origin);
    this.logger.warn(`skipping malformed ${what}`, { origin });
  }
}

/** Runs `fn` over `items` with at most `limit` calls in flight; rejects with the first failure. */
export async function forEachLimit<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Dubbo's root node (ZooKeeper) or key prefix (etcd) of a spec, without a trailing slash: `/dubbo` by default. */
export function dubboRoot(spec: RegistrySpec): string {
  const root = spec.root.replace(/\/+$/, '');
  if (root === '') return spec.root === '' ? '/dubbo' : '/';
  return root.startsWith('/') ? root : `/${root}`;
}
