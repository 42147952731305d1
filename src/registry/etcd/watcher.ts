/**
 * Dubbo providers from etcd (v3 API, the `etcd3` client). Dubbo's etcd registry writes the ZooKeeper layout as
 * keys: `<prefix>/<interface>/providers/<url-encoded provider URL>`, the value being the lease id of the
 * provider's session (so a provider's key vanishes with its lease); other writers put the URL in the value, so
 * when the last segment is not a provider URL the value is tried. Dubbo 3 application-level instances are
 * `/services/<application>/<instance>` with a JSON value (see parseInstanceRecord).
 *
 * Each prefix is read in full (a range get at revision R), then watched from R+1. A lost watch stream is
 * `disconnected`; etcd3 resumes it by itself from the revision after its last event, and the prefix is then read
 * in full once more before `synced`. A watch that etcd cancels (its start revision was compacted away while the
 * stream was down, or any other cancel) is read and watched anew. Every key keeps the revision it was last seen
 * at, so a read and a watch event never undo a newer one. Live watches are never cancelled before `stop`
 * (etcd3 1.1.2 throws from its stream handler when an answer arrives for a watch cancelled while another is
 * being created).
 */
import { Etcd3, type IKeyValue, type Watcher } from 'etcd3';
import type { DubboProvider, RegistrySpec } from '../../model/registry-bridge.ts';
import { NOT_INTERFACES, parseInstanceRecord, parseProviderUrl, SERVICES_ROOT } from '../dubbo-url.ts';
import type { RegistryWatcherDeps } from '../types.ts';
import { dubboRoot, WatcherBase } from '../watcher-base.ts';

function first<T>(set: ReadonlySet<T>): T | undefined {
  for (const item of set) return item;
  return undefined;
}

/** Deadline of one range read. */
const CALL_TIMEOUT_MS = 10_000;

interface Known {
  readonly service: string;
  readonly revision: bigint;
  readonly present: boolean;
}

export class EtcdWatcher extends WatcherBase {
  private readonly prefixes: readonly string[];
  private readonly root: string;
  private client: Etcd3 | undefined;
  /** The live watch of each prefix (etcd3 resumes it after a lost stream, from the revision after its last). */
  private readonly watchers = new Map<string, Watcher>();
  /** Prefixes whose watch stream is down. */
  private readonly lost = new Set<string>();
  /** Prefixes to read in full (and to watch, when they have no watch). */
  private readonly pending = new Set<string>();
  private reading = false;
  /** Every key seen: its service, the revision it was last seen at, and whether it exists. */
  private readonly known = new Map<string, Known>();

  constructor(spec: RegistrySpec, deps: RegistryWatcherDeps) {
    super(spec, deps);
    this.root = dubboRoot(spec);
    this.prefixes = [this.root === '/' ? '/' : `${this.root}/`, `${SERVICES_ROOT}/`];
  }

