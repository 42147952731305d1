/**
 * The writes of an EnvoyFilter plan: kit/apply.ts planOps through the sink, each write recorded in the managed
 * cache. They are applied by kit/apply.ts applyWrites.
 */
import { SOURCE_ANNOTATION } from '../model/constants.ts';
import type { OutputObject } from '../model/objects.ts';
import { planOps, type PlannedWrite, type WritePort } from '../kit/apply.ts';
import type { ExistingObject, ManagedKind, Plan } from './diff.ts';
import type { ManagedCache } from './managed-cache.ts';
import type { EnvoyFilterSink } from './sink.ts';

const target = (o: OutputObject) => ({
  kind: o.kind,
  namespace: o.metadata.namespace,
  name: o.metadata.name,
  source: o.metadata.annotations?.[SOURCE_ANNOTATION],
});

/**
 * The writes of an EnvoyFilter plan through a sink: creates, then updates, then deletes. With a `cache`, each
 * successful write is recorded there (the written object, or the deletion); a write whose answer carries no
 * object marks the cache stale (the next run lists).
 */
export function planWrites(
  plan: Plan,
  sink: EnvoyFilterSink,
  cache?: ManagedCache,
): PlannedWrite<OutputObject, ExistingObject>[] {
  const record = (written: ExistingObject | void): void => {
    if (!cache) return;
    if (written) cache.upsert(written, true);
    else cache.markStale();
  };
  /** Marks the object as written by the controller while `write` runs (its watch event needs no run). */
  const tracked = async (
    t: { kind: ManagedKind; namespace: string; name: string },
    write: () => Promise<void>,
  ): Promise<void> => {
    cache?.beginWrite(t.kind, t.namespace, t.name);
    try {
      await write();
    } finally {
      cache?.endWrite(t.kind, t.namespace, t.name);
    }
  };
  const port: WritePort<OutputObject, ExistingObject> = {
    create: (o) => tracked(target(o), async () => record(await sink.create(o))),
    update: (u) => tracked(target(u.desired), async () => record(await sink.update(u.desired, u.existing))),
    delete: (e) =>
      tracked(e, async () => {
        await sink.delete(e);
        cache?.remove(e.kind, e.namespace, e.name);
      }),
  };
  return planOps(plan, port, {
    desired: target,
    existing: (e) => ({
      kind: e.kind,
      namespace: e.namespace,
      name: e.name,
      source: e.annotations[SOURCE_ANNOTATION],
    }),
  });
}
