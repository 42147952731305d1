/**
 * One registry's bridge: keeps the complete desired set of its ServiceEntries, converted (convert.ts) from what
 * its watcher lists, and reports what changed.
 *
 * - Incremental: a `services` change marks those keys dirty; after the debounce (`spec.debounceMs`, at most 5 s
 *   after the first change of a burst) only the dirty keys are converted again, so one provider change costs the
 *   same whatever the number of services. A `synced` change (first sync, and after every reconnect or session
 *   expiry) re-converts every key listed and every key that has entries.
 * - Deletion: an entry no longer desired is removed only while the watcher is connected and has finished a full
 *   read in the current session (so never before the first sync, never while disconnected, and after a reconnect
 *   only once the new session synced); until then it is kept as it was, and removed by the recompute that follows
 *   the `synced`. With `keepStaleWhenEmpty`, a service whose providers are all gone keeps its entries.
 * - Namespaces: an entry whose namespace does not exist (`namespaceExists`) is held back with a warning, and
 *   reported once `namespacesChanged()` finds the namespace.
 * - VIPs: one per host from the shared RegistryVips (vips.ts), held while the entry exists.
 * Listeners are called synchronously after each recompute that changed the reported set, with the changes only.
 */
import type {
  DubboProvider,
  RegistryChange,
  RegistrySpec,
  RegistryWatcher,
} from '../model/registry-bridge.ts';
import { formatIssue } from '../model/result.ts';
import { systemClock, type Clock } from '../util/clock.ts';
import { ControllerLoop } from '../kit/controller-loop.ts';
import { stableStringify } from '../util/json.ts';
import type { Logger } from '../util/logger.ts';
import { convertService, isServiceAllowed } from './convert.ts';
import type { RegistryServiceEntry } from './types.ts';
import type { RegistryVips } from './vips.ts';

/** What one recompute changed in the reported set. */
export interface BridgeDelta {
  /** Added or changed entries, by namespace/name. */
  readonly upserted: readonly RegistryServiceEntry[];
  /** Entries no longer reported (deleted, or their namespace went away). */
  readonly removed: readonly { readonly namespace: string; readonly name: string }[];
}

/** `/debug/registries` and metrics. */
export interface RegistryBridgeStatus {
  readonly name: string;
  readonly type: RegistrySpec['type'];
  readonly connected: boolean;
  readonly synced: boolean;
  /** ServiceEntries reported. */
  readonly services: number;
  /** Endpoints of the reported ServiceEntries. */
  readonly endpoints: number;
  /** Entries held back because their namespace does not exist. */
  readonly skipped: number;
  readonly syncErrors: number;
  readonly lastError?: string;
}

export interface RegistryBridgeOptions {
  readonly spec: RegistrySpec;
  readonly watcher: RegistryWatcher;
  /** Namespace of the entries when neither the spec nor a provider names one. */
  readonly rootNamespace: string;
  readonly vips: RegistryVips;
  /** Default: every namespace exists. */
  readonly namespaceExists?: (namespace: string) => boolean;
  readonly clock?: Clock;
  readonly logger: Logger;
}

interface Held {
  readonly entry: RegistryServiceEntry;
  readonly key: string;
  /** Whether it is reported (its namespace exists). */
  reported: boolean;
}

const refOf = (se: RegistryServiceEntry) => ({ namespace: se.metadata.namespace, name: se.metadata.name });
const idOf = (se: { metadata: { namespace: string; name: string } }) =>
  `${se.metadata.namespace}/${se.metadata.name}`;

export class RegistryBridge {
  readonly name: string;
  private readonly o: RegistryBridgeOptions;
  private readonly log: Logger;
  private readonly loop: ControllerLoop<void>;
  private readonly dirty = new Set<string>();
  private readonly owned = new Map<string, Set<string>>();
  private readonly held = new Map<string, Held>();
  private readonly lastIssues = new Map<string, string>();
  private readonly listeners: ((d: BridgeDelta) => void)[] = [];
  private sorted: readonly RegistryServiceEntry[] | undefined;
  private connected = false;
  private sessionSynced = false;
  private everSynced = false;
  /** A `synced` arrived since the last recompute: the next delta is emitted even if empty. */
  private announceSync = false;
  private syncErrors = 0;
  private lastError: string | undefined;
  private reportedCount = 0;
  private endpointCount = 0;

