import type {
  DubboProvider,
  RegistryChange,
  RegistrySpec,
  RegistryWatcher,
  RegistryWatcherStatus,
} from '../../model/registry-bridge.ts';
import { compareStrings } from '../../model/order.ts';
import { Backoff } from '../../util/backoff.ts';
import { systemClock, type Clock, type TimerHandle } from '../../util/clock.ts';
import { stableStringify } from '../../util/json.ts';
import type { Logger } from '../../util/logger.ts';
import type { RegistryWatcherDeps } from '../types.ts';
import { NacosApi, NacosApiError, type FetchFn, type NacosApiVersion } from './api.ts';
import { nacosSettings, type NacosWatcherSettings } from './options.ts';
import { parseServiceName, toProviders } from './providers.ts';

export interface NacosWatcherDeps extends RegistryWatcherDeps {
  readonly clock?: Clock;
  /** HTTP GET (default the global fetch). */
  readonly fetch?: FetchFn;
  /** Per-request timeout, ms (default 10 s). */
  readonly requestTimeoutMs?: number;
}

/** Instance lists read in parallel per group. */
const PARALLEL_READS = 8;
/** Times a paged service listing restarts when the total changes between pages. */
const LISTING_ATTEMPTS = 3;

type ProviderMap = Map<string, DubboProvider[]>;

/**
 * Watches Dubbo providers in Nacos by polling (no UDP push, no gRPC): every `pollIntervalMs` it reads the complete
 * service list of each configured namespace and group (paged), then the instances of every service, and reports the
 * keys whose providers changed. Only healthy, enabled instances are providers. `consumers:*` services are skipped;
 * `providers:<interface>:<version>:<group>` services are interface-level; plain names whose instances carry `dubbo.*`
 * metadata are application-level (Dubbo 3). The API is the Nacos 3 one when the server offers it (probed once,
 * `api=` overrides), else v1.
 *
 * A poll is all or nothing: any failed request (transport error, HTTP error with its body, error result) discards
 * the poll, reports `disconnected` once, and retries with backoff; the next complete read reports `connected`, the
 * changes against the last complete read, then `synced`.
 */
export class NacosWatcher implements RegistryWatcher {
  readonly name: string;
  private readonly settings: NacosWatcherSettings;
  private readonly api: NacosApi;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly backoff: Backoff;
  private readonly pollMs: number;
  private apiVersion: NacosApiVersion | undefined;
  private byKey: ProviderMap = new Map();
  private readonly fingerprints = new Map<string, string>();
  private connected = false;
  private synced = false;
  private downReported = false;
  private lastError: string | undefined;
  private onChange: ((change: RegistryChange) => void) | undefined;
  private timer: TimerHandle | undefined;
  private running: Promise<void> | undefined;
  private abort: AbortController | undefined;
  private stopped = false;

  constructor(spec: RegistrySpec, deps: NacosWatcherDeps) {
    this.name = spec.name;
    this.log = deps.logger.child({ component: 'registry', registry: spec.name, type: 'nacos' });
    this.settings = nacosSettings(spec, this.log);
    this.clock = deps.clock ?? systemClock;
    this.backoff = new Backoff(deps.backoff);
    this.pollMs = this.settings.pollIntervalMs ?? deps.pollIntervalMs ?? 5_000;
    this.apiVersion = this.settings.api === 'auto' ? undefined : this.settings.api;
    this.api = new NacosApi({
      servers: spec.servers,
      contextPath: this.settings.contextPath,
      scheme: this.settings.scheme,
      timeoutMs: deps.requestTimeoutMs ?? 10_000,
      fetch: deps.fetch ?? ((url, init) => fetch(url, init)),
      now: () => this.clock.now(),
      ...(this.settings.credentials ? { credentials: this.settings.credentials } : {}),
    });
  }

  start(onChange: (change: RegistryChange) => void): void {
    if (this.onChange || this.stopped) return;
    this.onChange = onChange;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.abort?.abort();
    await this.running;
  }

  services(): readonly string[] {
    return [...this.byKey.keys()].sort();
  }

  providers(key: string): readonly DubboProvider[] {
    return this.byKey.get(key) ?? [];
  }

