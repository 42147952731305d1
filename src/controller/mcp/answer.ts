import type { DecodedResource } from './decode.ts';

/** A decoded resource: what the store is given for its key (McpState holds these; reader.ts holds their bytes). */
export type Entry = Extract<DecodedResource, { status: 'ok' } | { status: 'invalid' }>;

/** What an answer needs of a held entry: its key and that it was decoded (Entry, or reader.ts's Held). */
export interface Keyed {
  readonly status: 'ok' | 'invalid';
  readonly key: string;
}

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
export class Answer<E extends Keyed = Entry> {
  readonly next = new Map<string, E>();
  /** The entry each resource gave, in answer order (undefined for a resource skipped or undecodable). */
  private readonly order: (E | undefined)[] = [];
  /** Keys whose entry differs from the held one (added or a new entry); removed keys join them in finish(). */
  private readonly changed = new Set<string>();
  /** Distinct keys of `next` that were held: fewer than held means some were removed. */
  private kept = 0;
  /** True when a key came twice: the entries of `order` are then not all the ones `next` holds. */
  private duplicates = false;
  private skipped = 0;
  private readonly badNames: string[] = [];
  private undecodable = 0;
  private readonly reasons = new Set<string>();
  private partial = false;

  /** `previousOrder`: positions() of the previous answer of the same type URL. */
  constructor(
    private readonly previous: ReadonlyMap<string, E>,
    private readonly previousOrder: readonly (E | undefined)[],
  ) {}

  /** The held entry of `key`. */
  held(key: string): E | undefined {
    return this.previous.get(key);
  }

  /** The held entry the resource at `position` of the previous answer gave (istiod keeps its order). */
  heldAt(position: number): E | undefined {
    return this.previousOrder[position];
  }

  /** The next resource is the held entry `e`, unchanged (its bytes are the ones `e` was decoded from). */
  keep(e: E): void {
    this.order.push(e);
    this.put(e.key, e, true, true);
  }

  /** The next resource, decoded (an ok or invalid entry may still be the held one: same resourceVersion). */
  add(d: E | Exclude<DecodedResource, Entry>): void {
    switch (d.status) {
      case 'ok':
      case 'invalid': {
        this.order.push(d);
        const held = this.previous.get(d.key);
        this.put(d.key, d, d === held, held !== undefined);
        break;
      }
      case 'skipped':
        this.order.push(undefined);
        this.skipped++;
        if (d.key === undefined && this.badNames.length < MAX_REASONS) this.badNames.push(d.reason);
        break;
      case 'undecodable':
        this.order.push(undefined);
        this.undecodable++;
        if (this.reasons.size < MAX_REASONS) this.reasons.add(d.key ? `${d.key}: ${d.reason}` : d.reason);
        this.keepUndecodable(d.key);
        break;
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

  /** The entry of each position, each the one `next` holds for its key; empty when a key came twice. */
  positions(): readonly (E | undefined)[] {
    return this.duplicates ? [] : this.order;
  }

  report(): AnswerReport {
    const { skipped, badNames, undecodable, partial } = this;
    return { skipped, badNames, undecodable, reasons: [...this.reasons], partial };
  }

  /** An undecodable resource keeps the held entry of its name; without a name the answer is partial. */
  private keepUndecodable(key: string | undefined): void {
    if (key === undefined) {
      this.partial = true;
      return;
    }
    const keep = this.previous.get(key);
    if (keep) this.put(key, keep, true, true);
  }

  private put(key: string, e: E, isHeld: boolean, wasHeld: boolean): void {
    const size = this.next.size;
    this.next.set(key, e);
    if (this.next.size === size) this.duplicates = true;
    else if (wasHeld) this.kept++;
    if (!isHeld) this.changed.add(key);
  }
}
