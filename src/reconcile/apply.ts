/**
 * Applies a Plan through a sink with bounded concurrency, checking leadership before every single write and
 * collecting every failure (one failure never hides another).
 */
import type { Logger } from '../util/logger.ts';
import type { Plan } from './diff.ts';
import { SinkError, type WriteFailure } from '../model/write.ts';
import type { EnvoyFilterSink } from './sink.ts';

export interface ApplyOptions {
  readonly concurrency: number;
  /** Checked immediately before each write; false stops the remaining writes at once. */
  readonly mayWrite: () => boolean;
  readonly logger: Logger;
}

export interface ApplyResult {
  readonly created: number;
  readonly updated: number;
  readonly deleted: number;
  readonly failures: readonly WriteFailure[];
  /** True when writing stopped because mayWrite() turned false. */
  readonly interrupted: boolean;
}

type Task = () => Promise<void>;

interface Op {
  readonly op: WriteFailure['op'];
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly run: Task;
}

export async function applyPlan(
  plan: Plan,
  sink: EnvoyFilterSink,
  options: ApplyOptions,
): Promise<ApplyResult> {
  const ops: Op[] = [
    ...plan.creates.map((o) => ({
      op: 'create' as const,
      kind: o.kind,
      namespace: o.metadata.namespace,
      name: o.metadata.name,
      run: () => sink.create(o),
    })),
    ...plan.updates.map((u) => ({
      op: 'update' as const,
      kind: u.desired.kind,
      namespace: u.desired.metadata.namespace,
      name: u.desired.metadata.name,
      run: () => sink.update(u.desired, u.existing),
    })),
    ...plan.deletes.map((e) => ({
      op: 'delete' as const,
      kind: e.kind,
      namespace: e.namespace,
      name: e.name,
      run: () => sink.delete(e),
    })),
  ];
  const counts = { create: 0, update: 0, delete: 0 };
  const failures: WriteFailure[] = [];
  let interrupted = false;
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      if (interrupted) return;
      const op = ops[next++];
      if (op === undefined) return;
      if (!options.mayWrite()) {
        interrupted = true;
        return;
      }
      try {
        await op.run();
        counts[op.op]++;
        options.logger.info(`${op.op}d ${op.kind}`, { namespace: op.namespace, name: op.name });
      } catch (err) {
        const error =
          err instanceof SinkError
            ? err
            : new SinkError(`${op.op} ${op.kind} ${op.namespace}/${op.name}: ${String(err)}`, {
                transient: true,
                cause: err,
              });
        failures.push({ op: op.op, kind: op.kind, namespace: op.namespace, name: op.name, error });
      }
    }
  };
  const workers: Promise<void>[] = [];
  for (let i = 0; i < Math.max(1, Math.min(options.concurrency, ops.length)); i++) workers.push(worker());
  await Promise.all(workers);
  return { created: counts.create, updated: counts.update, deleted: counts.delete, failures, interrupted };
}
