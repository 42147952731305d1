/**
 * Kubernetes resourceVersions are opaque, but every API server in use (etcd revisions, the test fake) hands out
 * increasing decimal integers. Caches fed by both watch events and write answers use this to keep a newer version
 * when an older one arrives late; any other version is taken as it comes (a periodic real list repairs it).
 */

/** True when `a` is known to be an older resourceVersion than `b` (both decimal integers). */
export function olderVersion(a: string, b: string): boolean {
  if (!/^\d+$/.test(a) || !/^\d+$/.test(b)) return false;
  return a.length !== b.length ? a.length < b.length : a < b;
}

/** True when `next` should replace the cached `current` version: not the same, and not known to be older. */
export function replacesVersion(next: string, current: string): boolean {
  return next !== current && !olderVersion(next, current);
}
