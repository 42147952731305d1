import type { ConfigKind, ConfigObject } from '../../model/objects.ts';
import type { ConfigIssue, ObjectRef } from '../../model/result.ts';
import type { KeyChange } from '../store-changes.ts';
import type { AnswerReport, Entry } from './answer.ts';
import type { AnyMessage, ParseFn } from './decode.ts';
import type { McpProtos } from './protos.ts';
import { AnswerReader, type ReadResult } from './reader.ts';
import type { IstioKind, McpTypeUrl } from './type-urls.ts';

/**
 * The part of the ConfigStore (src/controller/store.ts) the MCP client writes to. Calls are synchronous; events
 * only for real changes. ConfigStore fits. The kinds written here are written by nothing else except owned keys.
 */
export interface McpStoreSink {
  /**
   * Full-state replacement of one kind; `rejected` replaces the recorded rejections (invalid objects with their
   * issues) of that kind.
   */
  replaceKind(kind: ConfigKind, objects: readonly ConfigObject[], rejected: readonly RejectedObject[]): void;
  /** Keyed: what each named key of the kind now is, with the effect replaceKind of the whole kind has on it. */
  applyKindChanges(kind: ConfigKind, changes: readonly KeyChange[]): void;
  /** A count that moves whenever an owned key of `kind` is released (it left the store by another way). */
  releases(kind: ConfigKind): number;
}

/** An object the source holds but that failed validation (same shape as the store's RejectedObject). */
export interface RejectedObject {
  readonly ref: ObjectRef;
  readonly issues: readonly ConfigIssue[];
  /** The hosts the object binds as written (model/bound-hosts.ts). */
  readonly hosts?: readonly string[];
}

/** Outcome of one DiscoveryResponse, for the ACK/NACK decision, logs and metrics. */
export interface ResponseOutcome extends AnswerReport {
  readonly valid: number;
  readonly invalid: number;
}

interface Tally {
  valid: number;
  invalid: number;
}

const NOTHING: ReadonlyMap<string, Entry> = new Map();

/**
 * Per-type-URL state of the MCP stream (the "stream state" part; no I/O). Each response replaces the state of
 * its type URL (see Answer for undecodable resources and partial answers); a kind's objects in the store are the
 * union over its type URLs (v1 wins over v1alpha3 for the same namespace/name), so an empty answer to one URL
 * never deletes what the other provides. State survives reconnects.
 *
 * The reading of answers (decode, and the comparison of each resource's bytes with the last answer's) is
 * AnswerReader's (reader.ts): in the MCP client it runs in the receive worker, which hands apply() only the keys
 * whose entry changed, so an answer costs this thread the work of what changed in it; applyResponse reads in this
 * thread (same reader, same result). Only the keys whose union entry changed go to the store (applyKindChanges). The kind's whole union goes (replaceKind) on its first
 * answer, on the first after resync() (a new stream), after the store released an owned key of the kind, and
 * after a store write that threw, so the store always ends where a replaceKind of the union would put it.
 */
export class McpState {
  private readonly byUrl = new Map<string, Map<string, Entry>>();
  /** Reads answers given to applyResponse (the client reads in its receive worker and calls apply()). */
  private readonly reader: AnswerReader;
  private readonly tallies = new Map<string, Tally>();
  /** The type URLs of each kind, in subscription order (v1 first: its entry wins). */
  private readonly urlsOf = new Map<IstioKind, string[]>();
  /** Kinds whose next answer goes to the store in full. */
  private readonly fullNext = new Set<IstioKind>();
  /** Per kind, the sink's releases() when the kind was last written. */
  private readonly releasesSeen = new Map<IstioKind, number>();

  constructor(
    protos: McpProtos,
    private readonly sink: McpStoreSink,
    parse: ParseFn,
    revision: string,
    private readonly urls: readonly McpTypeUrl[],
  ) {
    this.reader = new AnswerReader(protos, parse, revision);
    for (const t of urls) {
      const list = this.urlsOf.get(t.kind);
      if (list) list.push(t.url);
      else this.urlsOf.set(t.kind, [t.url]);
    }
    this.resync();
  }

  /** Number of valid and invalid resources held for a type URL (kept as answers arrive, not counted). */
  counts(url: string): { valid: number; invalid: number } {
    const t = this.tallies.get(url);
    return { valid: t?.valid ?? 0, invalid: t?.invalid ?? 0 };
  }

  /** The next answer of every kind goes to the store in full (a new stream: istiod answers afresh). */
  resync(): void {
    for (const t of this.urls) this.fullNext.add(t.kind);
  }

  /** Replaces the state of `type` with a full answer and writes what changed in the kind's union to the store. */
  applyResponse(type: McpTypeUrl, resources: readonly AnyMessage[]): ResponseOutcome {
    return this.apply(type, this.reader.read(type, resources));
  }

  /** Applies what an AnswerReader read of a full answer of `type` (in this thread or the receive worker). */
  apply(type: McpTypeUrl, read: ReadResult): ResponseOutcome {
    const previous = this.byUrl.get(type.url);
    if (read.fresh || previous === undefined) {
      const next = freshEntries(previous ?? NOTHING, read);
      const keys: string[] = [];
      for (const key of previous?.keys() ?? []) if (!next.has(key)) keys.push(key);
      for (const [key, e] of next) if (previous?.get(key) !== e) keys.push(key);
      this.replace(type, keys, () => next);
    } else {
      // In place: the cost is that of the changes, not of the entries held.
      const keys = read.changes.map((c) => c.key);
      this.replace(type, keys, () => {
        for (const { key, entry } of read.changes) {
          if (entry === undefined) previous.delete(key);
          else previous.set(key, entry);
        }
        return previous;
      });
    }
    return { ...this.counts(type.url), ...read.report };
  }