  constructor(options: RegistryBridgeOptions) {
    this.o = options;
    this.name = options.spec.name;
    this.log = options.logger.child({ component: 'registry-bridge', registry: options.spec.name });
    const debounce = options.spec.debounceMs;
    this.loop = new ControllerLoop<void>({
      run: () => Promise.resolve(this.recompute()),
      failed: (err) => this.log.error('registry recompute failed', { error: String(err) }),
      skipped: () => undefined,
      classify: () => 'ok',
      quietMs: debounce,
      maxWaitMs: Math.max(debounce, 5000),
      pollMs: 1000,
      resyncMs: 0,
      retry: {},
      clock: options.clock ?? systemClock,
      logger: this.log,
    });
  }

  /** Calls `listener` after each recompute that changed the reported set; returns the unsubscribe function. */
  onChange(listener: (d: BridgeDelta) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  start(): void {
    const s = this.o.watcher.status();
    this.connected = s.connected;
    this.sessionSynced = s.synced;
    this.everSynced = s.synced;
    this.loop.start();
    this.o.watcher.start((c) => this.onWatcher(c));
    for (const k of this.o.watcher.services()) this.dirty.add(k);
    this.loop.trigger();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await this.o.watcher.stop();
  }

  /** Resolves once no recompute is pending or running (advance a manual clock past the debounce first). */
  idle(): Promise<void> {
    return this.loop.idle();
  }

  /** Deletions are allowed: connected, and a full read finished in the current session. */
  mayDelete(): boolean {
    return this.connected && this.sessionSynced;
  }

  /** Has synced at least once since start. */
  get synced(): boolean {
    return this.everSynced;
  }

  /** The reported entries, by namespace/name (the same array until the next change). */
  entries(): readonly RegistryServiceEntry[] {
    this.sorted ??= [...this.held.entries()]
      .filter(([, h]) => h.reported)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, h]) => h.entry);
    return this.sorted;
  }

  status(): RegistryBridgeStatus {
    return {
      name: this.name,
      type: this.o.spec.type,
      connected: this.connected,
      synced: this.everSynced,
      services: this.reportedCount,
      endpoints: this.endpointCount,
      skipped: this.held.size - this.reportedCount,
      syncErrors: this.syncErrors,
      ...(this.lastError !== undefined ? { lastError: this.lastError } : {}),
    };
  }

  /** The current conversion warnings (dropped endpoints, port and namespace conflicts), one line per service. */
  issues(): string[] {
    return [...this.lastIssues.keys()].sort().map((k) => `${k}: ${this.lastIssues.get(k)}`);
  }

  /** Re-checks every entry's namespace (call when namespaces appear or go). */
  namespacesChanged(): void {
    const delta = newDelta();
    for (const h of this.held.values()) {
      const exists = this.o.namespaceExists?.(h.entry.metadata.namespace) ?? true;
      if (exists === h.reported) continue;
      if (h.reported) this.count(h.entry, -1);
      this.reconcileReported(h, delta, h.reported);
    }
    this.emit(delta);
  }

  private onWatcher(c: RegistryChange): void {
    switch (c.type) {
      case 'services':
        for (const k of c.keys) this.dirty.add(k);
        break;
      case 'synced':
        this.announceSync = true;
        this.connected = true;
        this.sessionSynced = true;
        this.everSynced = true;
        for (const k of this.o.watcher.services()) this.dirty.add(k);
        for (const k of this.owned.keys()) this.dirty.add(k);
        break;
      case 'disconnected':
        this.connected = false;
        this.sessionSynced = false;
        this.syncErrors++;
        this.lastError = c.error;
        this.log.warn('registry disconnected; nothing is deleted until it synced again', { error: c.error });
        return;
      case 'connected':
        this.connected = true;
        return;
    }
    this.loop.trigger();
  }

  private recompute(): void {
    const keys = [...this.dirty].sort();
    this.dirty.clear();
    const delta = newDelta();
    for (const key of keys) this.recomputeKey(key, delta);
    // A sync is announced even when it changed nothing: listeners wait for it (the MCP server's first answer).
    this.emit(delta, this.announceSync);
    this.announceSync = false;
  }

  private providersOf(key: string): readonly DubboProvider[] {
    return isServiceAllowed(this.o.spec, key) ? this.o.watcher.providers(key) : [];
  }

  private recomputeKey(key: string, delta: MutableDelta): void {
    const converted = convertService(this.o.spec, this.o.rootNamespace, this.providersOf(key));
    this.logIssues(key, converted.issues.map(formatIssue).join('; '));
    const old = this.owned.get(key) ?? new Set<string>();
    if (converted.entries.length === 0 && this.o.spec.keepStaleWhenEmpty) return;
    const now = new Set<string>();
    for (const se of converted.entries) {
      const id = idOf(se);
      const other = this.held.get(id);
      if (other && other.key !== key) {
        this.log.warn('two registry services convert to one ServiceEntry; the first keeps it', { id, key });
        continue;
      }
      now.add(id);
      this.put(id, key, se, delta);
    }
    for (const id of old) {
      if (now.has(id)) continue;
      if (this.mayDelete()) this.remove(id, delta);
      else now.add(id); // kept stale until the session's full sync
    }
    if (now.size > 0) this.owned.set(key, now);
    else this.owned.delete(key);
  }

  private put(id: string, key: string, se: RegistryServiceEntry, delta: MutableDelta): void {
    const before = this.held.get(id);
    const host = se.spec.hosts[0] ?? '';
    const vip = before ? before.entry.spec.addresses[0] : this.o.vips.acquire(host);
    const entry: RegistryServiceEntry = { ...se, spec: { ...se.spec, addresses: vip ? [vip] : [] } };
    if (before && stableStringify(before.entry) === stableStringify(entry)) return;
    if (before?.reported) this.count(before.entry, -1);
    const h: Held = { entry, key, reported: false };
    this.held.set(id, h);
    this.reconcileReported(h, delta, before?.reported ?? false);
  }

  private remove(id: string, delta: MutableDelta): void {
    const h = this.held.get(id);
    if (!h) return;
    this.held.delete(id);
    this.sorted = undefined;
    this.o.vips.release(h.entry.spec.hosts[0] ?? '');
    if (h.reported) {
      this.count(h.entry, -1);
      delta.removed.push(refOf(h.entry));
    }
  }

  /**
   * Reports `h` when its namespace exists (counting it and recording an upsert); otherwise holds it back with a
   * warning, recording a removal when `wasReported` (the reported set held its id; no longer counted).
   */
  private reconcileReported(h: Held, delta: MutableDelta, wasReported: boolean): void {
    const { namespace, name } = h.entry.metadata;
    this.sorted = undefined;
    h.reported = this.o.namespaceExists?.(namespace) ?? true;
    if (h.reported) {
      this.count(h.entry, 1);
      delta.upserted.push(h.entry);
      return;
    }
    this.log.warn('namespace does not exist; ServiceEntry skipped until it does', { namespace, name });
    if (wasReported) delta.removed.push(refOf(h.entry));
  }

  private count(se: RegistryServiceEntry, sign: 1 | -1): void {
    this.reportedCount += sign;
    this.endpointCount += sign * se.spec.endpoints.length;
  }

  private logIssues(key: string, issues: string): void {
    if ((this.lastIssues.get(key) ?? '') === issues) return;
    if (issues === '') this.lastIssues.delete(key);
    else {
      this.lastIssues.set(key, issues);
      this.log.warn(`registry service ${key}: ${issues}`);
    }
  }

  private emit(delta: MutableDelta, always = false): void {
    if (!always && delta.upserted.length === 0 && delta.removed.length === 0) return;
    for (const l of [...this.listeners]) l(delta);
  }
}

interface MutableDelta {
  readonly upserted: RegistryServiceEntry[];
  readonly removed: { readonly namespace: string; readonly name: string }[];
}

function newDelta(): MutableDelta {
  return { upserted: [], removed: [] };
}
