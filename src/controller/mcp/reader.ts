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
import type { McpTypeUrl } from './type-urls.ts';

/**
 * What the reader holds of a resource it decoded: its key, version and status, and the bytes it was decoded from
 * (a copy of its own, never a view of the response buffer), to know it again. Not the object: McpState holds that.
 */
export interface Held {
  readonly status: 'ok' | 'invalid';
  readonly key: string;
  readonly version: string;
  readonly bytes: Buffer;
}

/** One key whose entry is not the one held before: the new entry, or undefined when the key is gone. */
export interface Change {
  readonly key: string;
  readonly entry: Entry | undefined;
}

/** What one full answer of a type URL changed, for McpState.apply (plain data: it crosses the worker boundary). */
export interface ReadResult {
  /**
   * The reader held nothing for the type URL (its first answer, or the first after forget()): `changes` holds every
   * entry of the answer, and whatever the state holds besides is gone, except what `kept` names and, when the
   * answer is partial, everything.
   */
  readonly fresh: boolean;
  /** Every key whose entry changed (each once), in the order the answer gave them, removed keys last. */
  readonly changes: readonly Change[];
  /** Fresh answers only: keys named by undecodable resources (their held entry stays). */
  readonly kept: readonly string[];
  readonly report: AnswerReport;
}

const EMPTY = new Uint8Array();
const NOTHING: ReadonlyMap<string, Held> = new Map();

/**
 * The reading half of the MCP state: per type URL, what each resource of the last answer was and its bytes. Reads
 * a full answer against them: an unchanged resource (same bytes as the held one) costs a byte comparison, and only
 * the keys whose entry changed are decoded and reported. Runs in the receive worker (receive-worker.ts); McpState
 * runs one in its own thread for applyResponse. Answer (answer.ts) decides deletions and partial answers.
 */
export class AnswerReader {
  private readonly byUrl = new Map<string, Map<string, Held>>();
  /** Per type URL, the entries of its last answer in answer order (Answer.positions). */
  private readonly orderOf = new Map<string, readonly (Held | undefined)[]>();

  constructor(
    private readonly protos: McpProtos,
    private readonly parse: ParseFn,
    private readonly revision: string,
  ) {}

  /** Forgets what is held for `url`: its next answer is read fresh. */
  forget(url: string): void {
    this.byUrl.delete(url);
    this.orderOf.delete(url);
  }

  /** Reads a full answer of `type`; holds what it leaves. */
  read(type: McpTypeUrl, resources: readonly AnyMessage[]): ReadResult {
    const fresh = !this.byUrl.has(type.url);
    const previous = this.byUrl.get(type.url) ?? NOTHING;
    const answer = new Answer<Held>(previous, this.orderOf.get(type.url) ?? []);
    const decoded = new Map<Held, Entry>();
    const kept: string[] = [];
    // Nothing held (a type URL's first answer): no resource can be an unchanged one, so no name is read for it.
    const anyHeld = previous.size > 0;
    resources.forEach((resource, i) => {
      const held = anyHeld ? unchanged(resource, answer, i) : undefined;
      if (held) return answer.keep(held);
      const d = this.decodeOne(type, resource, previous);
      if ('bytes' in d) return answer.add(d); // the held entry: same resourceVersion
      if (d.status === 'ok' || d.status === 'invalid') {
        const h: Held = {
          status: d.status,
          key: d.key,
          version: d.version,
          bytes: ownedCopy(resource.value ?? EMPTY),
        };
        decoded.set(h, d);
        return answer.add(h);
      }
      if (fresh && d.status === 'undecodable' && d.key !== undefined) kept.push(d.key);
      answer.add(d);
    });
    const keys = answer.finish();
    this.orderOf.set(type.url, answer.positions());
    this.byUrl.set(type.url, answer.next);
    const changes: Change[] = [];
    for (const key of fresh ? answer.next.keys() : keys) {
      const h = answer.next.get(key);
      if (h !== undefined && h === previous.get(key)) continue; // changed and changed back
      changes.push({ key, entry: h === undefined ? undefined : decoded.get(h) });
    }
    return { fresh, changes, kept, report: answer.report() };
  }

  private decodeOne(
    type: McpTypeUrl,
    any: AnyMessage,
    previous: ReadonlyMap<string, Held>,
  ): Held | DecodedResource {
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
    return decodeBody(this.protos, type, e, this.parse);
  }
}

/**
 * The held entry a resource is when its bytes are the ones that entry was decoded from: decoding would give the
 * same entry (istiod re-sends every resource of a type on each push). Checked before anything is decoded, first
 * against the entry at the same position in the previous answer, which needs no name read.
 */
function unchanged(any: AnyMessage, answer: Answer<Held>, position: number): Held | undefined {
  if (any.type_url !== MCP_RESOURCE_TYPE_URL) return undefined;
  const bytes = any.value ?? EMPTY;
  const same = answer.heldAt(position);
  if (same?.bytes.equals(bytes)) return same;
  const name = peekResourceName(bytes);
  const held = name === undefined ? undefined : answer.held(name);
  return held?.bytes.equals(bytes) ? held : undefined;
}