  protected open(): void {
    this.client = new Etcd3({
      hosts: this.spec.servers.map((s) => (s.includes('://') ? s : `http://${s}`)),
      dialTimeout: CALL_TIMEOUT_MS,
      defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: Date.now() + CALL_TIMEOUT_MS }),
      grpcOptions: { 'grpc.initial_reconnect_backoff_ms': 200, 'grpc.max_reconnect_backoff_ms': 5_000 },
    });
    for (const prefix of this.prefixes) this.pending.add(prefix);
    void this.readPending();
  }

  protected async close(): Promise<void> {
    const cancels = [...this.watchers.values()].map((w) => w.cancel().catch(() => {}));
    this.watchers.clear();
    // Let the cancellations finish before the channel goes (bounded: a dead stream never answers).
    await Promise.race([Promise.all(cancels), new Promise((r) => setTimeout(r, 1_000).unref())]);
    this.client?.close();
    this.client = undefined;
  }

  /**
   * Reads every pending prefix in full at some revision R, applies it, and watches it from R+1 when it has no
   * watch; then, when no prefix is pending or down, reports `synced`. One pass at a time.
   */
  private async readPending(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    const changed = new Set<string>();
    try {
      for (
        let prefix = first(this.pending);
        prefix !== undefined && !this.stopped;
        prefix = first(this.pending)
      ) {
        await this.readPrefix(prefix, changed);
        this.pending.delete(prefix);
      }
      this.reading = false;
      this.reportServices(changed);
      if (this.stopped || this.lost.size > 0) return;
      this.markConnected();
      this.markSynced();
    } catch (err) {
      this.reading = false;
      if (this.stopped) return;
      this.reportServices(changed);
      this.markDisconnected(
        `etcd ${this.spec.servers.join(',')}: ${err instanceof Error ? err.message : String(err)}`,
      );
      this.failed('etcd read failed', err, () => void this.readPending());
    }
  }

  private async readPrefix(prefix: string, changed: Set<string>): Promise<void> {
    const client = this.client;
    if (!client) return;
    const res = await client.getAll().prefix(prefix).exec();
    const revision = BigInt(res.header.revision);
    this.applySnapshot(prefix, res.kvs, revision, changed);
    if (this.watchers.has(prefix) || this.stopped) return;
    const watcher = await client
      .watch()
      .prefix(prefix)
      .startRevision(String(revision + 1n))
      .create();
    if (this.stopped) {
      void watcher.cancel().catch(() => {});
      return;
    }
    this.attach(prefix, watcher);
  }

  private attach(prefix: string, watcher: Watcher): void {
    this.watchers.set(prefix, watcher);
    const live = (): boolean => this.watchers.get(prefix) === watcher && !this.stopped;
    watcher.on('data', (res) => {
      if (!live()) return;
      const changed = new Set<string>();
      for (const event of res.events) {
        const value = event.type === 'Delete' ? undefined : event.kv.value;
        this.apply(event.kv.key.toString('utf8'), value, BigInt(event.kv.mod_revision), changed);
      }
      this.reportServices(changed);
    });
    watcher.on('disconnected', (err) => {
      if (!live()) return;
      this.lost.add(prefix);
      this.markDisconnected(`etcd watch stream lost: ${err.message}`);
    });
    watcher.on('connected', () => {
      // Resumed by etcd3 from the revision after its last event; read in full once more before `synced`.
      if (!live() || !this.lost.delete(prefix)) return;
      this.pending.add(prefix);
      void this.readPending();
    });
    watcher.on('error', (err) => {
      // etcd cancelled the watch (its start revision was compacted away, ...): etcd3 dropped it; read and watch anew.
      if (!live()) return;
      this.watchers.delete(prefix);
      this.lost.delete(prefix);
      this.pending.add(prefix);
      this.failed('etcd watch cancelled; reading the prefix again', err, () => void this.readPending());
    });
  }

  /** Applies a full read of `prefix` at `revision`: keys under it not listed (and not newer) are gone. */
  private applySnapshot(
    prefix: string,
    kvs: readonly IKeyValue[],
    revision: bigint,
    changed: Set<string>,
  ): void {
    const listed = new Set<string>();
    for (const kv of kvs) {
      const key = kv.key.toString('utf8');
      listed.add(key);
      this.apply(key, kv.value, BigInt(kv.mod_revision), changed);
    }
    for (const [key, known] of this.known) {
      if (!key.startsWith(prefix) || listed.has(key)) continue;
      if (known.present) this.apply(key, undefined, revision, changed);
      // A deletion this read already reflects needs no tombstone: the watch starts after it.
      if (known.revision <= revision) this.known.delete(key);
    }
  }

  /** Records one key's value (undefined: deleted) seen at `revision`, unless a newer one was seen already. */
  private apply(key: string, value: Buffer | undefined, revision: bigint, changed: Set<string>): void {
    const service = this.serviceOf(key);
    if (service === undefined) return;
    const known = this.known.get(key);
    if (known && known.revision > revision) return;
    const provider = value === undefined ? undefined : this.parse(key, service, value);
    this.known.set(key, { service, revision, present: value !== undefined });
    if (this.table.replace(service, key, provider ? [provider] : [])) changed.add(service);
  }

  /** The service a key belongs to, or undefined for keys that list no provider (consumers, config...). */
  private serviceOf(key: string): string | undefined {
    const under = (prefix: string): string[] | undefined =>
      key.startsWith(prefix) ? key.slice(prefix.length).split('/') : undefined;
    const app = under(`${SERVICES_ROOT}/`);
    if (app?.length === 2 && app[0] !== '' && app[1] !== '') return app[0];
    const iface = under(this.prefixes[0]!);
    if (iface?.length === 3 && iface[1] === 'providers' && iface[0] !== '' && !NOT_INTERFACES.has(iface[0]!))
      return iface[0];
    return undefined;
  }

  private parse(key: string, service: string, value: Buffer): DubboProvider | undefined {
    const text = value.toString('utf8');
    const provider = key.startsWith(`${SERVICES_ROOT}/`)
      ? parseInstanceRecord(service, text, key)
      : (parseProviderUrl(key.slice(key.lastIndexOf('/') + 1), key) ??
        (text.includes('://') ? parseProviderUrl(text, key) : undefined));
    if (!provider)
      this.warnMalformed(
        key,
        key.startsWith(`${SERVICES_ROOT}/`) ? 'application instance record' : 'Dubbo provider URL',
      );
    return provider;
  }
}
