import type { DecodedResource } from './decode.ts';

/** A decoded resource with the bytes it was decoded from (a copy: never a view of the response buffer). */
export type Entry = Extract<DecodedResource, { status: 'ok' } | { status: 'invalid' }> & {
  readonly bytes?: Buffer;
};

/** What one answer reports besides its counts (ResponseOutcome in state.ts adds them). */
export interface AnswerReport {
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

const MAX_REASONS = 10;

/**
 * One full answer of a type URL, read resource by resource against the entries held for that URL: the entries
 * it leaves (`next`) and the keys whose entry is not the held one. An entry equal to the held one is the very
 * same object (McpState reuses it), so a changed key is found by identity.
 *
 * Undecodable resources never cause deletions: one whose name is readable keeps its held entry; one without a
 * readable name makes the answer partial, and a partial answer keeps every held entry it does not name.
 */
export class Answer {
  readonly next = new Map<string, Entry>();
  /** Keys whose entry differs from the held one (added or a new entry); removed keys join them in finish(). */
  private readonly changed = new Set<string>();
  /** Distinct keys of `next` that were held: fewer than held means some were removed. */
  private kept = 0;
  private skipped = 0;
  private readonly badNames: string[] = [];
  private undecodable = 0;
  private readonly reasons = new Set<string>();
  private partial = false;

  constructor(private readonly previous: ReadonlyMap<string, Entry>) {}

  add(d: Entry | Exclude<DecodedResource, Entry>): void {
    switch (d.status) {
      case 'ok':
      case 'invalid':
        this.set(d.key, d);
        break;
      case 'skipped':
        this.skipped++;
        if (d.key === undefined && this.badNames.length < MAX_REASONS) this.badNames.push(d.reason);
        break;
      case 'undecodable': {
        this.undecodable++;
        if (this.reasons.size < MAX_REASONS) this.reasons.add(d.key ? `${d.key}: ${d.reason}` : d.reason);
        if (d.key === undefined) this.partial = true;
        else {
          const keep = this.previous.get(d.key);
          if (keep) this.set(d.key, keep);
        }
        break;
      }
    }
  }

  /**
   * Ends the answer; returns every key whose entry in `next` is not the held one (added, changed, removed), each
   * once, possibly with keys that changed and changed back within the answer.
   */
  finish(): readonly string[] {
    if (this.partial) {
      for (const [key, e] of this.previous) if (!this.next.has(key)) this.next.set(key, e);
    } else if (this.kept < this.previous.size) {
      for (const key of this.previous.keys()) if (!this.next.has(key)) this.changed.add(key);
    }
    return [...this.changed];
  }

  report(): AnswerReport {
    const { skipped, badNames, undecodable, partial } = this;
    return { skipped, badNames, undecodable, reasons: [...this.reasons], partial };
  }

  private set(key: string, e: Entry): void {
    const held = this.previous.get(key);
    const size = this.next.size;
    this.next.set(key, e);
    if (held !== undefined && this.next.size > size) this.kept++;
    if (e !== held) this.changed.add(key);
  }
}
