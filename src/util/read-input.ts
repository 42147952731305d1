/**
 * Reading one input of `-f` whatever it is: a regular file, standard input (`-`, as kubectl's `-f -`), or a pipe
 * (`-f <(kustomize build)`, a named FIFO). A pipe is opened without blocking, so a named FIFO that nobody writes
 * is read as empty at once instead of waiting forever; what a writer sends is read to its end. Reading stops one
 * byte past `maxBytes`, so no input costs more than its limit. Errors are described as users read them, without
 * Node's errno prefix and system call (`no such file or directory`, not `ENOENT: ..., stat '-'`).
 */
import { closeSync, constants, openSync, readFileSync, readSync, statSync } from 'node:fs';

/** The path that names standard input. */
export const STDIN_PATH = '-';

export type InputRead =
  | { readonly ok: true; readonly bytes: Buffer; readonly size: number }
  | { readonly ok: false; readonly message: string };

/**
 * The bytes of `path`: all of them when `size` (the bytes the input holds, or at least what was read) is at most
 * `maxBytes`; otherwise `bytes` may hold only a part.
 */
export function readInput(path: string, maxBytes: number): InputRead {
  try {
    if (path === STDIN_PATH) return readStream(0, maxBytes);
    const st = statSync(path);
    if (st.isDirectory()) return { ok: false, message: 'is a directory' };
    if (st.isFile()) {
      if (st.size > maxBytes) return { ok: true, bytes: Buffer.alloc(0), size: st.size };
      const bytes = readFileSync(path);
      return { ok: true, bytes, size: bytes.length };
    }
    const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const read = readStream(fd, maxBytes);
      if (read.ok && read.size === 0 && st.isFIFO())
        return { ok: false, message: 'a pipe that nobody wrote to (no writer had it open)' };
      return read;
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    return { ok: false, message: describeIoError(err) };
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/** Reads `fd` to its end (or one byte past `maxBytes`); a non-blocking one that has nothing yet is waited for. */
function readStream(fd: number, maxBytes: number): InputRead {
  const chunks: Buffer[] = [];
  let size = 0;
  const buffer = Buffer.alloc(64 * 1024);
  while (size <= maxBytes) {
    let n: number;
    try {
      n = readSync(fd, buffer, 0, buffer.length, null);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      Atomics.wait(pause, 0, 0, 5); // a writer is there but has not written yet: wait 5 ms, synchronously
      continue;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, n)));
    size += n;
  }
  return { ok: true, bytes: Buffer.concat(chunks), size };
}

/**
 * An I/O error as a user reads it: Node's `ENOENT: no such file or directory, stat 'x'` is `no such file or
 * directory` (the caller names the file once).
 */
export function describeIoError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const m = /^[A-Z][A-Z0-9_]+: (.*?)(?:, [a-z_]+(?: '.*')?)?$/s.exec(message);
  return m?.[1] ?? message;
}
