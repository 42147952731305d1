/**
 * The lines of ClusterFacts.unreadable: `<Kind>: <why>`, one per thing a live analysis could not read. Analyzers
 * that depend on a kind (pods for the proxy-image and subset checks) ask `unreadable(cluster, 'Pod')` and stay
 * silent rather than report from an empty list they were not allowed to fill.
 */
import type { ClusterFacts } from '../types.ts';

/** `Pod: forbidden: ...`. */
export function unreadableLine(kind: string, why: string): string {
  return `${kind}: ${why}`;
}

/** Whether some of `kind`'s objects could not be read. */
export function unreadable(cluster: ClusterFacts, kind: string): boolean {
  return cluster.unreadable.some((l) => l.startsWith(`${kind}: `));
}
