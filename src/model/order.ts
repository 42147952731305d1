/**
 * The orders every component agrees on: code-unit order of namespace then name (never locale-dependent), and the
 * D6 precedence of several objects claiming the same thing: oldest creationTimestamp first (an unknown timestamp
 * counts as newest), then namespace/name.
 */
interface Named {
  readonly metadata: {
    readonly namespace: string;
    readonly name: string;
    readonly creationTimestamp?: string;
  };
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareByName(a: Named, b: Named): number {
  return (
    compareStrings(a.metadata.namespace, b.metadata.namespace) ||
    compareStrings(a.metadata.name, b.metadata.name)
  );
}

/** Milliseconds since the epoch, +Infinity when absent or unparsable (counts as newest). */
export function creationTimeMs(timestamp: string | undefined): number {
  if (!timestamp) return Number.POSITIVE_INFINITY;
  const ms = Date.parse(timestamp);
  return Number.isNaN(ms) ? Number.POSITIVE_INFINITY : ms;
}

export function compareOldestFirst(a: Named, b: Named): number {
  const ta = creationTimeMs(a.metadata.creationTimestamp);
  const tb = creationTimeMs(b.metadata.creationTimestamp);
  if (ta !== tb) return ta < tb ? -1 : 1;
  return compareByName(a, b);
}

/** The order of ConfigView.serviceEntries(): namespace, then name, then a ServiceEntry before a Service. */
export function compareServiceOrder(a: Named & { kind: string }, b: Named & { kind: string }): number {
  const rank = (kind: string) => (kind === 'Service' ? 1 : 0);
  return compareByName(a, b) || rank(a.kind) - rank(b.kind);
}
