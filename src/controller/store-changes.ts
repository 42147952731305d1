/**
 * Keyed, incremental writes of one kind (ConfigStore.applyKindChanges): a full-state source that knows which of
 * its keys changed hands the store only those, each with what the key now is at the source. Per key the effect is
 * the one `replaceKind` has on that key (same events, same rejections, same held hosts, last known good kept),
 * so a source that sends every change of its full state keeps the store exactly where a `replaceKind` of that
 * state would put it, at a cost proportional to the change.
 */
import type { ConfigKind, ConfigObject } from '../model/objects.ts';
import type { RejectedObject } from '../model/parse/objects.ts';
import type { ConfigIssue, ObjectRef } from '../model/result.ts';

/** What one namespace/name of a kind now is at its source. */
export type KeyChange =
  /** Valid: stored (added or updated), any rejection of it cleared. */
  | { readonly type: 'valid'; readonly object: ConfigObject }
  /** Invalid: recorded as rejected; its stored valid version, if any, stays in effect. */
  | { readonly type: 'rejected'; readonly rejection: RejectedObject }
  /** Gone from the source: the object and any rejection of it are removed. */
  | { readonly type: 'absent'; readonly namespace: string; readonly name: string };

/** The single-key writes of the store a KeyChange maps to (ConfigStore's own, each leaving owned keys alone). */
export interface KeyedWrites {
  upsert(obj: ConfigObject): boolean;
  reject(
    ref: ObjectRef,
    issues: readonly ConfigIssue[],
    hosts?: readonly string[],
    gateways?: readonly string[],
  ): void;
  delete(kind: ConfigKind, namespace: string, name: string): boolean;
}

/** Applies `changes` to `store` in order; throws (a bug, not input) for a change of another kind. */
export function applyKeyChanges(store: KeyedWrites, kind: ConfigKind, changes: readonly KeyChange[]): void {
  for (const c of changes) {
    switch (c.type) {
      case 'valid':
        if (c.object.kind !== kind) throw new Error(`applyKindChanges(${kind}) given a ${c.object.kind}`);
        store.upsert(c.object);
        break;
      case 'rejected': {
        const r = c.rejection;
        if (r.ref.kind !== kind) throw new Error(`applyKindChanges(${kind}) given a rejected ${r.ref.kind}`);
        store.reject(r.ref, r.issues, r.hosts, r.gateways);
        break;
      }
      case 'absent':
        store.delete(kind, c.namespace, c.name);
        break;
    }
  }
}
