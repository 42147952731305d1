// Owner-reference garbage collection, as kube-controller-manager's garbage collector does it with background
// propagation (the default of a DELETE: the owner goes at once, its dependents after it). When an object is
// deleted, every object whose metadata.ownerReferences names its uid is deleted too, like an API DELETE
// (finalizers respected), and so on down the chain. Runs asynchronously, after the owner's DELETE was answered.
// Not modelled: foreground deletion and `propagationPolicy: Orphan` (dependents are always deleted), and
// dependents created after their owner is gone (the real collector finds those by looking the owner up).
import { isObj } from './objects.ts';
import { deleteObject } from './reads.ts';
import { preferredVersion, type Registry } from './registry.ts';
import type { ObjectStore } from './store.ts';
import type { KubeObject } from './types.ts';

function ownerUids(o: KubeObject): string[] {
  const refs = o.metadata['ownerReferences'];
  if (!Array.isArray(refs)) return [];
  return refs.filter(isObj).map((r) => (typeof r['uid'] === 'string' ? r['uid'] : ''));
}

/** Deletes the dependents of every deleted object (see the file comment). */
export function collectGarbage(registry: Registry, store: ObjectStore, now: () => Date): void {
  const gone: string[] = [];
  let scheduled = false;
  const sweep = (): void => {
    scheduled = false;
    const uids = new Set(gone.splice(0));
    for (const rt of registry.all()) {
      const dependents = store.scan(rt).filter((o) => ownerUids(o).some((u) => uids.has(u)));
      for (const d of dependents) {
        const ns = rt.namespaced ? d.metadata.namespace : undefined;
        if (!store.get(rt, ns, d.metadata.name ?? '')) continue;
        deleteObject(store, now, rt, preferredVersion(rt), ns, d.metadata.name ?? '', {});
      }
    }
  };
  store.subscribe((_rt, ev) => {
    const uid = ev.object.metadata.uid;
    if (ev.type !== 'DELETED' || uid === undefined) return;
    gone.push(uid);
    if (scheduled) return;
    scheduled = true;
    setImmediate(sweep);
  });
}
