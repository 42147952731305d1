// An in-memory registry watcher (the RegistryWatcher contract of src/model/registry-bridge.ts) that tests drive:
// they change what the "registry" lists and decide when the watcher reports it, connects, drops or syncs.
import type {
  DubboProvider,
  RegistryChange,
  RegistryWatcher,
  RegistryWatcherStatus,
} from '../../../src/model/registry-bridge.ts';

export class FakeRegistryWatcher implements RegistryWatcher {
  readonly name: string;
  private readonly listed = new Map<string, readonly DubboProvider[]>();
  private listener: ((c: RegistryChange) => void) | undefined;
  private state: { connected: boolean; synced: boolean; lastError?: string } = {
    connected: false,
    synced: false,
  };
  started = false;
  stopped = false;

  constructor(name: string) {
    this.name = name;
  }

  start(onChange: (change: RegistryChange) => void): void {
    this.started = true;
    this.listener = onChange;
  }

  stop(): Promise<void> {
    this.stopped = true;
    this.listener = undefined;
    return Promise.resolve();
  }

  services(): readonly string[] {
    return [...this.listed.keys()].sort();
  }

  providers(key: string): readonly DubboProvider[] {
    return this.listed.get(key) ?? [];
  }

  status(): RegistryWatcherStatus {
    return { ...this.state };
  }

  /** Replaces the providers of `key` ([] removes it) and reports it unless `quiet` (a change made unseen). */
  set(key: string, providers: readonly DubboProvider[], quiet = false): void {
    if (providers.length === 0) this.listed.delete(key);
    else this.listed.set(key, providers);
    if (!quiet) this.report({ type: 'services', keys: [key] });
  }

  /** Connected, then a full read finished. */
  sync(): void {
    this.state = { connected: true, synced: true };
    this.report({ type: 'connected' });
    this.report({ type: 'synced' });
  }

  disconnect(error = 'connection lost'): void {
    this.state = { connected: false, synced: false, lastError: error };
    this.report({ type: 'disconnected', error });
  }

  /** Connected again, the full read of the new session not finished yet. */
  reconnect(): void {
    this.state = { connected: true, synced: false };
    this.report({ type: 'connected' });
  }

  private report(c: RegistryChange): void {
    this.listener?.(c);
  }
}

/** A Dubbo provider of `service` at `address:port` with optional group, version and parameters. */
export function provider(
  service: string,
  address: string,
  port = 20880,
  extra: { group?: string; version?: string; params?: Record<string, string> } = {},
): DubboProvider {
  const params = {
    interface: service,
    side: 'provider',
    ...(extra.version ? { version: extra.version } : {}),
    ...(extra.group ? { group: extra.group } : {}),
    ...extra.params,
  };
  return {
    service,
    level: 'interface',
    group: extra.group ?? '',
    version: extra.version ?? '',
    address,
    port,
    params,
    origin: `/dubbo/${service}/providers/dubbo://${address}:${port}/${service}`,
  };
}
