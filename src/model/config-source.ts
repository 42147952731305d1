/**
 * What every config source of `aeraki serve` offers (istiod over MCP, the Kubernetes API, a watched directory):
 * the process holds them as a list, started together and synced once all are synced, as Istio's aggregate config
 * controller holds its stores (istio/istio pilot/pkg/config/aggregate/config.go at 7fafc385, `MakeCache` and
 * `storeCache`: one interface, a list of caches, `HasSynced` true when every cache's is). A source writes into the
 * config store; this is only its lifecycle and what operators see of it (/readyz, metrics, /debug/config).
 */

/** A kind not read now, with the line `/readyz` shows for it. */
export interface UnavailableKind {
  readonly kind: string;
  readonly reason: 'not_installed' | 'forbidden';
  readonly message: string;
}

/** One line for `/readyz`: `MetaRouter not installed (CRD ...): read as empty`, `MetaRouter forbidden: list ...`. */
export function describeUnavailable(k: UnavailableKind): string {
  return k.reason === 'forbidden' ? `${k.kind} ${k.message}` : k.message;
}

/**
 * Inputs of a source that cannot be used right now (the directory's files): listed on /debug/config and counted by
 * a metric; a change of the set asks for a reconcile. `P` is the source's own description of one problem.
 */
export interface SourceProblems<P = unknown> {
  problems(): readonly P[];
  /** Calls `listener` after each change of `problems()` (or of the source's `partial`). */
  onProblemsChanged(listener: () => void): () => void;
}

export interface ConfigSource {
  /** What `/readyz` names while the source has not synced: `directory`, `kubernetes`, `istiod (MCP)`. */
  readonly name: string;
  /** Starts reading; resolves once started (not synced: see whenSynced). */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** True once the source delivered one complete state (false again while part of it cannot be read). */
  readonly synced: boolean;
  /** Resolves once synced (stays pending while the source never syncs). */
  whenSynced(): Promise<void>;
  /** While not synced: what `/readyz` says the process waits for (the name, with why when known). */
  pending(): string;
  /** True while the source knows only part of its content (the reconciler holds deletions meanwhile). */
  readonly partial: boolean;
  /** Kinds not read now: not installed (read as empty) or forbidden (not synced). */
  unavailableKinds(): readonly UnavailableKind[];
}
