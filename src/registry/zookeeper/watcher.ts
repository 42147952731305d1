/**
 * Dubbo providers from ZooKeeper, read with node-zookeeper-client 1.1.3 (pure JavaScript, the 3.4 wire protocol).
 *
 * Checked against the Debian ZooKeeper 3.8.0 server (ZooKeeperServerMain, tickTime 200 ms, 1 s sessions), with the
 * client's connection cut through a TCP relay (test/registry/zookeeper/watcher.test.ts does the same):
 * - A short cut (under the session timeout): the client emits DISCONNECTED, reconnects by itself every `spinDelay`,
 *   resumes the same session (SYNC_CONNECTED) and re-registers its watches (SetWatches), and the server then
 *   delivers the child events missed while cut. Requests made while cut fail with CONNECTION_LOSS.
 * - A long cut (over the session timeout): the client learns of the expiry only when it reaches the server again;
 *   it then emits EXPIRED, closes, and never reconnects (its state stays DISCONNECTED and every request fails with
 *   CONNECTION_LOSS). A new client is the only way on, and its watches and reads start from nothing.
 * - There is no read timeout: a connection that stays open but silent is not noticed (pings get no answer and
 *   nothing happens). A relay that resets the connection is noticed at once.
 * - A server that is down: the client retries forever, every `spinDelay`, without an error event.
 * - A server that is starting accepts connections before it serves: such a connection can stay unanswered, and
 *   the client then waits in CONNECTING forever (seen in about one start in three).
 * - `close()` while the client is connecting makes it parse the server's connect answer as a reply and throw
 *   "Unknown code" from its socket handler, an uncaught exception (see closeClient).
 * - Watches are one-shot and the client keeps a list of watch callbacks per path (registering the same path twice
 *   fires both), so this watcher arms each watch at most once per session.
 *
 * Hence: every (re)connect re-reads the whole tree before `synced` (watches survive a reconnect within a session
 * and are not armed twice, but the bridge must not prune until a read of this connection completed); EXPIRED
 * replaces the client, whose new session starts with no watch; no session within a session timeout of
 * connecting is reported and the connection attempt is dropped and made again.
 *
 * Layout read (the root is Dubbo's root node, the registry group, not a chroot):
 * - `<root>/<interface>/providers/<url-encoded provider URL>`: children of the root except `config`, `mapping`
 *   and `metadata`; child watches on the root and each `providers` node (an exists watch while one is missing).
 * - `/services/<application>/<instance>`: Dubbo 3 application-level instances (JSON, see parseInstanceRecord);
 *   child watches on `/services` and each application, data watches on each instance.
 */
import type { RegistrySpec } from '../../model/registry-bridge.ts';
import { systemClock, type TimerHandle } from '../../util/clock.ts';
import { errorFields } from '../../util/logger.ts';
import { NOT_INTERFACES, parseInstanceRecord, parseProviderUrl, SERVICES_ROOT } from '../dubbo-url.ts';
import type { RegistryWatcherDeps } from '../types.ts';
import { dubboRoot, forEachLimit, WatcherBase } from '../watcher-base.ts';
import {
  closeClient,
  createZkClient,
  exists,
  getChildren,
  getData,
  isConnectionError,
  retryConnection,
  ZkState,
  type ZkClient,
} from './client.ts';

/** Reads in flight during a full read. */
const READ_CONCURRENCY = 64;
const DEFAULT_SESSION_TIMEOUT_MS = 30_000;

function join(parent: string, child: string): string {
  return parent === '/' ? `/${child}` : `${parent}/${child}`;
}

/** The registry URL's `session` parameter (ms, as Dubbo's registry URL writes it), else 30 s. */
function sessionTimeout(spec: RegistrySpec): number {
  const text = spec.params['session'];
  const ms = text !== undefined && /^\d+$/.test(text) ? Number(text) : DEFAULT_SESSION_TIMEOUT_MS;
  return Math.max(ms, 100);
}

export class ZooKeeperWatcher extends WatcherBase {
  private readonly root: string;
  private client: ZkClient | undefined;
  /** Incremented for every new client: callbacks of an older client are ignored. */
  private session = 0;
  /** Watches registered in the current session (`kind path`). */
  private readonly armed = new Set<string>();
  private interfaces = new Set<string>();
  private readonly apps = new Map<string, Set<string>>();
  private readonly sessionTimeoutMs: number;
  private connectTimer: TimerHandle | undefined;
  /** The current outage was reported as `disconnected` already (later watchdog rounds say nothing more). */
  private unreachableReported = false;

  constructor(spec: RegistrySpec, deps: RegistryWatcherDeps) {
    super(spec, deps);
    this.root = dubboRoot(spec);
    this.sessionTimeoutMs = sessionTimeout(spec);
  }

