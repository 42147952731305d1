/**
 * The files of the directory source, each with its last good read (DESIGN habit 13: a file that cannot be read,
 * decoded or parsed is partial knowledge, not absence). `read()` lists the directory and re-reads every file; a
 * file whose bytes did not change keeps its parse; a file that now fails keeps the objects of its last good read
 * in effect and is reported; a file that is gone (or that the listing no longer names while the listing itself
 * succeeded) contributes nothing, so its objects are deleted. Files stay in listing order (a later definition of an
 * object wins). A file failing since the process started takes the last good read of an earlier process when one
 * is given (`restored`, from the state file, dir-state.ts; consulted at the first read only: a file gone then is
 * gone, while a file a failed listing did not name keeps it); without one it has no last good read: `partial` is true until it is fixed or removed.
 */
import { createHash } from 'node:crypto';
import type { ConfigIssue } from '../model/result.ts';
import { parseConfigText, readConfigBytes, type FileError, type FileLimits } from './config-file.ts';
import { fileIssue, listConfigFiles, objectsOf } from './file-source.ts';

/** One file's decoded objects and the issues of its documents. */
export interface GoodRead {
  readonly hash: string;
  readonly raws: readonly unknown[];
  readonly issues: readonly ConfigIssue[];
}

interface FileState {
  /** The last good read (undefined: the file never read well, in this process or in the state file). */
  readonly good: GoodRead | undefined;
  /** True when `good` is the read of an earlier process (the state file). */
  readonly restored?: boolean;
  /** Why the last read failed (undefined: it succeeded). */
  readonly error: FileError | undefined;
}

/** A file that cannot be used right now, as /debug/config and the log show it. */
export interface FileProblem extends FileError {
  /** True when the objects of an earlier good read stay in effect; false: none is known (deletions are held). */
  readonly lastGood: boolean;
  /** Present (true) when that last good read is the one of an earlier process, from the state file. */
  readonly restored?: true;
}

/** A file's last good read, as the state file holds it. */
export interface RestoredRead {
  readonly hash: string;
  readonly objects: readonly unknown[];
}

/** What the files hold now: raw objects in path order (last good reads included), and every issue. */
export interface DirContent {
  readonly raws: unknown[];
  readonly issues: ConfigIssue[];
}

export class DirFiles {
  private files = new Map<string, FileState>();
  /** The reads of an earlier process by path, until the first read. */
  private restored: ReadonlyMap<string, RestoredRead>;

  constructor(
    private readonly dir: string,
    private readonly limits: FileLimits,
    restored: ReadonlyMap<string, RestoredRead> = new Map(),
  ) {
    this.restored = restored;
  }

  /** Re-reads the directory; returns the content to load. */
  read(): DirContent {
    const listIssues: ConfigIssue[] = [];
    const listed = listConfigFiles([this.dir], listIssues);
    const next = new Map<string, FileState>();
    for (const path of listed) next.set(path, this.readFile(path, this.files.get(path)));
    // A listing that failed somewhere may have missed files: what it did not name is kept, not deleted.
    if (listIssues.length > 0) {
      for (const [path, state] of this.files) if (!next.has(path)) next.set(path, state);
      for (const [path, r] of this.restored) {
        if (!next.has(path)) next.set(path, { good: restoredRead(r), restored: true, error: undefined });
      }
    }
    this.files = next;
    this.restored = new Map();
    const raws: unknown[] = [];
    const issues: ConfigIssue[] = [...listIssues];
    for (const state of this.files.values()) {
      if (state.error) issues.push(fileIssue(state.error));
      if (!state.good) continue;
      for (const raw of state.good.raws) raws.push(raw);
      issues.push(...state.good.issues);
    }
    return { raws, issues };
  }

  /** Whether `path` was listed by the last read (or kept by it, when the listing failed). */
  has(path: string): boolean {
    return this.files.has(path);
  }

  /** The files that cannot be used right now, by path. */
  problems(): FileProblem[] {
    const out: FileProblem[] = [];
    for (const state of this.files.values()) {
      if (!state.error) continue;
      out.push({
        ...state.error,
        lastGood: state.good !== undefined,
        ...(state.restored === true ? { restored: true as const } : {}),
      });
    }
    return out;
  }

  /** Every file's last good read (restored ones included), in listing order: what the state file keeps. */
  goodReads(): { readonly path: string; readonly good: GoodRead; readonly restored: boolean }[] {
    const out: { path: string; good: GoodRead; restored: boolean }[] = [];
    for (const [path, state] of this.files) {
      if (state.good) out.push({ path, good: state.good, restored: state.restored === true });
    }
    return out;
  }

  /** True while a file fails with no last good read: what it holds is unknown, so nothing may be deleted. */
  get partial(): boolean {
    for (const state of this.files.values()) if (state.error && !state.good) return true;
    return false;
  }

  private readFile(path: string, before: FileState | undefined): FileState {
    const bytes = readConfigBytes(path, this.limits);
    if (!bytes.ok) return this.failed(path, before, bytes.error);
    const hash = createHash('sha256').update(bytes.bytes).digest('hex');
    if (before?.good?.hash === hash && before.restored !== true)
      return { good: before.good, error: undefined };
    const parsed = parseConfigText(path, bytes.bytes, this.limits);
    if (!parsed.ok) return this.failed(path, before, parsed.error);
    const { raws, issues } = objectsOf(path, parsed.documents);
    return { good: { hash, raws, issues }, error: undefined };
  }

  /** A file that cannot be used now: its last good read in this process, else the state file's, stays. */
  private failed(path: string, before: FileState | undefined, error: FileError): FileState {
    if (before?.good) return { good: before.good, error, ...(before.restored ? { restored: true } : {}) };
    const restored = this.restored.get(path);
    if (!restored) return { good: undefined, error };
    return { good: restoredRead(restored), restored: true, error };
  }
}

function restoredRead(r: RestoredRead): GoodRead {
  return { hash: r.hash, raws: r.objects, issues: [] };
}
