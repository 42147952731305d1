/**
 * "The first claim wins" (deviation D6): when several sources generate an object under the same key (an
 * EnvoyFilter name, an RDS route name), the oldest source keeps it: the earliest metadata.creationTimestamp (an
 * unknown one counts as newest), then namespace/name, then kind; among the claims of one source, the first.
 */
import { compareOldestFirst, compareStrings } from './order.ts';

/** A config object that generates output: what D6 precedence reads of it. */
export interface ClaimSource {
  readonly kind: string;
  readonly metadata: {
    readonly namespace: string;
    readonly name: string;
    readonly creationTimestamp?: string;
  };
}

/** Everything one source generated, in generation order. */
export interface SourceClaims<S extends ClaimSource, T> {
  readonly source: S;
  readonly items: readonly T[];
}

/** A claim that lost to an earlier one of the same key. */
export interface LostClaim<S extends ClaimSource, T> {
  readonly key: string;
  readonly value: T;
  readonly source: S;
  readonly winner: { readonly value: T; readonly source: S };
}

export interface ClaimResult<S extends ClaimSource, T> {
  /** One value per key, in the order the keys were first seen (callers sort them as their output needs). */
  readonly winners: T[];
  /** The claims that lost, in claim order. */
  readonly lost: LostClaim<S, T>[];
}

/** D6 precedence of two sources: negative when `a` comes first (older, then namespace/name, then kind). */
export function comparePrecedence(a: ClaimSource, b: ClaimSource): number {
  return compareOldestFirst(a, b) || compareStrings(a.kind, b.kind);
}

/** One item claimed by a source, at `index` among the source's items. */
interface Claim<S extends ClaimSource, T> {
  readonly value: T;
  readonly source: S;
  readonly index: number;
}

/** Claim order: sources in D6 precedence, the items of one source in generation order. */
function compareClaims<S extends ClaimSource, T>(a: Claim<S, T>, b: Claim<S, T>): number {
  return a.source === b.source ? a.index - b.index : comparePrecedence(a.source, b.source);
}

/** Keeps, for every key (`keyOf` an item), the claim that comes first in claim order. */
export function resolveClaims<S extends ClaimSource, T>(
  claims: readonly SourceClaims<S, T>[],
  keyOf: (item: T) => string,
): ClaimResult<S, T> {
  const won = new Map<string, Claim<S, T>>();
  const beaten: Claim<S, T>[] = [];
  for (const { source, items } of claims) {
    items.forEach((value, index) => {
      const claim = { value, source, index };
      const key = keyOf(value);
      const best = won.get(key);
      if (best === undefined) won.set(key, claim);
      else if (compareClaims(claim, best) < 0) {
        won.set(key, claim);
        beaten.push(best);
      } else beaten.push(claim);
    });
  }
  const lost = beaten.sort(compareClaims).map(({ value, source }) => {
    const key = keyOf(value);
    return { key, value, source, winner: won.get(key) as Claim<S, T> };
  });
  return { winners: Array.from(won.values(), (w) => w.value), lost };
}

/** A claim with the id of its source, as ClaimIndex keeps it. */
interface IndexedClaim<S extends ClaimSource, T> extends Claim<S, T> {
  readonly id: string;
}

/**
 * resolveClaims maintained source by source: `set` replaces what one source claims and re-resolves only the keys
 * it claimed before or claims now. At any time the winners and `lost()` are what resolveClaims gives over the
 * claims of every source set so far.
 */
export class ClaimIndex<S extends ClaimSource, T> {
  /** key → its claims in claim order (the winner first). */
  private readonly byKey = new Map<string, IndexedClaim<S, T>[]>();
  private readonly keysOf = new Map<string, readonly string[]>();
  private readonly contested = new Set<string>();

  constructor(private readonly keyOf: (item: T) => string) {}

  /**
   * Replaces the claims of the source `id` (undefined: it claims nothing now). `onWinner(key, old, now)` is called,
   * in key order of first appearance, for each key whose winning value changed (undefined: no winner).
   */
  set(
    id: string,
    claims: SourceClaims<S, T> | undefined,
    onWinner: (key: string, old: T | undefined, now: T | undefined) => void,
  ): void {
    const before = new Map<string, T | undefined>();
    for (const key of this.keysOf.get(id) ?? []) {
      const list = this.byKey.get(key) ?? [];
      before.set(key, list[0]?.value);
      this.byKey.set(
        key,
        list.filter((c) => c.id !== id),
      );
    }
    const keys: string[] = [];
    claims?.items.forEach((value, index) => {
      const key = this.keyOf(value);
      const list = this.byKey.get(key) ?? [];
      if (!before.has(key)) before.set(key, list[0]?.value);
      const claim = { value, source: claims.source, index, id };
      let i = 0;
      while (i < list.length && compareClaims(list[i] as Claim<S, T>, claim) <= 0) i++;
      list.splice(i, 0, claim);
      this.byKey.set(key, list);
      if (!keys.includes(key)) keys.push(key);
    });
    if (keys.length > 0) this.keysOf.set(id, keys);
    else this.keysOf.delete(id);
    for (const [key, old] of before) {
      const list = this.byKey.get(key) ?? [];
      if (list.length === 0) this.byKey.delete(key);
      if (list.length > 1) this.contested.add(key);
      else this.contested.delete(key);
      const now = list[0]?.value;
      if (old !== now) onWinner(key, old, now);
    }
  }

  /** The source of the winning claim of `key`, if any. */
  winner(key: string): S | undefined {
    return this.byKey.get(key)?.[0]?.source;
  }

  /** The claims that lose, in claim order (as resolveClaims' `lost`). */
  lost(): LostClaim<S, T>[] {
    const beaten: { claim: Claim<S, T>; key: string; winner: Claim<S, T> }[] = [];
    for (const key of this.contested) {
      const [winner, ...others] = this.byKey.get(key) ?? [];
      if (winner) for (const claim of others) beaten.push({ claim, key, winner });
    }
    return beaten
      .sort((a, b) => compareClaims(a.claim, b.claim))
      .map(({ claim, key, winner }) => ({
        key,
        value: claim.value,
        source: claim.source,
        winner: { value: winner.value, source: winner.source },
      }));
  }
}
