/**
 * A client-node informer (ListWatch) that survives failures. client-node 1.4 facts (spec/ecosystem.md 1.1):
 * a 410 (watch ERROR event or HTTP 410) re-lists by itself and reports vanished objects as deletes; any other
 * error emits `error` and stops the informer for good, so it is restarted here with capped, jittered backoff;
 * a watch that ends normally is re-opened at once, so re-opens are spaced by at least `minWatchIntervalMs`.
 * An owner may decide what a failure means (`onFailure`: e.g. 404 or 403, see kit/kube/kind-informer.ts) and hears
 * of each restart that ended with the watch open (`onOpened`). A restart re-lists only when no resourceVersion is
 * held: client-node 1.4's ListWatch.doneHandler (dist/cache.js) lists only when its resourceVersion is empty (at
 * first, after a 410), so a restart after a refused watch re-opens the watch from where it stopped.
 */
import {
  ListWatch,
  Watch,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
} from '@kubernetes/client-node';
import type { Logger } from '../../util/logger.ts';
import { errorFields } from '../../util/logger.ts';
import { Backoff, type BackoffOptions } from '../../util/backoff.ts';
import { systemClock, type Clock, type TimerHandle } from '../../util/clock.ts';
import { statusCodeOf } from './errors.ts';
import { Slicer } from '../../util/slices.ts';

export interface InformerHandlers {
  /** Added or changed (same resourceVersion never reported twice). */
  upsert(obj: KubernetesObject): void;
  delete(obj: KubernetesObject): void;
}

/** A failed list or watch: which call, and the HTTP status when the API server answered one. */
export interface InformerFailure {
  readonly op: 'list' | 'watch';
  readonly code: number | undefined;
  readonly error: unknown;
}

/** What to do after a failure (undefined from `onFailure`: restart after the backoff's delay, logged at warn). */
export interface FailureDecision {
  /** Do not restart: the owner takes over (and stops or replaces this informer). */
  readonly stop?: boolean;
  /** Restart after this delay instead of the backoff's. */
  readonly delayMs?: number;
  /** The owner has said what there is to say: no warn line for this failure. */
  readonly quiet?: boolean;
}

export interface ResilientInformerOptions {
  readonly kc: KubeConfig;
  /** Watch path, e.g. `/apis/metaprotocol.aeraki.io/v1alpha1/metarouters`. */
  readonly path: string;
  readonly list: () => Promise<KubernetesListObject<KubernetesObject>>;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly handlers: InformerHandlers;
  /**
   * Reduces each listed or watched object (ADDED, MODIFIED, DELETED) before the informer caches it and hands it
   * to the handlers, so that only the fields used are held. Must keep metadata name, namespace and
   * resourceVersion. Default: objects as read.
   */
  readonly transform?: (obj: KubernetesObject) => KubernetesObject;
  readonly backoff?: BackoffOptions;
  readonly minWatchIntervalMs?: number;
  /**
   * Called after each start or restart that ended with the watch open and no failure: after a list when one was
   * due (the first start, or no resourceVersion held), or straight from the resourceVersion held (a restart after
   * a refused watch re-watches without listing, as client-node's ListWatch does). The API server answered every
   * request of that start: an owner clears here what a failure set (kit/kube/kind-informer.ts: forbidden).
   */
  readonly onOpened?: () => void;
  /** Called on every failure, before the restart is scheduled; see FailureDecision. */
  readonly onFailure?: (failure: InformerFailure) => FailureDecision | undefined;
  readonly clock?: Clock;
  readonly logger: Logger;
}

/** Watch event types whose object is a resource (the others: BOOKMARK, ERROR). */
const WATCHED_OBJECT_PHASES: ReadonlySet<string> = new Set(['ADDED', 'MODIFIED', 'DELETED']);

/** The subset of client-node's Watch that ListWatch uses. */
type WatchLike = Pick<Watch, 'watch'>;

export class ResilientInformer {
  private readonly o: ResilientInformerOptions;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly backoff: Backoff;
  private readonly lw: ListWatch<KubernetesObject>;
  private restartTimer: TimerHandle | undefined;
  private stopped = true;
  private syncedOnce = false;
  private listFailed = false;
  private failures = 0;
  private readonly syncWaiters: (() => void)[] = [];
  /** Number of restarts after errors (for tests and metrics). */
  restarts = 0;
  /** Number of successful lists (the first one, and one per 410 or restart without resourceVersion). */
  lists = 0;

