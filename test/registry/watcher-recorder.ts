// Records what a registry watcher reports, and the warnings it logs, for the ZooKeeper and etcd watcher suites.
import type { RegistryChange, RegistryWatcher } from '../../src/model/registry-bridge.ts';
import type { Logger } from '../../src/util/logger.ts';
import { waitFor } from '../e2e/support.ts';

export class Recorder {
  readonly changes: RegistryChange[] = [];
  readonly warnings: { message: string; fields: Record<string, unknown> }[] = [];
  readonly logger: Logger;

  constructor() {
    const logger: Logger = {
      debug: () => {},
      info: () => {},
      warn: (message, fields = {}) => this.warnings.push({ message, fields }),
      error: (message, fields = {}) => this.warnings.push({ message, fields }),
      child: () => logger,
    };
    this.logger = logger;
  }

  readonly onChange = (change: RegistryChange): void => {
    this.changes.push(change);
  };

  /** Index of the next change of `type` at or after `from` (-1 when none yet). */
  indexOf(type: RegistryChange['type'], from = 0): number {
    return this.changes.findIndex((c, i) => i >= from && c.type === type);
  }

  /** Waits for a change of `type` at or after `from`; returns its index. */
  async next(type: RegistryChange['type'], from: number, what: string): Promise<number> {
    await waitFor(() => this.indexOf(type, from) >= 0, `${type} (${what})`, 20_000);
    return this.indexOf(type, from);
  }

  /** Keys reported in `services` changes at or after `from`. */
  keysSince(from: number): string[] {
    return [
      ...new Set(this.changes.slice(from).flatMap((c) => (c.type === 'services' ? c.keys : []))),
    ].sort();
  }
}

/** `ip:port@version` of each provider of `key`, sorted. */
export function endpoints(watcher: RegistryWatcher, key: string): string[] {
  return watcher
    .providers(key)
    .map((p) => `${p.address}:${p.port}@${p.version}`)
    .sort();
}
