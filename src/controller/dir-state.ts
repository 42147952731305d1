/**
 * The directory source's memory across restarts (`--dir-state-file`): the last good read of every file of the
 * config directory, so that a file that cannot be read at start has its objects of before the restart in effect
 * instead of none (DESIGN habit 13). One JSON document, `{ version: 1, files: [{ path, hash, objects }] }`: per
 * file its path, the SHA-256 of the bytes last read well, and the objects parsed from them, holding only the fields
 * the store reads (dir-state-fields.ts); Secrets are never written. Written atomically (a temporary file, fsync,
 * rename, fsync of the directory) with mode 0600. A state file that is missing is an empty state; one that is over
 * `maxBytes`, unreadable, not JSON or not of this shape is ignored as a whole, with a warning: it never stops the
 * source.
 */
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { isPlainObject } from '../util/json.ts';

/** The version of the format; a state file of another version is ignored. */
export const DIR_STATE_VERSION = 1;

/** The largest state file read or written (32 MiB): over it, reading ignores the file and writing is refused. */
export const MAX_DIR_STATE_BYTES = 32 * 1024 * 1024;

/** One file's last good read. */
export interface DirStateEntry {
  /** The file's path as the directory listing names it. */
  readonly path: string;
  /** SHA-256 (hex) of the bytes read. */
  readonly hash: string;
  /** The objects parsed from them (decoded documents, `kind: List` flattened), with only the fields kept. */
  readonly objects: readonly unknown[];
}

/** What a state file holds, and why it was ignored (undefined: read, or no state file yet). */
export interface DirStateRead {
  readonly entries: readonly DirStateEntry[];
  readonly warning?: string;
}

const HASH = /^[0-9a-f]{64}$/;

/** Reads the state file; never throws. A missing file is an empty state without a warning. */
export function readDirState(file: string, maxBytes = MAX_DIR_STATE_BYTES): DirStateRead {
  let text: string;
  try {
    const size = statSync(file).size;
    if (size > maxBytes) return ignored(`${size} bytes, over the limit of ${maxBytes}`);
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [] };
    return ignored(`cannot read: ${message(err)}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return ignored(`not valid JSON: ${message(err)}`);
  }
  const entries = entriesOf(doc);
  return typeof entries === 'string' ? ignored(entries) : { entries };
}

/** The entries of a decoded state document, or what is wrong with it. */
function entriesOf(doc: unknown): DirStateEntry[] | string {
  if (!isPlainObject(doc)) return 'expected a JSON object';
  if (doc['version'] !== DIR_STATE_VERSION) return `version: expected ${DIR_STATE_VERSION}`;
  const files = doc['files'];
  if (!Array.isArray(files)) return 'files: expected a list';
  const out: DirStateEntry[] = [];
  for (const [i, f] of files.entries()) {
    if (!isPlainObject(f)) return `files[${i}]: expected an object`;
    const { path: p, hash, objects } = f;
    if (typeof p !== 'string' || p === '') return `files[${i}].path: expected a path`;
    if (typeof hash !== 'string' || !HASH.test(hash)) return `files[${i}].hash: expected a SHA-256 in hex`;
    if (!Array.isArray(objects) || !objects.every(isPlainObject))
      return `files[${i}].objects: expected a list of objects`;
    out.push({ path: p, hash, objects });
  }
  return out;
}

function ignored(why: string): DirStateRead {
  return { entries: [], warning: `${why}; ignored` };
}

/** The text written for `entries` (compare it with the last one written to skip a write that changes nothing). */
export function dirStateText(entries: readonly DirStateEntry[]): string {
  return `${JSON.stringify({ version: DIR_STATE_VERSION, files: entries })}\n`;
}

/**
 * Writes `text` (dirStateText) to `file` atomically: a temporary file beside it, written and flushed to disk, then
 * renamed over `file`, then the directory flushed. Throws on an I/O error or when over `maxBytes` (`file` is then
 * unchanged and no temporary file stays).
 */
export function writeDirState(file: string, text: string, maxBytes = MAX_DIR_STATE_BYTES): void {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length > maxBytes) throw new Error(`${bytes.length} bytes, over the limit of ${maxBytes}`);
  const dir = path.dirname(file);
  mkdirSync(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeSync(fd, bytes);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  syncDirectory(dir);
}

/** Flushes a directory entry (the rename); a file system that cannot (some network ones) is left as it is. */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // best effort: the rename itself is atomic
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
