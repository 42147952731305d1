/**
 * The port through which the reconciler reads and writes managed objects (EnvoyFilters and gateway
 * VirtualServices). Adapters: the Kubernetes API (kube-sink.ts) and a directory of YAML files (dir-sink.ts).
 */
import type { OutputObject } from '../model/objects.ts';
import type { ExistingObject, ManagedKind } from './diff.ts';

/** An object already read, by kind, namespace and name. */
export type KnownObjects = (kind: ManagedKind, namespace: string, name: string) => ExistingObject | undefined;

export interface EnvoyFilterSink {
  /** Adapter name for logs ('kubernetes', 'directory'). */
  readonly name: string;
  /**
   * Every object of the managed kinds labelled `manager: Aeraki`, whatever wrote it. `known` gives the objects
   * already read (the managed cache): an adapter may take the spec hash of one listed at the same resourceVersion
   * from it instead of hashing its spec again.
   */
  list(known?: KnownObjects): Promise<ExistingObject[]>;
  /** Creates `obj`; resolves with the object as written (with its resourceVersion) when the adapter knows it. */
  create(obj: OutputObject): Promise<ExistingObject | void>;
  /** Replaces the owned fields of `existing` (its resourceVersion is the precondition); foreign labels and
   *  annotations of `existing` are preserved. Resolves with the object as written when the adapter knows it. */
  update(obj: OutputObject, existing: ExistingObject): Promise<ExistingObject | void>;
  /** Deleting an object that is already gone succeeds. */
  delete(existing: ExistingObject): Promise<void>;
}
