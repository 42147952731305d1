/**
 * V8 holds the hidden classes that objects reach by adding properties (class fields and constructor
 * assignments included) only weakly. When a full GC finds no live instance of such a class (a per-call
 * cursor, a per-object collector), it drops those hidden classes and throws away every optimized function
 * built for them, so the next burst (an MCP response of 10,000 resources) runs unoptimized until V8 has
 * optimized it again: measured, the MCP envelope decode took twice as long after each full GC.
 */
const pinned: object[] = [];

/** Keeps `instance` (one of a short-lived hot-path class) alive for the life of the process: see above. */
export function pinShape<T extends object>(instance: T): T {
  pinned.push(instance);
  return instance;
}