  /**
   * Holds what `update` returns for `type` (called once, after the union entries of `keys` were read) and writes the
   * union entries of `keys` (those that changed) to the store.
   */
  private replace(type: McpTypeUrl, keys: readonly string[], update: () => Map<string, Entry>): void {
    const kind = type.kind;
    const full = this.fullNext.has(kind) || this.releasesSeen.get(kind) !== this.sink.releases(kind);
    const before = full ? [] : keys.map((k) => this.unionEntry(kind, k));
    const previous = this.byUrl.get(type.url) ?? NOTHING;
    const t = { ...this.counts(type.url) };
    for (const key of keys) count(t, previous.get(key), -1);
    const next = update();
    for (const key of keys) count(t, next.get(key), 1);
    this.byUrl.set(type.url, next);
    this.tallies.set(type.url, t);
    // Marked until written: a store listener that throws midway leaves the kind to be written in full next time.
    this.fullNext.add(kind);
    if (full) this.applyKind(kind);
    else this.applyChanges(kind, keys, before);
    this.fullNext.delete(kind);
    this.releasesSeen.set(kind, this.sink.releases(kind));
  }

  /** The kind's union as the store should hold it: valid objects, and the invalid ones as rejections. */
  union(kind: IstioKind): { objects: ConfigObject[]; rejected: RejectedObject[] } {
    const sources: Map<string, Entry>[] = [];
    for (const url of this.urlsOf.get(kind) ?? []) {
      const m = this.byUrl.get(url);
      if (m && m.size > 0) sources.push(m);
    }
    const objects: ConfigObject[] = [];
    const rejected: RejectedObject[] = [];
    const seen = sources.length > 1 ? new Set<string>() : undefined;
    for (const m of sources) {
      for (const [key, e] of m) {
        if (seen) {
          if (seen.has(key)) continue;
          seen.add(key);
        }
        if (e.status === 'ok') objects.push(e.object);
        else rejected.push(rejectionOf(e));
      }
    }
    return { objects, rejected };
  }

  /** Writes the union of a kind's type URLs to the store, with the invalid ones as its rejections. */
  private applyKind(kind: IstioKind): void {
    const { objects, rejected } = this.union(kind);
    this.sink.replaceKind(kind, objects, rejected);
  }

  /**
   * Writes the keys whose union entry is not `before` (same order as `keys`): removals first, then valid objects,
   * then rejections, the order replaceKind writes them in.
   */
  private applyChanges(
    kind: IstioKind,
    keys: readonly string[],
    before: readonly (Entry | undefined)[],
  ): void {
    const absent: KeyChange[] = [];
    const valid: KeyChange[] = [];
    const rejected: KeyChange[] = [];
    keys.forEach((key, i) => {
      const after = this.unionEntry(kind, key);
      if (after === before[i]) return;
      const change = changeOf(key, after);
      (change.type === 'absent' ? absent : change.type === 'valid' ? valid : rejected).push(change);
    });
    if (absent.length + valid.length + rejected.length === 0) return;
    this.sink.applyKindChanges(kind, [...absent, ...valid, ...rejected]);
  }

  /** The entry of `key` the kind's union holds: the first type URL holding it wins. */
  private unionEntry(kind: IstioKind, key: string): Entry | undefined {
    for (const url of this.urlsOf.get(kind) ?? []) {
      const e = this.byUrl.get(url)?.get(key);
      if (e) return e;
    }
    return undefined;
  }
}

/**
 * The entries a fresh answer leaves: every entry it gave, and of `previous` the keys its undecodable resources
 * named (all of them when the answer is partial): undecodable resources never cause deletions.
 */
function freshEntries(previous: ReadonlyMap<string, Entry>, read: ReadResult): Map<string, Entry> {
  const next = new Map<string, Entry>();
  for (const { key, entry } of read.changes) if (entry !== undefined) next.set(key, entry);
  const keep = (key: string) => {
    const e = previous.get(key);
    if (e !== undefined && !next.has(key)) next.set(key, e);
  };
  read.kept.forEach(keep);
  if (read.report.partial) for (const key of previous.keys()) keep(key);
  return next;
}

function rejectionOf(e: Extract<Entry, { status: 'invalid' }>): RejectedObject {
  return { ref: e.ref, issues: e.issues, hosts: e.hosts };
}

/** What `key` (`<namespace>/<name>`, checked by decodeEnvelope) now is in the union. */
function changeOf(key: string, e: Entry | undefined): KeyChange {
  if (e === undefined) {
    const slash = key.indexOf('/');
    return { type: 'absent', namespace: key.slice(0, slash), name: key.slice(slash + 1) };
  }
  return e.status === 'ok'
    ? { type: 'valid', object: e.object }
    : { type: 'rejected', rejection: rejectionOf(e) };
}

function count(t: Tally, e: Entry | undefined, by: number): void {
  if (e === undefined) return;
  if (e.status === 'ok') t.valid += by;
  else t.invalid += by;
}
