/**
 * Secrets by name (least privilege, DESIGN habit 14): the Secrets that objects name (their kinds' secretRefs,
 * model/secret-refs.ts) are read with a GET by name in the object's namespace, never listed or watched (RBAC:
 * `get secrets` only). Only the keys a filter uses are kept, in a Secret of the store that has a namespace, a name
 * and that data and nothing else (no labels, annotations or other keys: `last-applied-configuration` is never held).
 *
 * An object that names Secrets is stored once every Secret it names was read. A Secret that is missing (404) or
 * forbidden (403) is an error of the object naming it (`<Kind> ns/x: <field naming it>: Secret ns/s not found`);
 * so is a Secret that cannot serve it (SecretRef.problems: a key it needs missing, empty or not valid base64,
 * `Secret ns/s has no key "password"`; such a Secret is not stored). The object is rejected and its last valid
 * version stays in effect with the Secret values it was read with (last known good); without a valid version, the
 * hosts its kind says it configures (KindSpec.hostsOf) are held, so their output is kept rather than rendered
 * without it. Other failures (5xx, network) are retried with backoff and change nothing.
 * Secrets are read again when an object naming them changes, and every `refreshMs` (a rotated password reaches the
 * filters); a Secret no stored or waiting object names any more is removed from the store.
 * No log line or issue holds a Secret value: they name the Secret and the status code only.
 */
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { apiStatusOf } from '../../kit/kube/errors.ts';
import type { ConfigKind, ConfigObject, Secret } from '../../model/objects.ts';
import { decodeSecretValue } from '../../model/parse/secret.ts';
import { formatIssue, refOf, type ConfigIssue, type ObjectRef } from '../../model/result.ts';
import {
  secretAbsentIssue,
  secretProblemIssues,
  usedSecretData,
  type SecretRef,
  type SecretRefsOf,
} from '../../model/secret-refs.ts';
import { Backoff, type BackoffOptions } from '../../util/backoff.ts';
import type { Clock, TimerHandle } from '../../util/clock.ts';
import { stableStringify } from '../../util/json.ts';
import type { Logger } from '../../util/logger.ts';
import type { KeyedWrites } from '../store-changes.ts';

/** What a GET of one Secret gave: its decoded data, or why not (a status code for `failed`). */
export type SecretAnswer =
  | {
      readonly found: true;
      readonly data: Readonly<Record<string, string>>;
      /** Keys of `data` whose value is not valid base64 (absent from `data`). */
      readonly undecodable?: readonly string[];
    }
  | { readonly found: false; readonly reason: 'not found' | 'forbidden' | 'failed'; readonly code?: number };

/** One GET by name; never throws (failures are answers). */
export type SecretGetter = (namespace: string, name: string) => Promise<SecretAnswer>;

/** The getter over the Kubernetes API: `GET /api/v1/namespaces/<ns>/secrets/<name>`, data decoded at once. */
export function kubeSecretGetter(kc: KubeConfig): SecretGetter {
  const core = kc.makeApiClient(CoreV1Api);
  return async (namespace, name) => {
    try {
      const s = await core.readNamespacedSecret({ namespace, name });
      const data: Record<string, string> = {};
      const undecodable: string[] = [];
      for (const [k, v] of Object.entries(s.data ?? {})) {
        const decoded = decodeSecretValue(v);
        if (decoded === undefined) undecodable.push(k);
        else data[k] = decoded;
      }
      Object.assign(data, s.stringData ?? {});
      return { found: true, data, ...(undecodable.length > 0 ? { undecodable } : {}) };
    } catch (err) {
      const code = apiStatusOf(err);
      if (code === 404) return { found: false, reason: 'not found', code };
      if (code === 403) return { found: false, reason: 'forbidden', code };
      return { found: false, reason: 'failed', ...(code !== undefined ? { code } : {}) };
    }
  };
}

export interface SecretReaderOptions {
  readonly get: SecretGetter;
  /** The Secrets an object names (model/secret-refs.ts secretRefReader, over the plugins' kinds). */
  readonly refsOf: SecretRefsOf;
  /** The hosts an object configures (KindSpec.hostsOf), held while it is rejected here with no valid version. */
  readonly hostsOf?: (o: ConfigObject) => readonly string[];
  readonly store: KeyedWrites;
  /** Period of the reads of every named Secret (`--secret-refresh-interval`, default 60 s). */
  readonly refreshMs?: number;
  readonly backoff?: BackoffOptions;
  /** Called after answers were applied (rejections and `settled` may have changed). */
  readonly onChange?: () => void;
  readonly clock: Clock;
  readonly logger: Logger;
}

