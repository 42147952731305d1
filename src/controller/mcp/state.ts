import type { ConfigKind, ConfigObject } from '../../model/objects.ts';
import type { ConfigIssue, ObjectRef } from '../../model/result.ts';
import type { KeyChange } from '../store-changes.ts';
import { ownedCopy } from '../../util/bytes.ts';
import { Answer, type AnswerReport, type Entry } from './answer.ts';
import {
  decodeBody,
  decodeEnvelope,
  inRevision,
  RESOURCE_NAME_PATH,
  type AnyMessage,
  type DecodedResource,
  type ParseFn,
} from './decode.ts';
import { MCP_RESOURCE_TYPE_URL, type McpProtos } from './protos.ts';
import { peekResourceName } from './resource-decode.ts';
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

const EMPTY = new Uint8Array();
const NOTHING: ReadonlyMap<string, Entry> = new Map();

/**
 * Per-type-URL state of the MCP stream (the "stream state" part; no I/O). Each response replaces the state of
 * its type URL (see Answer for undecodable resources and partial answers); a kind's objects in the store are the
 * union over its type URLs (v1 wins over v1alpha3 for the same namespace/name), so an empty answer to one URL
 * never deletes what the other provides. State survives reconnects.
 *
 * Cost: an answer costs a byte comparison per resource plus the work of what changed in it. Only the keys whose
 * union entry changed go to the store (applyKindChanges). The kind's whole union goes (replaceKind) on its first
 * answer, on the first after resync() (a new stream), after the store released an owned key of the kind, and
 * after a store write that threw, so the store always ends where a replaceKind of the union would put it.
 */
export class McpState {
  private readonly byUrl = new Map<string, Map<string, Entry>>();
  /** Per type URL, the entries of its last answer in answer order (Answer.positions). */
  private readonly orderOf = new Map<string, readonly (Entry | undefined)[]>();
  private readonly tallies = new Map<string, Tally>();
  /** The type URLs of each kind, in subscription order (v1 first: its entry wins). */
  private readonly urlsOf = new Map<IstioKind, string[]>();
  /** Kinds whose next answer goes to the store in full. */
  private readonly fullNext = new Set<IstioKind>();
  /** Per kind, the sink's releases() when the kind was last written. */
  private readonly releasesSeen = new Map<IstioKind, number>();

  constructor(
    private readonly protos: McpProtos,
    private readonly sink: McpStoreSink,
    private readonly parse: ParseFn,
    private readonly revision: string,
    private readonly urls: readonly McpTypeUrl[],
  ) {
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
    const previous = this.byUrl.get(type.url) ?? NOTHING;
    const answer = new Answer(previous, this.orderOf.get(type.url) ?? []);
    // Nothing held (a type URL's first answer): no resource can be an unchanged one, so no name is read for it.
    const anyHeld = previous.size > 0;
    resources.forEach((resource, i) => {
      const held = anyHeld ? unchanged(resource, answer, i) : undefined;
      if (held) answer.keep(held);
      else answer.add(this.decodeOne(type, resource, previous));
    });
    this.orderOf.set(type.url, answer.positions());
    this.replace(type, previous, answer.next, answer.finish());
    return { ...this.counts(type.url), ...answer.report() };
  }

  /** Holds `next` for `type` and writes the union entries of `keys` (those that changed) to the store. */
  private replace(
    type: McpTypeUrl,
    previous: ReadonlyMap<string, Entry>,
    next: Map<string, Entry>,
    keys: readonly string[],
  ): void {
    const kind = type.kind;
    const full = this.fullNext.has(kind) || this.releasesSeen.get(kind) !== this.sink.releases(kind);
    const before = full ? [] : keys.map((k) => this.unionEntry(kind, k));
    this.byUrl.set(type.url, next);
    this.tallies.set(type.url, tally(this.counts(type.url), keys, previous, next));
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

  private decodeOne(
    type: McpTypeUrl,
    any: AnyMessage,
    previous: ReadonlyMap<string, Entry>,
  ): Entry | Exclude<DecodedResource, Entry> {
    const env = decodeEnvelope(this.protos, any);
    if (!env.ok) {
      const failure = env.issues[0];
      const reason = failure?.message ?? '';
      return failure?.path === RESOURCE_NAME_PATH
        ? { status: 'skipped', reason }
        : { status: 'undecodable', reason };
    }
    const e = env.value;
    if (!inRevision(e.labels, this.revision)) {
      return { status: 'skipped', key: e.key, reason: `revision ${e.labels['istio.io/rev'] ?? ''}` };
    }
    // Same non-empty resourceVersion: the object is unchanged (adsc dedupes the same way).
    const prev = previous.get(e.key);
    if (prev && e.version !== '' && prev.version === e.version) return prev;
    const d = decodeBody(this.protos, type, e, this.parse);
    if (d.status !== 'ok' && d.status !== 'invalid') return d;
    // Held until the resource changes: a copy of its own, not a slice of the shared pool (util/bytes.ts).
    const entry: Entry = { ...d, bytes: ownedCopy(any.value ?? EMPTY) };
    return entry;
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
 * The held entry a resource is when its bytes are the ones that entry was decoded from: decoding would give the
 * same entry (istiod re-sends every resource of a type on each push). Checked before anything is decoded, first
 * against the entry at the same position in the previous answer, which needs no name read.
 */
function unchanged(any: AnyMessage, answer: Answer, position: number): Entry | undefined {
  if (any.type_url !== MCP_RESOURCE_TYPE_URL) return undefined;
  const bytes = any.value ?? EMPTY;
  const same = answer.heldAt(position);
  if (same?.bytes?.equals(bytes)) return same;
  const name = peekResourceName(bytes);
  const held = name === undefined ? undefined : answer.held(name);
  return held?.bytes?.equals(bytes) ? held : undefined;
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

/** `t` moved from `previous` to `next` over the keys that changed. */
function tally(
  t: Tally,
  keys: readonly string[],
  previous: ReadonlyMap<string, Entry>,
  next: ReadonlyMap<string, Entry>,
): Tally {
  const out = { ...t };
  for (const key of keys) {
    count(out, previous.get(key), -1);
    count(out, next.get(key), 1);
  }
  return out;
}

function count(t: Tally, e: Entry | undefined, by: number): void {
  if (e === undefined) return;
  if (e.status === 'ok') t.valid += by;
  else t.invalid += by;
}
