// A second test reporter: repeats every failed test, with its place and its error, at the end of the run.
// CI shows the end of the output; with the TAP reporter alone a failure deep in the run is out of sight.
// Node's reporter API (node:test, "Custom reporters"): an async generator over the run's events.
// Plain JavaScript: the runner loads reporters before `--import tsx` applies, so TypeScript would not load.
// @ts-check

/** @typedef {{ name: string, where: string, message: string }} Failure */

/**
 * @param {AsyncIterable<import('node:test/reporters').TestEvent>} source
 * @returns {AsyncGenerator<string>}
 */
export default async function* failuresReporter(source) {
  /** @type {Failure[]} */
  const failures = [];
  let told = false;
  for await (const event of source) {
    // The run's plan ("1..N" at nesting 0) comes last but for the closing counts. Answer there, not after the
    // source ends: --test-force-exit ends the process before a reporter's last yield is written.
    if (event.type === 'test:plan' && event.data.nesting === 0) {
      if (!told) yield summary(failures);
      told = true;
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
  if (!told) yield summary(failures);
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
