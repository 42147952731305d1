/**
 * The directory source's state file at work (dir-state.ts): read once at start (a state file that cannot be used
 * is ignored with a warning), then written after every load whose good reads changed. A write that fails is logged
 * at warn (once per distinct error) and retried after the next load; meanwhile the process serves as before, but a
 * restart with a broken file would find an older last good read of it, or none.
 */
import type { GoodRead, RestoredRead } from './dir-files.ts';
import { keptFields, type ReadContext } from './dir-state-fields.ts';
import {
  dirStateText,
  MAX_DIR_STATE_BYTES,
  readDirState,
  writeDirState,
  type DirStateEntry,
} from './dir-state.ts';
import type { Logger } from '../util/logger.ts';

export class DirStateKeeper {
  /** The kept objects of each good read (reads are immutable and shared from one load to the next). */
  private readonly kept = new WeakMap<GoodRead, readonly unknown[]>();
  private lastText: string | undefined;
  private lastError = '';
  /** Number of writes done. */
  writes = 0;

  constructor(
    readonly file: string,
    private readonly ctx: ReadContext,
    private readonly log: Logger,
    private readonly maxBytes = MAX_DIR_STATE_BYTES,
  ) {}

  /** The last good reads of the earlier process, by path (empty when there is no usable state file). */
  restore(): Map<string, RestoredRead> {
    const read = readDirState(this.file, this.maxBytes);
    if (read.warning !== undefined)
      this.log.warn(`directory state file cannot be used: ${read.warning}`, { stateFile: this.file });
    else if (read.entries.length > 0)
      this.log.info('directory state file read', { stateFile: this.file, files: read.entries.length });
    return new Map(read.entries.map((e) => [e.path, { hash: e.hash, objects: e.objects }]));
  }

  /** Writes the good reads when they differ from what was last written; never throws. */
  save(
    reads: readonly { readonly path: string; readonly good: GoodRead; readonly restored: boolean }[],
  ): void {
    let text: string;
    try {
      const entries: DirStateEntry[] = reads.map(({ path, good, restored }) => ({
        path,
        hash: good.hash,
        // A restored read holds kept fields already.
        objects: restored ? good.raws : this.keptOf(good),
      }));
      text = dirStateText(entries);
      if (text === this.lastText) return;
      writeDirState(this.file, text, this.maxBytes);
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      if (error !== this.lastError)
        this.log.warn(
          'cannot write the directory state file: a restart with a broken file will not have its last good read',
          { stateFile: this.file, error },
        );
      this.lastError = error;
      return;
    }
    if (this.lastError !== '') this.log.info('directory state file written again', { stateFile: this.file });
    this.lastError = '';
    this.lastText = text;
    this.writes++;
  }

  private keptOf(good: GoodRead): readonly unknown[] {
    let objects = this.kept.get(good);
    if (objects === undefined) {
      objects = good.raws.map((raw) => keptFields(raw, this.ctx)).filter((o) => o !== undefined);
      this.kept.set(good, objects);
    }
    return objects;
  }
}
