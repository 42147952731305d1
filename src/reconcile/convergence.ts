/**
 * Time from a store event to the write it caused (`aeraki_config_to_write_seconds`). Changes noted between runs
 * are taken by the next run; each is observed once, at a successful write of that run:
 * - a ServiceEntry, Service or Gateway change: the first write of an object whose source it is;
 * - any other kind (VirtualService, DestinationRule, MetaRouter, ...), which reaches services through host
 *   indexes: the last write of the run (an upper bound).
 * A change whose run writes nothing for it is not observed (it changed no EnvoyFilter).
 */
import type { ConfigEvent } from '../model/view.ts';
import type { WriteOp } from '../kit/write.ts';

const SOURCE_KINDS: ReadonlySet<string> = new Set(['ServiceEntry', 'Service', 'Gateway']);

interface Pending {
  readonly at: number;
  /** `Kind/namespace/name` of the source when the changed object is one. */
  readonly source: string | undefined;
}

export type ChangeLike = Pick<ConfigEvent, 'kind' | 'namespace' | 'name' | 'at'>;

export class ConvergenceTracker {
  private pending: Pending[] = [];

  /** Notes a change (events without a time are ignored). */
  note(e: ChangeLike): void {
    if (e.at === undefined) return;
    const source = SOURCE_KINDS.has(e.kind) ? `${e.kind}/${e.namespace}/${e.name}` : undefined;
    this.pending.push({ at: e.at, source });
  }

  /** Takes the changes noted so far for the run that starts now. */
  begin(observe: (ms: number) => void): ConvergenceRun {
    const taken = this.pending;
    this.pending = [];
    return new ConvergenceRun(taken, observe);
  }

  /** Gives back the changes of a run that could not write (they count for the next one). */
  restore(run: ConvergenceRun): void {
    this.pending = [...run.unobserved(), ...this.pending];
  }
}

/** The changes one run answers for. */
export class ConvergenceRun {
  private readonly bySource = new Map<string, number[]>();
  private readonly other: number[] = [];
  private lastWrite: number | undefined;

  constructor(
    changes: readonly Pending[],
    private readonly observe: (ms: number) => void,
  ) {
    for (const c of changes) {
      if (c.source === undefined) this.other.push(c.at);
      else this.bySource.set(c.source, [...(this.bySource.get(c.source) ?? []), c.at]);
    }
  }

  /** A successful write at `now`. */
  wrote(op: Pick<WriteOp, 'source'>, now: number): void {
    this.lastWrite = now;
    if (op.source === undefined) return;
    const times = this.bySource.get(op.source);
    if (!times) return;
    this.bySource.delete(op.source);
    for (const at of times) this.observe(Math.max(0, now - at));
  }

  /** The run's writes are over: the other kinds' changes are observed at its last write. */
  finish(): void {
    if (this.lastWrite === undefined) return;
    for (const at of this.other.splice(0)) this.observe(Math.max(0, this.lastWrite - at));
  }

  /** Changes not observed (for a run that failed before writing). */
  unobserved(): Pending[] {
    const out: Pending[] = this.other.map((at) => ({ at, source: undefined }));
    for (const [source, times] of this.bySource) for (const at of times) out.push({ at, source });
    return out;
  }
}
