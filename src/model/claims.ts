/**
 * "The first claim wins" (deviation D6): when several sources generate an object under the same key (an
 * EnvoyFilter name, an RDS route name), the oldest source keeps it: the earliest metadata.creationTimestamp (an
 * unknown one counts as newest), then namespace/name, then kind; among the claims of one source, the first.
 */
import { compareStrings, creationTimeMs } from './order.ts';

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
  readonly items: readonly { readonly key: string; readonly value: T }[];
}

/** A claim that lost to an earlier one of the same key. */
export interface LostClaim<S extends ClaimSource, T> {
  readonly key: string;
  readonly value: T;
  readonly source: S;
  readonly winner: { readonly value: T; readonly source: S };
}

export interface ClaimResult<S extends ClaimSource, T> {
  /** One value per key, in the order the keys were first claimed (callers sort them as their output needs). */
  readonly winners: T[];
  /** The claims that lost, in precedence order. */
  readonly lost: LostClaim<S, T>[];
}

/** Sources in D6 precedence: oldest first, then namespace/name, then kind. */
export function sortByPrecedence<S extends ClaimSource>(sources: readonly S[]): S[] {
  const created = new Map(sources.map((s) => [s, creationTimeMs(s.metadata.creationTimestamp)]));
  // Two unknown timestamps subtract to NaN, which counts as equal: the names decide.
  return [...sources].sort(
    (a, b) =>
      (created.get(a) ?? 0) - (created.get(b) ?? 0) ||
      compareStrings(a.metadata.namespace, b.metadata.namespace) ||
      compareStrings(a.metadata.name, b.metadata.name) ||
      compareStrings(a.kind, b.kind),
  );
}

/** Keeps the first claim of every key in D6 precedence. */
export function resolveClaims<S extends ClaimSource, T>(
  claims: readonly SourceClaims<S, T>[],
): ClaimResult<S, T> {
  const bySource = new Map(claims.map((c) => [c.source, c.items]));
  const won = new Map<string, { readonly value: T; readonly source: S }>();
  const lost: LostClaim<S, T>[] = [];
  for (const source of sortByPrecedence([...bySource.keys()])) {
    for (const { key, value } of bySource.get(source) ?? []) {
      const winner = won.get(key);
      if (winner === undefined) won.set(key, { value, source });
      else lost.push({ key, value, source, winner });
    }
  }
  return { winners: [...won.values()].map((w) => w.value), lost };
}