  /** `lastError` is the last failed poll's error; it stays after recovery (the status shows connected again). */
  status(): RegistryWatcherStatus {
    return {
      connected: this.connected,
      synced: this.synced,
      ...(this.lastError !== undefined ? { lastError: this.lastError } : {}),
    };
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.running = this.poll();
    }, ms);
  }

  private emit(change: RegistryChange): void {
    if (!this.stopped) this.onChange?.(change);
  }

  private async poll(): Promise<void> {
    const abort = new AbortController();
    this.abort = abort;
    let next: ProviderMap;
    try {
      next = await this.readAll(abort.signal);
    } catch (err) {
      abort.abort(); // the poll is discarded: cancel its reads still in flight
      if (this.stopped) return;
      this.failed(err);
      this.schedule(this.backoff.next());
      return;
    }
    if (this.stopped) return;
    this.backoff.reset();
    this.apply(next);
    this.schedule(this.pollMs);
  }

  private async readAll(signal: AbortSignal): Promise<ProviderMap> {
    const api = this.apiVersion ?? (await this.probe(signal));
    const out: ProviderMap = new Map();
    for (const namespace of this.settings.namespaces) {
      for (const group of this.settings.groups) {
        const names = (await this.listAll(api, namespace, group, signal)).filter(
          (n) => parseServiceName(n).kind !== 'consumer',
        );
        const lists = await mapLimit(names, PARALLEL_READS, (service) =>
          this.api.listInstances(api, namespace, group, service, signal),
        );
        names.forEach((service, i) => {
          for (const p of toProviders({ namespace, group, service }, lists[i] ?? [])) {
            const list = out.get(p.service) ?? [];
            list.push(p);
            out.set(p.service, list);
          }
        });
      }
    }
    for (const list of out.values()) list.sort(compareProviders);
    return out;
  }

  private async probe(signal: AbortSignal): Promise<NacosApiVersion> {
    const version = await this.api.probe(this.settings.namespaces[0] ?? 'public', signal);
    this.apiVersion = version;
    this.log.info('nacos: naming API chosen', { api: version });
    return version;
  }

  /** Every service name of a group, reading pages until the total; restarts if the total moves meanwhile. */
  private async listAll(
    api: NacosApiVersion,
    namespace: string,
    group: string,
    signal: AbortSignal,
  ): Promise<string[]> {
    const { pageSize } = this.settings;
    for (let attempt = 0; attempt < LISTING_ATTEMPTS; attempt++) {
      const names = new Set<string>();
      let total: number | undefined;
      let moved = false;
      for (let page = 1; ; page++) {
        const res = await this.api.listServices(api, namespace, group, page, pageSize, signal);
        if (total !== undefined && res.total !== total) {
          moved = true;
          break;
        }
        total = res.total;
        for (const n of res.names) names.add(n);
        if (res.pageLength === 0 || page * pageSize >= total) break;
      }
      if (!moved) return [...names];
    }
    throw new NacosApiError(
      `nacos: the service list of ${namespace}/${group} kept changing while it was paged`,
      undefined,
    );
  }

  private apply(next: ProviderMap): void {
    const changed: string[] = [];
    for (const [key, list] of next) {
      const fp = stableStringify(list);
      if (this.fingerprints.get(key) === fp) continue;
      this.fingerprints.set(key, fp);
      changed.push(key);
    }
    for (const key of this.byKey.keys()) {
      if (next.has(key)) continue;
      this.fingerprints.delete(key);
      changed.push(key);
    }
    this.byKey = next;
    const reconnected = !this.connected;
    this.connected = true;
    this.downReported = false;
    if (reconnected) {
      this.log.info('nacos: connected', { services: next.size });
      this.emit({ type: 'connected' });
    }
    if (changed.length > 0) this.emit({ type: 'services', keys: changed.sort() });
    if (!this.synced) {
      this.synced = true;
      this.emit({ type: 'synced' });
    }
  }

  private failed(err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    this.lastError = message;
    this.connected = false;
    this.synced = false;
    this.log.warn('nacos: read failed, retrying with backoff', { error: message });
    if (this.downReported) return;
    this.downReported = true;
    this.emit({ type: 'disconnected', error: message });
  }
}

function compareProviders(a: DubboProvider, b: DubboProvider): number {
  return compareStrings(a.origin, b.origin) || compareStrings(a.address, b.address) || a.port - b.port;
}

/** `fn` over `items` with at most `limit` calls in flight; results in input order; rejects on the first failure. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