  protected open(): void {
    const gen = ++this.session;
    this.armed.clear();
    const client = createZkClient(
      this.spec.servers,
      this.sessionTimeoutMs,
      Math.min(1000, this.sessionTimeoutMs / 3),
    );
    this.client = client;
    client.on('state', (state) => {
      if (gen === this.session && !this.stopped) this.onState(gen, state);
    });
    client.connect();
    this.armWatchdog(gen);
  }

  /**
   * The client retries an unreachable server silently and forever, and a connection that a starting server
   * accepted can stay unanswered forever (no read timeout): when there is no session a session timeout after
   * connecting or losing the connection, say so (once per outage) and make the client try a new connection.
   */
  private armWatchdog(gen: number): void {
    if (this.connectTimer) systemClock.clearTimeout(this.connectTimer);
    this.connectTimer = systemClock.setTimeout(() => {
      this.connectTimer = undefined;
      const client = this.client;
      if (gen !== this.session || this.stopped || !client || client.getState() === ZkState.SYNC_CONNECTED)
        return;
      const error = `cannot connect to ZooKeeper ${this.spec.servers.join(',')}`;
      this.markDisconnected(error, !this.unreachableReported);
      this.unreachableReported = true;
      retryConnection(client);
      this.armWatchdog(gen);
    }, this.sessionTimeoutMs);
  }

  protected close(): Promise<void> {
    this.session++;
    if (this.connectTimer) systemClock.clearTimeout(this.connectTimer);
    if (this.client) closeClient(this.client);
    this.client = undefined;
    return Promise.resolve();
  }

  private onState(gen: number, state: typeof ZkState.SYNC_CONNECTED): void {
    if (state === ZkState.SYNC_CONNECTED || state === ZkState.CONNECTED_READ_ONLY) {
      if (this.connectTimer) systemClock.clearTimeout(this.connectTimer);
      this.unreachableReported = false;
      this.markConnected();
      void this.fullRead(gen);
    } else if (state === ZkState.DISCONNECTED) {
      this.markDisconnected(`connection to ZooKeeper ${this.spec.servers.join(',')} lost`);
      this.armWatchdog(gen);
    } else if (state === ZkState.EXPIRED || state === ZkState.AUTH_FAILED) {
      const why = state === ZkState.EXPIRED ? 'ZooKeeper session expired' : 'ZooKeeper authentication failed';
      this.markDisconnected(why, true);
      void this.close();
      if (state === ZkState.EXPIRED) this.open();
      else this.failed(why, why, () => this.open());
    }
  }

  /** Reads the whole tree in the current session, then reports the changes and `synced`. */
  private async fullRead(gen: number): Promise<void> {
    const changed = new Set<string>();
    try {
      await this.readRoot(gen, changed, true);
      await this.readApps(gen, changed, true);
      if (gen !== this.session) return;
      this.reportServices(changed);
      this.markSynced();
    } catch (err) {
      if (gen !== this.session || this.stopped) return;
      this.reportServices(changed);
      // A lost connection or session brings its own full read with the reconnect or the new session.
      if (isConnectionError(err)) this.failed('ZooKeeper read interrupted', err);
      else this.failed('ZooKeeper read failed', err, () => void this.fullRead(gen));
    }
  }

  /** Runs an incremental read started by a watch; failures other than a lost connection retry a full read. */
  private refresh(gen: number, read: (changed: Set<string>) => Promise<void>): void {
    const changed = new Set<string>();
    read(changed).then(
      () => gen === this.session && this.reportServices(changed),
      (err: unknown) => {
        if (gen !== this.session || this.stopped) return;
        this.reportServices(changed);
        this.logger.debug('ZooKeeper watch read failed', errorFields(err));
        if (!isConnectionError(err)) this.failed('ZooKeeper read failed', err, () => void this.fullRead(gen));
      },
    );
  }

  /** A one-shot watch callback for `kind path`, or undefined when one is already armed in this session. */
  private arm(
    gen: number,
    id: string,
    onEvent: (changed: Set<string>) => Promise<void>,
  ): (() => void) | undefined {
    if (this.armed.has(id)) return undefined;
    this.armed.add(id);
    return () => {
      if (gen !== this.session || this.stopped) return;
      this.armed.delete(id);
      this.refresh(gen, onEvent);
    };
  }

  /** Children of `path` with a child watch, or (when it is missing) an exists watch and undefined. */
  private async children(
    gen: number,
    path: string,
    onEvent: (changed: Set<string>) => Promise<void>,
  ): Promise<string[] | undefined> {
    const client = this.client;
    if (gen !== this.session || !client) return undefined;
    const id = `children ${path}`;
    const watcher = this.arm(gen, id, onEvent);
    let children: string[] | undefined;
    try {
      children = await getChildren(client, path, watcher);
    } catch (err) {
      this.armed.delete(id);
      throw err;
    }
    if (children !== undefined) return children;
    this.armed.delete(id);
    const existsId = `exists ${path}`;
    const existsWatcher = this.arm(gen, existsId, onEvent);
    try {
      // Created between the two calls: read it again (this time it has children to watch).
      if (await exists(client, path, existsWatcher)) return this.children(gen, path, onEvent);
    } catch (err) {
      this.armed.delete(existsId);
      throw err;
    }
    return undefined;
  }