  constructor(options: ResilientInformerOptions) {
    this.o = options;
    this.clock = options.clock ?? systemClock;
    this.log = options.logger.child({ component: 'informer', path: options.path });
    this.backoff = new Backoff({ initialMs: 500, maxMs: 30_000, ...options.backoff });
    const listFn = async (): Promise<KubernetesListObject<KubernetesObject>> => {
      let list: KubernetesListObject<KubernetesObject>;
      try {
        list = await this.o.list();
      } catch (err) {
        this.listFailed = true;
        throw err;
      }
      this.lists++;
      this.backoff.reset();
      const transform = this.o.transform;
      if (!transform) return list;
      // Reduced in slices that yield to the loop (a reducer may hash each object: 30,000 of them take a second).
      const slicer = new Slicer();
      const items: KubernetesObject[] = [];
      for (const o of list.items) {
        items.push(transform(o));
        await slicer.pause();
      }
      return { ...list, items };
    };
    this.lw = new ListWatch(
      options.path,
      this.spacedWatch(new Watch(options.kc)) as Watch,
      listFn,
      false,
      options.labelSelector,
      options.fieldSelector,
    );
    this.lw.on('add', (obj) => {
      options.handlers.upsert(obj);
    });
    this.lw.on('update', (obj) => {
      options.handlers.upsert(obj);
    });
    this.lw.on('delete', (obj) => {
      options.handlers.delete(obj);
    });
    this.lw.on('error', (err: unknown) => {
      this.onError(err);
    });
  }

  /** True once a list has been applied (stays true across restarts). */
  get synced(): boolean {
    return this.syncedOnce;
  }

  /** The objects as last listed and watched (copies are not made: do not change them). */
  objects(): readonly KubernetesObject[] {
    return this.lw.list();
  }

  whenSynced(): Promise<void> {
    if (this.syncedOnce) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.startOnce();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.restartTimer) this.clock.clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    await this.lw.stop();
  }

  private async startOnce(): Promise<void> {
    const listsBefore = this.lists;
    const failuresBefore = this.failures;
    try {
      await this.lw.start();
    } catch (err) {
      this.onError(err);
    }
    if (this.lists > listsBefore && !this.syncedOnce) {
      this.syncedOnce = true;
      for (const w of this.syncWaiters.splice(0)) w();
    }
    // A list is needed once; a restart may watch from the resourceVersion held (no list: still a recovery).
    if (this.lists > 0 && this.failures === failuresBefore && !this.stopped) this.o.onOpened?.();
  }

  private onError(err: unknown): void {
    if (this.stopped || this.restartTimer) return;
    this.failures++;
    const op = this.listFailed ? 'list' : 'watch';
    this.listFailed = false;
    const decision = this.o.onFailure?.({ op, code: statusCodeOf(err), error: err }) ?? {};
    if (decision.stop) {
      void this.stop();
      return;
    }
    const delay = decision.delayMs ?? this.backoff.next();
    this.restarts++;
    if (!decision.quiet)
      this.log.warn('informer stopped, restarting', { delayMs: delay, ...errorFields(err) });
    this.restartTimer = this.clock.setTimeout(() => {
      this.restartTimer = undefined;
      if (!this.stopped) void this.startOnce();
    }, delay);
  }

  /** A Watch whose (re)opens are spaced by minWatchIntervalMs and which reset the backoff on every event. */
  private spacedWatch(inner: Watch): WatchLike {
    let lastOpen = 0;
    const minGap = this.o.minWatchIntervalMs ?? 200;
    return {
      watch: async (path, query, callback, done) => {
        const wait = lastOpen + minGap - this.clock.now();
        if (wait > 0) await new Promise<void>((r) => this.clock.setTimeout(r, wait));
        lastOpen = this.clock.now();
        if (this.stopped) {
          const c = new AbortController();
          c.abort();
          return c;
        }
        return inner.watch(
          path,
          query,
          (phase, obj, watchObj) => {
            this.backoff.reset();
            const transform = this.o.transform;
            const reduce = transform && WATCHED_OBJECT_PHASES.has(phase);
            callback(phase, reduce ? transform(obj as KubernetesObject) : obj, watchObj);
          },
          done,
        );
      },
    };
  }
}
