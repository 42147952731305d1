/** What the ConfigStore compares when an object is written again (store.ts put). */
import type { ConfigObject } from '../model/objects.ts';
import { stableStringify } from '../util/json.ts';

/** Content fingerprints, computed once per (immutable) object. */
const fingerprints = new WeakMap<ConfigObject, string>();

/**
 * The object's content without its resourceVersion: a new version with the same content (the echo of a status
 * write, a relabel-free touch) is no change, and the stored object keeps the version of its last content change.
 */
export function fingerprint(obj: ConfigObject): string {
  let f = fingerprints.get(obj);
  if (f === undefined) {
    f = stableStringify({ ...obj, metadata: { ...obj.metadata, resourceVersion: '' } });
    fingerprints.set(obj, f);
  }
  return f;
}

/** True when `obj` is a MetaRouter whose `spec.gateways` differ from those of `old` (its previous version). */
export function gatewaysMoved(old: ConfigObject | undefined, obj: ConfigObject): boolean {
  if (obj.kind !== 'MetaRouter' || old?.kind !== 'MetaRouter') return false;
  return old.spec.gateways.join('\n') !== obj.spec.gateways.join('\n');
}
