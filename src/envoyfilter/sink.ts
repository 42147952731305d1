/**
 * The port through which the reconciler reads and writes managed objects (EnvoyFilters and gateway
 * VirtualServices). Adapters: the Kubernetes API (kube-sink.ts) and a directory of YAML files (dir-sink.ts).
 */
import type { OutputObject } from '../model/objects.ts';
import type { ExistingObject } from './diff.ts';

export interface EnvoyFilterSink {
  /** Adapter name for logs ('kubernetes', 'directory'). */
  readonly name: string;
  /** Every object of the managed kinds labelled `manager: Aeraki`, whatever wrote it. */
  list(): Promise<ExistingObject[]>;
  create(obj: OutputObject): Promise<void>;
  /** Replaces the owned fields of `existing` (its resourceVersion is the precondition); foreign labels and
   *  annotations of `existing` are preserved. */
  update(obj: OutputObject, existing: ExistingObject): Promise<void>;
  /** Deleting an object that is already gone succeeds. */
  delete(existing: ExistingObject): Promise<void>;
}

/**
 * A failed sink operation. `transient` failures (conflicts, throttling, server errors, network) are retried with
 * backoff; the others (invalid object, forbidden) are reported and not retried until the next change.
 */
export class SinkError extends Error {
  readonly transient: boolean;
  readonly code: number | undefined;
  readonly reason: string | undefined;

  constructor(
    message: string,
    opts: { transient: boolean; code?: number; reason?: string; cause?: unknown },
  ) {
    super(message, { cause: opts.cause });
    this.name = 'SinkError';
    this.transient = opts.transient;
    this.code = opts.code;
    this.reason = opts.reason;
  }
}

/** HTTP status codes worth retrying: conflicts (re-list and re-plan), timeouts, throttling, server errors. */
export function isTransientStatus(code: number): boolean {
  return code === 409 || code === 408 || code === 429 || code >= 500;
}

/** What one object's write failure looks like in a run report. */
export interface WriteFailure {
  readonly op: 'create' | 'update' | 'delete';
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly error: SinkError;
}