  /**
   * Lists the interfaces and reads the providers of the new ones (of all of them when `full`; a watch already
   * armed is not armed twice).
   */
  private async readRoot(gen: number, changed: Set<string>, full = false): Promise<void> {
    const listed = await this.children(gen, this.root, (c) => this.readRoot(gen, c));
    if (gen !== this.session) return;
    const next = new Set((listed ?? []).filter((child) => !NOT_INTERFACES.has(child)));
    for (const gone of this.interfaces) {
      if (!next.has(gone) && this.table.replace(gone, this.providersPath(gone), [])) changed.add(gone);
    }
    const added = [...next].filter(
      (i) => full || !this.interfaces.has(i) || !this.armed.has(`children ${this.providersPath(i)}`),
    );
    this.interfaces = next;
    await forEachLimit(added, READ_CONCURRENCY, (iface) => this.readProviders(gen, iface, changed));
  }

  private providersPath(iface: string): string {
    return join(join(this.root, iface), 'providers');
  }

  private async readProviders(gen: number, iface: string, changed: Set<string>): Promise<void> {
    const path = this.providersPath(iface);
    const listed = await this.children(gen, path, (c) => this.readProviders(gen, iface, c));
    if (gen !== this.session) return;
    const nodes = this.interfaces.has(iface) ? (listed ?? []) : [];
    const providers = nodes.flatMap((node) => {
      const origin = join(path, node);
      const provider = parseProviderUrl(node, origin);
      if (!provider) this.warnMalformed(origin, 'Dubbo provider URL');
      return provider ? [provider] : [];
    });
    if (this.table.replace(iface, path, providers)) changed.add(iface);
  }

  private async readApps(gen: number, changed: Set<string>, full = false): Promise<void> {
    const listed = await this.children(gen, SERVICES_ROOT, (c) => this.readApps(gen, c));
    if (gen !== this.session) return;
    const next = new Set(listed ?? []);
    for (const app of [...this.apps.keys()].filter((a) => !next.has(a))) {
      this.dropInstances(app, new Set(), changed);
      this.apps.delete(app);
    }
    const added = [...next].filter(
      (a) => full || !this.apps.has(a) || !this.armed.has(`children ${join(SERVICES_ROOT, a)}`),
    );
    for (const app of added) if (!this.apps.has(app)) this.apps.set(app, new Set());
    await forEachLimit(added, READ_CONCURRENCY, (app) => this.readApp(gen, app, changed, full));
  }

  private async readApp(gen: number, app: string, changed: Set<string>, full = false): Promise<void> {
    const path = join(SERVICES_ROOT, app);
    const listed = await this.children(gen, path, (c) => this.readApp(gen, app, c));
    if (gen !== this.session || !this.apps.has(app)) return;
    const next = new Set(listed ?? []);
    const known = this.dropInstances(app, next, changed);
    const added = [...next].filter((i) => full || !known.has(i) || !this.armed.has(`data ${join(path, i)}`));
    for (const instance of added) known.add(instance);
    await forEachLimit(added, READ_CONCURRENCY, (instance) => this.readInstance(gen, app, instance, changed));
  }

  /** Forgets the instances of `app` not in `keep`; returns the ones left. */
  private dropInstances(app: string, keep: Set<string>, changed: Set<string>): Set<string> {
    const known = this.apps.get(app) ?? new Set<string>();
    for (const instance of [...known].filter((i) => !keep.has(i))) {
      known.delete(instance);
      if (this.table.replace(app, join(join(SERVICES_ROOT, app), instance), [])) changed.add(app);
    }
    return known;
  }

  private async readInstance(
    gen: number,
    app: string,
    instance: string,
    changed: Set<string>,
  ): Promise<void> {
    const client = this.client;
    if (gen !== this.session || !client) return;
    const path = join(join(SERVICES_ROOT, app), instance);
    const id = `data ${path}`;
    const watcher = this.arm(gen, id, (c) => this.readInstance(gen, app, instance, c));
    let data: Buffer | undefined;
    try {
      data = await getData(client, path, watcher);
    } catch (err) {
      this.armed.delete(id);
      throw err;
    }
    if (data === undefined) this.armed.delete(id);
    if (gen !== this.session || !this.apps.get(app)?.has(instance)) return;
    const provider = data === undefined ? undefined : parseInstanceRecord(app, data.toString('utf8'), path);
    if (data !== undefined && !provider) this.warnMalformed(path, 'application instance record');
    if (this.table.replace(app, path, provider ? [provider] : [])) changed.add(app);
  }
}
