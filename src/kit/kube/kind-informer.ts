/**
 * One resilient informer for a resource the API server may not serve, as istiod treats optional kinds: it asks
 * discovery first and starts its informer only when the resource is served.
 *
 * - Not served (its CRD is not installed): an optional kind is empty, which is positive knowledge, so it counts
 *   as synced; a required one never syncs. Said once at warn; discovery asks again every `rediscoverMs` and the
 *   informer starts once the CRD is installed. A kind becomes "not installed" only when discovery and the API
 *   server agree: discovery says so and its own list (or watch) answers 404 (403 too before it was ever listed:
 *   the authorizer answers before routing). A transient 404 of either alone never empties a kind.
 * - Served and then gone (CRD deleted, so the API server deleted its objects): once both agree, the objects the
 *   informer held are reported deleted and the kind is "not installed" again.
 * - Forbidden (403 on list, watch or re-list, at start or at any time later): not synced; one warn line names the
 *   RBAC rule missing, retries follow a long backoff (5 s doubling to 60 s) without further lines, and one info line
 *   says when access came back. Forbidden lasts only while the last request was refused: a list that succeeds, or a
 *   watch that opens again (a refused re-watch resumes from the resourceVersion held, without a list), clears it.
 * - A 404 on any request, discovery still serving the resource: retried with the informer's backoff, the kind kept.
 * The core group is always served: its kinds skip discovery (forbidden still applies).
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { Backoff, type BackoffOptions } from '../../util/backoff.ts';
import { systemClock, type Clock, type TimerHandle } from '../../util/clock.ts';
import { qualifiedResource, type ResourceDiscovery, type ResourceId } from './discovery.ts';
import { statusCodeOf } from './errors.ts';
import {
  ResilientInformer,
  type FailureDecision,
  type InformerFailure,
  type ResilientInformerOptions,
} from './informer.ts';
import { errorFields, type Logger } from '../../util/logger.ts';

export type KindPhase = 'discovering' | 'listing' | 'served' | 'not-installed' | 'forbidden';

/** Where a kind stands; `verb` is set when forbidden. */
export interface KindStatus {
  readonly kind: string;
  readonly resource: ResourceId;
  readonly phase: KindPhase;
  readonly optional: boolean;
  readonly verb?: 'list' | 'watch';
}

/** Timings of discovery and of retries after 403 (tests shorten them). */
export interface KindDiscoveryOptions {
  /** How often a kind that is not served is looked up again, ms (default 30 000). */
  readonly rediscoverMs?: number;
  /** Retries after a 403 (default 5 s doubling to 60 s). */
  readonly forbiddenBackoff?: BackoffOptions;
}

export interface KindInformerOptions
  extends Omit<ResilientInformerOptions, 'onFailure' | 'onOpened'>, KindDiscoveryOptions {
  readonly kind: string;
  readonly resource: ResourceId;
  readonly discovery: ResourceDiscovery;
  /** False: a resource not served is missing, not empty, and the kind never syncs (default true). */
  readonly optional?: boolean;
  /** Called whenever `status()` or `synced` may have changed. */
  readonly onStateChange?: () => void;
  /**
   * False: "not installed", "forbidden" and their recoveries are logged at debug, because another informer of the
   * same kind says so already (default true).
   */
  readonly announce?: boolean;
}

/** `forbidden: list metarouters.metaprotocol.aeraki.io (grant verbs list, watch on group ... resource ...)`. */
export function forbiddenMessage(verb: string, r: ResourceId): string {
  const group = r.group === '' ? '"" (core)' : r.group;
  return `forbidden: ${verb} ${qualifiedResource(r)} (grant verbs list, watch on group ${group} resource ${r.plural})`;
}

/**
 * `MetaRouter not installed (CRD metarouters.metaprotocol.aeraki.io)`; a built-in kind (a `*.k8s.io` group, such as
 * EndpointSlice before Kubernetes 1.21) is `EndpointSlice not served (endpointslices.discovery.k8s.io)`.
 */
export function notInstalledMessage(kind: string, r: ResourceId): string {
  if (r.group === '' || r.group.endsWith('.k8s.io')) return `${kind} not served (${qualifiedResource(r)})`;
  return `${kind} not installed (CRD ${qualifiedResource(r)})`;
}

export class KindInformer {
  private readonly o: KindInformerOptions;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly backoff: Backoff;
  private readonly forbiddenBackoff: Backoff;
  private informer: ResilientInformer | undefined;
  private timer: TimerHandle | undefined;
  private phase: KindPhase = 'discovering';
  private forbiddenVerb: 'list' | 'watch' | undefined;
  private syncedOnce = false;
  private checking = false;
  private stopped = true;
  private readonly waiters: (() => void)[] = [];

  constructor(options: KindInformerOptions) {
    this.o = options;
    this.clock = options.clock ?? systemClock;
    this.log = options.logger.child({ kind: options.kind });
    this.backoff = new Backoff({ initialMs: 500, maxMs: 30_000, ...options.backoff });
    this.forbiddenBackoff = new Backoff({
      initialMs: 5_000,
      maxMs: 60_000,
      multiplier: 2,
      ...options.forbiddenBackoff,
    });
  }

  get optional(): boolean {
    return this.o.optional ?? true;
  }

  /** Listed once (or, if optional, found not installed) and not forbidden now. */
  get synced(): boolean {
    if (this.phase === 'forbidden') return false;
    if (this.phase === 'not-installed') return this.optional;
    return this.syncedOnce;
  }

