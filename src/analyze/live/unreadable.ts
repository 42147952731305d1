/**
 * ClusterFacts.unreadable: one entry per kind a live analysis could not read, with the reason. Analyzers that
 * depend on a kind (pods for the proxy-image and subset checks) ask `unreadable(cluster, 'Pod')` and stay silent
 * rather than report from an empty list they were not allowed to fill; AER0108 prints each as `<Kind>: <why>`.
 */
import type { ClusterFacts, UnreadableFacts } from '../types.ts';

/** `Pod: forbidden: ...`. */
export function unreadableLine(u: UnreadableFacts): string {
  return `${u.kind}: ${u.reason}`;
}

/** Whether some of `kind`'s objects could not be read. */
export function unreadable(cluster: ClusterFacts, kind: string): boolean {
  return cluster.unreadable.some((u) => u.kind === kind);
}
