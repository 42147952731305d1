/**
 * Applies writes with bounded concurrency, paced by the optional rate limiter, checking `mayWrite()` (leadership)
 * right before every single write and collecting every failure (one failure never hides another). Generic over what is written: `planWrites` turns an
 * EnvoyFilter plan into ops; the bootstrap controller builds ConfigMap ops and gets `applyWrites` from src/app/.
 */
import { SOURCE_ANNOTATION } from '../model/constants.ts';
import type { OutputObject } from '../model/objects.ts';
import {
  asSinkError,
  type ApplyOptions,
  type ApplyResult,
  type ApplyWrites,
  type WriteFailure,
  type WriteOp,
} from '../kit/write.ts';
import type { RateLimiter } from '../util/rate-limit.ts';
import type { ExistingObject, ManagedKind, Plan } from './diff.ts';
import type { ManagedCache } from './managed-cache.ts';
import type { EnvoyFilterSink } from './sink.ts';

export async function applyWrites<O extends WriteOp>(
  ops: readonly O[],
  options: ApplyOptions<O>,
): Promise<ApplyResult> {
  const counts = { create: 0, update: 0, delete: 0 };
  const failures: WriteFailure[] = [];
  let interrupted = false;
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let op = ops[next++]; op !== undefined && !interrupted; op = ops[next++]) {
      if (options.limiter) await options.limiter.take();
      if (interrupted || !options.mayWrite()) {
        interrupted = true;
        return;
      }
      try {
        await op.write();
        counts[op.op]++;
        options.onWrite?.(op, undefined);
      } catch (err) {
        const error = asSinkError(`${op.op} ${op.kind} ${op.namespace}/${op.name}`, err);
        failures.push({ op: op.op, kind: op.kind, namespace: op.namespace, name: op.name, error });
        options.onWrite?.(op, error);
      }
    }
  };
  const workers: Promise<void>[] = [];
  for (let i = 0; i < Math.max(1, Math.min(options.concurrency, ops.length)); i++) workers.push(worker());
  await Promise.all(workers);
  return { created: counts.create, updated: counts.update, deleted: counts.delete, failures, interrupted };
}

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
export function planWrites(plan: Plan, sink: EnvoyFilterSink, cache?: ManagedCache): WriteOp[] {
  const record = (written: ExistingObject | void): void => {
    if (!cache) return;
    if (written) cache.upsert(written, true);
    else cache.markStale();
  };
  /** Marks the object as written by the controller while `write` runs (its watch event needs no run). */
  const tracked =
    (t: { kind: ManagedKind; namespace: string; name: string }, write: () => Promise<void>) =>
    async (): Promise<void> => {
      cache?.beginWrite(t.kind, t.namespace, t.name);
      try {
        await write();
      } finally {
        cache?.endWrite(t.kind, t.namespace, t.name);
      }
    };
  return [
    ...plan.creates.map((o) => ({
      op: 'create' as const,
      ...target(o),
      write: tracked(target(o), async () => record(await sink.create(o))),
    })),
    ...plan.updates.map((u) => ({
      op: 'update' as const,
      ...target(u.desired),
      write: tracked(target(u.desired), async () => record(await sink.update(u.desired, u.existing))),
    })),
    ...plan.deletes.map((e) => ({
      op: 'delete' as const,
      kind: e.kind,
      namespace: e.namespace,
      name: e.name,
      source: e.annotations[SOURCE_ANNOTATION],
      write: tracked(e, async () => {
        await sink.delete(e);
        cache?.remove(e.kind, e.namespace, e.name);
      }),
    })),
  ];
}

/** applyWrites with every write paced by `limiter` (one bucket shared by every writer of the process). */
export function limitedApply(limiter: RateLimiter): ApplyWrites {
  return (ops, options) => applyWrites(ops, { ...options, limiter });
}