  status(): KindStatus {
    const s = { kind: this.o.kind, resource: this.o.resource, phase: this.phase, optional: this.optional };
    return this.forbiddenVerb && this.phase === 'forbidden' ? { ...s, verb: this.forbiddenVerb } : s;
  }

  /** Resolves the first time `synced` is true. */
  whenSynced(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Listed at least once (whatever the state since). */
  get listed(): boolean {
    return this.syncedOnce;
  }

  /** The objects the current informer holds (none while not served). Not copies: do not change them. */
  objects(): readonly KubernetesObject[] {
    return this.informer?.objects() ?? [];
  }

  /** Restarts after errors of the current informer (tests, metrics). */
  get restarts(): number {
    return this.informer?.restarts ?? 0;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    if (this.o.resource.group === '') this.startInformer();
    else void this.discover();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.clearTimer();
    await this.informer?.stop();
  }

  /** A change of state, at `level` (debug when another informer announces it). */
  private note(level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>): void {
    this.log[this.o.announce === false ? 'debug' : level](message, fields);
  }

  private changed(): void {
    if (this.synced) for (const w of this.waiters.splice(0)) w();
    this.o.onStateChange?.();
  }

  private after(ms: number, fn: () => void): void {
    this.clearTimer();
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      if (!this.stopped) fn();
    }, ms);
  }

  private clearTimer(): void {
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Asks discovery; starts the informer when served, else confirms the absence (first time) or waits. */
  private async discover(): Promise<void> {
    let served: boolean;
    try {
      served = await this.o.discovery.served(this.o.resource);
    } catch (err) {
      if (this.stopped) return;
      const retrying = this.phase === 'not-installed';
      const delay = retrying ? (this.o.rediscoverMs ?? 30_000) : this.backoff.next();
      const fields = { resource: qualifiedResource(this.o.resource), delayMs: delay, ...errorFields(err) };
      if (retrying) this.log.debug('API discovery failed, retrying', fields);
      else this.log.warn('API discovery failed, retrying', fields);
      this.after(delay, () => void this.discover());
      return;
    }
    if (this.stopped) return;
    this.backoff.reset();
    if (served) this.startInformer();
    else if (this.phase === 'not-installed')
      this.after(this.o.rediscoverMs ?? 30_000, () => void this.discover());
    else await this.confirmAbsent();
  }

  /** Discovery says not served: the list must not succeed either (404, or 403 from the authorizer). */
  private async confirmAbsent(): Promise<void> {
    try {
      await this.o.list();
    } catch (err) {
      if (this.stopped) return;
      const code = statusCodeOf(err);
      if (code === 404 || code === 403) return this.becomeAbsent();
      this.after(this.backoff.next(), () => void this.discover());
      return;
    }
    if (!this.stopped) this.startInformer(); // discovery was behind: the resource is served
  }

  private startInformer(): void {
    if (this.phase === 'not-installed') {
      this.note('info', `${this.o.kind} is served now: reading it`, {
        resource: qualifiedResource(this.o.resource),
      });
    }
    this.phase = 'listing';
    const informer: ResilientInformer = new ResilientInformer({
      ...this.o,
      onOpened: () => this.onOpened(),
      onFailure: (f) => this.onFailure(informer, f),
    });
    this.informer = informer;
    this.changed();
    informer.start();
  }

  /** The list (when one was due) and the watch were answered: whatever was refused before is granted now. */
  private onOpened(): void {
    if (this.phase === 'forbidden') {
      this.note('info', `access to ${qualifiedResource(this.o.resource)} granted: reading ${this.o.kind}`);
    }
    this.phase = 'served';
    this.forbiddenVerb = undefined;
    this.syncedOnce = true;
    this.forbiddenBackoff.reset();
    this.changed();
  }

  private onFailure(informer: ResilientInformer, f: InformerFailure): FailureDecision | undefined {
    if (f.code === 403) {
      if (this.phase !== 'forbidden' || this.forbiddenVerb !== f.op) {
        this.note('warn', forbiddenMessage(f.op, this.o.resource), {
          verb: f.op,
          group: this.o.resource.group,
          resource: this.o.resource.plural,
        });
      }
      this.phase = 'forbidden';
      this.forbiddenVerb = f.op;
      this.changed();
      return { delayMs: this.forbiddenBackoff.next(), quiet: true };
    }
    if (f.code === 404 && this.o.resource.group !== '') void this.recheck(informer);
    return undefined;
  }

  /** The list or watch answered 404: the kind is gone only if discovery agrees; else the informer retries. */
  private async recheck(informer: ResilientInformer): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      const served = await this.o.discovery.served(this.o.resource);
      if (!served && !this.stopped && this.informer === informer) await this.becomeAbsent();
    } catch {
      // discovery failed too: the informer keeps retrying, and the next 404 asks again
    } finally {
      this.checking = false;
    }
  }

  private async becomeAbsent(): Promise<void> {
    const informer = this.informer;
    this.informer = undefined;
    if (informer) {
      const held = informer.objects();
      await informer.stop();
      // The API server deleted them with their CRD (cascading delete); the watch may not have said so.
      for (const obj of held) this.o.handlers.delete(obj);
    }
    if (this.stopped) return;
    this.phase = 'not-installed';
    const resource = qualifiedResource(this.o.resource);
    if (this.optional) {
      this.note(
        'warn',
        `${notInstalledMessage(this.o.kind, this.o.resource)}: read as empty until installed`,
        {
          resource,
        },
      );
    } else {
      this.note('error', `${notInstalledMessage(this.o.kind, this.o.resource)}: required, install it`, {
        resource,
      });
    }
    this.changed();
    this.after(this.o.rediscoverMs ?? 30_000, () => void this.discover());
  }
}
