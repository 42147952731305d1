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
  /** Creates `obj`; resolves with the object as written (with its resourceVersion) when the adapter knows it. */
  create(obj: OutputObject): Promise<ExistingObject | void>;
  /** Replaces the owned fields of `existing` (its resourceVersion is the precondition); foreign labels and
   *  annotations of `existing` are preserved. Resolves with the object as written when the adapter knows it. */
  update(obj: OutputObject, existing: ExistingObject): Promise<ExistingObject | void>;
  /** Deleting an object that is already gone succeeds. */
  delete(existing: ExistingObject): Promise<void>;
}
