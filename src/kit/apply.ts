/**
 * The one apply of every writer: the ops of a plan (kit/diff.ts) written through the writer's port with bounded
 * concurrency, paced by the optional rate limiter, checking `mayWrite()` (not stopped: leadership) right before every single
 * write and collecting every failure (one failure never hides another), per the write contract of kit/write.ts:
 * a rejection becomes a SinkError (409, throttling, server and network errors transient: the run is retried with
 * backoff and re-lists), and a delete answered 404 is done (the object is already gone).
 */
import {
  asSinkError,
  type ApplyOptions,
  type ApplyResult,
  type ApplyWrites,
  type WriteFailure,
  type WriteOp,
} from './write.ts';
import type { DiffPlan, DiffUpdate } from './diff.ts';
import type { RateLimiter } from '../util/rate-limit.ts';

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
        if (op.op === 'delete' && error.code === 404) {
          counts.delete++;
          options.onWrite?.(op, undefined);
          continue;
        }
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

/** applyWrites with every write paced by `limiter` (one bucket shared by every writer of the process). */
export function limitedApply(limiter: RateLimiter): ApplyWrites {
  return (ops, options) => applyWrites(ops, { ...options, limiter });
}

/** Where a write goes, for reports and logs. */
export interface WriteTarget {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  /** The source the written object comes from, when known (convergence metrics). */
  readonly source?: string | undefined;
}

/** How a writer writes the objects of its plans. Each method rejects with a SinkError (or anything asSinkError maps). */
export interface WritePort<D, E> {
  create(desired: D): Promise<unknown>;
  update(update: DiffUpdate<D, E>): Promise<unknown>;
  delete(existing: E): Promise<unknown>;
}

/** One write of a plan with the plan entry it writes. */
export interface PlannedWrite<D, E> extends WriteOp {
  readonly desired?: D;
  readonly existing?: E;
  /** An update that adopts a legacy object. */
  readonly adopt?: true;
}

/**
 * The ops of `plan` through `port`: creates, then updates, then deletes, each in plan order. `targetOf` names what
 * a desired and an existing object are (an update is named after its desired object).
 */
export function planOps<D, E>(
  plan: Pick<DiffPlan<D, E>, 'creates' | 'updates' | 'deletes'>,
  port: WritePort<D, E>,
  targetOf: { readonly desired: (d: D) => WriteTarget; readonly existing: (e: E) => WriteTarget },
): PlannedWrite<D, E>[] {
  return [
    ...plan.creates.map((desired) => ({
      op: 'create' as const,
      ...targetOf.desired(desired),
      desired,
      write: async () => {
        await port.create(desired);
      },
    })),
    ...plan.updates.map((u) => ({
      op: 'update' as const,
      ...targetOf.desired(u.desired),
      desired: u.desired,
      existing: u.existing,
      ...(u.adopt ? { adopt: u.adopt } : {}),
      write: async () => {
        await port.update(u);
      },
    })),
    ...plan.deletes.map((existing) => ({
      op: 'delete' as const,
      ...targetOf.existing(existing),
      existing,
      write: async () => {
        await port.delete(existing);
      },
    })),
  ];
}