const keyOf = (r: ObjectRef) => `${r.kind}|${r.namespace}|${r.name}`;
const secretKey = (namespace: string, name: string) => `${namespace}/${name}`;

/** Outcome of reading the Secrets of one object. */
interface Reading {
  readonly issues: ConfigIssue[];
  readonly transient: boolean;
}

export class SecretReader {
  private readonly o: SecretReaderOptions;
  private readonly log: Logger;
  private readonly backoff: Backoff;
  /** The version of each owner in the store (valid, its Secrets read). */
  private readonly applied = new Map<string, ConfigObject>();
  /** The newest version of an owner not stored yet: its reads are in flight, or a Secret it names is missing. */
  private readonly waiting = new Map<string, ConfigObject>();
  /** Owners whose newest version was never answered yet (synced waits for those with no stored version). */
  private readonly unanswered = new Set<string>();
  /** Owners rejected here (a Secret missing or forbidden), not by the parser. */
  private readonly rejected = new Set<string>();
  /** Owners whose newest version the parser rejected (their stored version stays; no rejection here). */
  private readonly invalidated = new Set<string>();
  /** The Secrets put in the store. */
  private readonly held = new Set<string>();
  private timer: TimerHandle | undefined;
  private stopped = false;
  private readonly settledWaiters: (() => void)[] = [];

  constructor(options: SecretReaderOptions) {
    this.o = options;
    this.log = options.logger.child({ component: 'secrets' });
    this.backoff = new Backoff({ initialMs: 500, maxMs: 30_000, ...options.backoff });
  }

