import type { ConfigKind, ConfigObject } from '../../model/objects.ts';
import type { ConfigIssue, ObjectRef } from '../../model/result.ts';
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
 * The part of the ConfigStore (src/controller/store.ts) the MCP client writes to. Calls are synchronous;
 * `replaceKind` is a full-state replacement of one kind (events only for real changes). ConfigStore fits.
 */
export interface McpStoreSink {
  /** `rejected` replaces the recorded rejections (invalid objects with their issues) of that kind. */
  replaceKind(kind: ConfigKind, objects: readonly ConfigObject[], rejected: readonly RejectedObject[]): void;
}

/** An object the source holds but that failed validation (same shape as the store's RejectedObject). */
export interface RejectedObject {
  readonly ref: ObjectRef;
  readonly issues: readonly ConfigIssue[];
  /** The hosts the object binds as written (model/bound-hosts.ts). */
  readonly hosts?: readonly string[];
}

/** A decoded resource with the bytes it was decoded from (a copy: never a view of the response buffer). */
type Entry = Extract<DecodedResource, { status: 'ok' } | { status: 'invalid' }> & {
  readonly bytes?: Buffer;
};

/** Outcome of one DiscoveryResponse, for the ACK/NACK decision, logs and metrics. */
export interface ResponseOutcome {
  readonly valid: number;
  readonly invalid: number;
  /** Ignored on purpose: another revision, or a name that is not `<namespace>/<name>`. */
  readonly skipped: number;
  /** Reasons for skipping resources with bad names (at most 10). */
  readonly badNames: readonly string[];
  /** Resources that could not be decoded (reasons, deduplicated, at most 10). */
  readonly undecodable: number;
  readonly reasons: readonly string[];
  /** True when an undecodable resource had no readable name, so nothing could be deleted safely. */
  readonly partial: boolean;
}

/**
 * Per-type-URL state of the MCP stream (the "stream state" part; no I/O). Each response replaces the state of
 * its type URL; a kind's objects in the store are the union over its type URLs (v1 wins over v1alpha3 for the
 * same namespace/name), so an empty answer to one URL never deletes what the other provides.
 *
 * Undecodable resources never cause deletions: one whose name is readable keeps its previous state; one
 * without a readable name makes the answer partial, and a partial answer adds and updates but deletes nothing.
 * State survives reconnects: the first full answer per URL after a reconnect reconciles it.
 */
const EMPTY = new Uint8Array();

export class McpState {
  private readonly byUrl = new Map<string, Map<string, Entry>>();

  constructor(
    private readonly protos: McpProtos,
    private readonly sink: McpStoreSink,
    private readonly parse: ParseFn,
    private readonly revision: string,
    private readonly urls: readonly McpTypeUrl[],
  ) {}

  /** Number of valid and invalid resources held for a type URL. */
  counts(url: string): { valid: number; invalid: number } {
    let valid = 0;
    let invalid = 0;
    for (const e of this.byUrl.get(url)?.values() ?? []) {
      if (e.status === 'ok') valid++;
      else invalid++;
    }
    return { valid, invalid };
  }

  /** Replaces the state of `type` with a full answer and applies the kind's union to the store. */
  applyResponse(type: McpTypeUrl, resources: readonly AnyMessage[]): ResponseOutcome {
    const previous = this.byUrl.get(type.url) ?? new Map<string, Entry>();
    const next = new Map<string, Entry>();
    const reasons = new Set<string>();
    let skipped = 0;
    const badNames: string[] = [];
    let undecodable = 0;
    let partial = false;
    for (const resource of resources) {
      const d = this.decodeOne(type, resource, previous);
      switch (d.status) {
        case 'ok':
        case 'invalid':
          next.set(d.key, d);
          break;
        case 'skipped':
          skipped++;
          if (d.key === undefined && badNames.length < 10) badNames.push(d.reason);
          break;
        case 'undecodable': {
          undecodable++;
          if (reasons.size < 10) reasons.add(d.key ? `${d.key}: ${d.reason}` : d.reason);
          const keep = d.key !== undefined ? previous.get(d.key) : undefined;
          if (d.key === undefined) partial = true;
          else if (keep) next.set(d.key, keep);
          break;
        }
      }
    }
    if (partial) {
      for (const [key, e] of previous) if (!next.has(key)) next.set(key, e);
    }
    this.byUrl.set(type.url, next);
    this.applyKind(type.kind);
    const c = this.counts(type.url);
    return { ...c, skipped, badNames, undecodable, reasons: [...reasons], partial };
  }

  private decodeOne(
    type: McpTypeUrl,
    any: AnyMessage,
    previous: Map<string, Entry>,
  ): Entry | Exclude<DecodedResource, Entry> {
    // Same bytes as the resource held under the name they carry: the decoding would give the same entry (istiod
    // re-sends every resource of a type on each push). Checked before anything is decoded.
    const bytes = any.value ?? EMPTY;
    if (any.type_url === MCP_RESOURCE_TYPE_URL) {
      const name = peekResourceName(bytes);
      const held = name === undefined ? undefined : previous.get(name);
      if (held?.bytes?.equals(bytes)) return held;
    }
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
    const entry: Entry = { ...d, bytes: Buffer.from(bytes) };
    return entry;
  }

  /** Writes the union of a kind's type URLs to the store, with the invalid ones as its rejections. */
  private applyKind(kind: IstioKind): void {
    // Subscription order puts v1 first: its entry wins a namespace/name present in both.
    const sources: Map<string, Entry>[] = [];
    for (const t of this.urls) {
      const m = t.kind === kind ? this.byUrl.get(t.url) : undefined;
      if (m && m.size > 0) sources.push(m);
    }
    const valid: ConfigObject[] = [];
    const rejected: RejectedObject[] = [];
    const seen = sources.length > 1 ? new Set<string>() : undefined;
    for (const m of sources) {
      for (const [key, e] of m) {
        if (seen) {
          if (seen.has(key)) continue;
          seen.add(key);
        }
        if (e.status === 'ok') valid.push(e.object);
        else rejected.push({ ref: e.ref, issues: e.issues, hosts: e.hosts });
      }
    }
    this.sink.replaceKind(kind, valid, rejected);
  }
}
