// A second test reporter: a progress line on stderr every PROGRESS_EVERY tests, and at the end of the run every
// failed test again, with its place and its error, then one line with the totals. CI shows the end of the output;
// with the TAP reporter alone a failure deep in the run is out of sight, and 3,000 lines of TAP say nothing of how
// far the run is. TAP stays the main output (CI and tests read it).
// Node's reporter API (node:test, "Custom reporters"): an async generator over the run's events.
// Plain JavaScript: the runner loads reporters before `--import tsx` applies, so TypeScript would not load.
// @ts-check
import process from 'node:process';

/** @typedef {{ name: string, where: string, message: string }} Failure */

/**
 * @param {AsyncIterable<import('node:test/reporters').TestEvent>} source
 * @returns {AsyncGenerator<string>}
 */
export default async function* failuresReporter(source) {
  // An async generator function itself: node passes the events only to one (a plain function gets nothing).
  yield* reportTo(source, (line) => process.stderr.write(line));
}

/**
 * The reporter, with its progress lines written to `writeProgress` (standard error when node runs it).
 * @param {AsyncIterable<import('node:test/reporters').TestEvent>} source
 * @param {(line: string) => void} writeProgress
 * @returns {AsyncGenerator<string>}
 */
export async function* reportTo(source, writeProgress) {
  /** @type {Failure[]} */
  const failures = [];
  /** @type {Record<string, string>} */
  const counts = {};
  const progress = new Progress(writeProgress);
  let told = false;
  for await (const event of source) {
    if (event.type === 'test:pass' || event.type === 'test:fail') progress.count(event);
    // The run ends with its counts, as diagnostics at nesting 0 (`tests 3012`, ..., `todo 0`, `duration_ms 301.5`).
    // Answer at `todo`, not later: --test-force-exit ends the process before the duration (and a reporter's yield
    // after the source ends) is written.
    if (event.type === 'test:diagnostic' && event.data.nesting === 0) {
      const [key, value] = event.data.message.split(' ');
      if (key !== undefined && value !== undefined) counts[key] = value;
      if (key === 'todo' && !told) {
        yield summary(failures) + total(counts, progress.seconds());
        told = true;
      }
      continue;
    }
    if (event.type !== 'test:fail') continue;
    const { name, file, line, column, details } = event.data;
    /** @type {unknown} */
    const error = details.error;
    // A suite fails when a test in it fails: name the test, not every parent again.
    if (isObject(error) && error.failureType === 'subtestsFailed') continue;
    const cause = isObject(error) && error.cause !== undefined ? error.cause : error;
    failures.push({
      name,
      where: file !== undefined ? `${file}:${line ?? '?'}:${column ?? '?'}` : '(unknown file)',
      message: cause instanceof Error ? (cause.stack ?? cause.message) : String(cause),
    });
  }
  if (!told) yield summary(failures) + total(counts, progress.seconds());
}

/** Tests (not suites) finished so far; every PROGRESS_EVERY of them, one line. */
export const PROGRESS_EVERY = 250;

class Progress {
  /** @param {(line: string) => void} write */
  constructor(write) {
    this.write = write;
    this.done = 0;
    this.failed = 0;
    this.started = Date.now();
  }

  /** @param {import('node:test/reporters').TestEvent & { type: 'test:pass' | 'test:fail' }} event */
  count(event) {
    if (event.data.details.type === 'suite') return;
    this.done++;
    if (event.type === 'test:fail') this.failed++;
    if (this.done % PROGRESS_EVERY !== 0) return;
    this.write(`# progress: ${this.done} tests done, ${this.failed} failed, ${this.seconds()} s\n`);
  }

  /** Seconds since the reporter started (the run's own duration comes after the last line that is written). */
  seconds() {
    return Math.round((Date.now() - this.started) / 1000);
  }
}

/**
 * The last line of the run: `# total: ok: 3012 tests, 3012 passed, 0 failed, 0 cancelled, 0 skipped, 0 todo (301 s)`.
 * @param {Record<string, string>} c
 * @param {number} elapsed seconds
 * @returns {string}
 */
function total(c, elapsed) {
  const n = (/** @type {string} */ key) => c[key] ?? '?';
  const seconds = `${elapsed} s`;
  const verdict = n('fail') === '0' && n('cancelled') === '0' ? 'ok' : 'FAILED';
  return (
    `# total: ${verdict}: ${n('tests')} tests, ${n('pass')} passed, ${n('fail')} failed, ${n('cancelled')} cancelled, ` +
    `${n('skipped')} skipped, ${n('todo')} todo (${seconds})\n`
  );
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
function isObject(value) {
  return typeof value === 'object' && value !== null;
}

// One string, one write: the TAP reporter writes to the same stream and would split it line by line.
/**
 * @param {readonly Failure[]} failures
 * @returns {string}
 */
function summary(failures) {
  if (failures.length === 0) return '';
  let text = `\n# failed tests (${failures.length}):\n`;
  for (const f of failures) {
    text += `# - ${f.name}\n#   at ${f.where}\n`;
    const lines = f.message
      .split('\n')
      .filter((l) => !/\(?node:internal\//.test(l) && !/^\s*at new Promise/.test(l));
    for (const l of lines.slice(0, 30)) text += `#   ${l}\n`;
  }
  return text;
}