  /** Starts the periodic refresh. */
  start(): void {
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) this.o.clock.clearTimeout(this.timer);
    for (const w of this.settledWaiters.splice(0)) w();
  }

  /** True while no owner without a stored version waits for its first answer. */
  get settled(): boolean {
    for (const k of this.unanswered) if (!this.applied.has(k)) return false;
    return true;
  }

  whenSettled(): Promise<void> {
    if (this.settled || this.stopped) return Promise.resolve();
    return new Promise((r) => this.settledWaiters.push(r));
  }

  /** A valid version of an owner (a kind whose objects may name Secrets) from the source: stored once its Secrets are read. */
  offer(obj: ConfigObject): void {
    const key = keyOf(refOf(obj));
    this.invalidated.delete(key);
    const stored = this.applied.get(key);
    if (!this.waiting.has(key) && stored && stableStringify(stored) === stableStringify(obj)) return;
    if (this.o.refsOf(obj).length === 0) {
      this.forget(key);
      this.apply(key, obj);
      this.collect();
      return;
    }
    this.waiting.set(key, obj);
    this.unanswered.add(key);
    void this.resolveWaiting(key, obj, this.o.get);
  }

  /** The owner's newest version is invalid (rejected by the parser): stop waiting for it; the stored one stays. */
  invalid(ref: ObjectRef): void {
    this.forget(keyOf(ref));
    this.invalidated.add(keyOf(ref));
    this.collect();
    this.changed();
  }

  /** The owner is gone: it, and the Secrets only it named, leave the store. */
  delete(kind: ConfigKind, namespace: string, name: string): void {
    const key = keyOf({ kind, namespace, name });
    this.forget(key);
    this.applied.delete(key);
    this.invalidated.delete(key);
    this.o.store.delete(kind, namespace, name);
    this.collect();
    this.changed();
  }

  /** Reads every named Secret again now (the periodic refresh; tests call it directly). */
  async refresh(): Promise<void> {
    const get = memo(this.o.get);
    const reads: Promise<void>[] = [];
    for (const [key, obj] of this.waiting) reads.push(this.resolveWaiting(key, obj, get));
    for (const [key, obj] of this.applied) reads.push(this.recheck(key, obj, get));
    await Promise.all(reads);
  }

  private forget(key: string): void {
    this.waiting.delete(key);
    this.unanswered.delete(key);
    this.rejected.delete(key);
  }

  private apply(key: string, obj: ConfigObject): void {
    this.applied.set(key, obj);
    this.o.store.upsert(obj);
  }

  /** Reads the Secrets of a waiting version; stores it when all were found, else rejects it (or retries). */
  private async resolveWaiting(key: string, obj: ConfigObject, get: SecretGetter): Promise<void> {
    const reading = await this.read(obj, get);
    if (this.stopped || this.waiting.get(key) !== obj) return; // superseded, invalid or deleted meanwhile
    if (reading.transient) {
      const delay = this.backoff.next();
      this.o.clock.setTimeout(() => {
        if (this.waiting.get(key) === obj) void this.resolveWaiting(key, obj, this.o.get);
      }, delay);
      return;
    }
    this.unanswered.delete(key);
    if (reading.issues.length === 0) {
      this.forget(key);
      this.apply(key, obj);
    } else this.reject(key, obj, reading.issues);
    this.collect();
    this.changed();
  }

  /** Reads the Secrets of a stored version again: new values are stored; missing ones reject it (it stays). */
  private async recheck(key: string, obj: ConfigObject, get: SecretGetter): Promise<void> {
    const reading = await this.read(obj, get);
    if (this.stopped || this.applied.get(key) !== obj || this.waiting.has(key) || reading.transient) return;
    if (this.invalidated.has(key)) return; // the parser's rejection stands
    if (reading.issues.length > 0) this.reject(key, obj, reading.issues);
    else if (this.rejected.delete(key)) this.o.store.upsert(obj); // clears the rejection
    this.changed();
  }

  private reject(key: string, obj: ConfigObject, issues: ConfigIssue[]): void {
    const first = !this.rejected.has(key);
    this.rejected.add(key);
    this.o.store.reject(refOf(obj), issues, this.o.hostsOf?.(obj) ?? []);
    if (first) for (const i of issues) this.log.warn('Secret not readable', { issue: formatIssue(i) });
  }

  /** GETs every Secret `obj` names and stores the found ones (used keys only). */
  private async read(obj: ConfigObject, get: SecretGetter): Promise<Reading> {
    const ns = obj.metadata.namespace;
    const refs = this.o.refsOf(obj);
    const answers = await Promise.all(refs.map((r) => get(ns, r.name)));
    const issues: ConfigIssue[] = [];
    let transient = false;
    refs.forEach((ref, i) => {
      const answer = answers[i]!;
      const name = ref.name;
      if (answer.found) {
        const problems = secretProblemIssues(obj, ref, answer.data, answer.undecodable);
        if (problems.length > 0) issues.push(...problems);
        else this.putSecret(ns, name, answer.data);
      } else if (answer.reason === 'failed') {
        transient = true;
        this.log.warn('Secret read failed, retrying', { secret: secretKey(ns, name), code: answer.code });
      } else issues.push(secretAbsentIssue(obj, ref, answer.reason));
    });
    return { issues, transient };
  }

  private putSecret(namespace: string, name: string, data: Readonly<Record<string, string>>): void {
    if (this.stopped) return;
    const refs = this.refsTo(namespace, name);
    this.held.add(secretKey(namespace, name));
    this.o.store.upsert(secretObject(namespace, name, usedSecretData(refs, data)));
  }

  /** Every reference to the Secret namespace/name by a stored or waiting owner. */
  private refsTo(namespace: string, name: string): SecretRef[] {
    const out: SecretRef[] = [];
    for (const o of [...this.applied.values(), ...this.waiting.values()]) {
      if (o.metadata.namespace !== namespace) continue;
      for (const r of this.o.refsOf(o)) if (r.name === name) out.push(r);
    }
    return out;
  }

  /** Removes the Secrets no stored or waiting owner names. */
  private collect(): void {
    const named = new Set<string>();
    for (const o of [...this.applied.values(), ...this.waiting.values()]) {
      for (const r of this.o.refsOf(o)) named.add(secretKey(o.metadata.namespace, r.name));
    }
    for (const k of [...this.held]) {
      if (named.has(k)) continue;
      this.held.delete(k);
      const [namespace = '', name = ''] = k.split('/');
      this.o.store.delete('Secret', namespace, name);
    }
  }

  private changed(): void {
    if (this.settled) for (const w of this.settledWaiters.splice(0)) w();
    this.o.onChange?.();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.o.clock.setTimeout(() => {
      void this.refresh().finally(() => this.schedule());
    }, this.o.refreshMs ?? 60_000);
  }
}

/** A Secret as the store holds it: namespace, name and the used keys; nothing else of the API object. */
function secretObject(namespace: string, name: string, data: Record<string, string>): Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace, labels: {}, annotations: {}, creationTimestamp: '', resourceVersion: '' },
    spec: { data },
  };
}

/** One GET per Secret within a refresh, however many objects name it. */
function memo(get: SecretGetter): SecretGetter {
  const answers = new Map<string, Promise<SecretAnswer>>();
  return (namespace, name) => {
    const k = secretKey(namespace, name);
    let a = answers.get(k);
    if (!a) answers.set(k, (a = get(namespace, name)));
    return a;
  };
}
