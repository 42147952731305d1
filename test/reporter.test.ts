// npm test's second reporter (test/support/failures-reporter.mjs): a progress line every PROGRESS_EVERY tests on
// standard error, and at the end the failures again and one line with the totals, the very last of the output.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PROGRESS_EVERY, reportTo } from './support/failures-reporter.mjs';
import { start } from './support/process.ts';

type Event = { type: string; data: Record<string, unknown> };

function* run(tests: number, failing: ReadonlySet<number>): Generator<Event> {
  for (let i = 0; i < tests; i++) {
    const type = failing.has(i) ? 'test:fail' : 'test:pass';
    const error = Object.assign(new Error(`boom ${i}`), { failureType: 'testCodeFailure' });
    yield {
      type,
      data: {
        name: `t${i}`,
        nesting: 1,
        file: '/x.test.ts',
        line: i + 1,
        column: 3,
        details: { type: 'test', error },
      },
    };
  }
  yield { type: 'test:pass', data: { name: 'suite', nesting: 0, details: { type: 'suite' } } };
  yield { type: 'test:plan', data: { nesting: 0, count: 1 } };
  const counts = {
    tests,
    suites: 1,
    pass: tests - failing.size,
    fail: failing.size,
    cancelled: 0,
    skipped: 0,
    todo: 0,
  };
  for (const [k, v] of Object.entries(counts))
    yield { type: 'test:diagnostic', data: { nesting: 0, message: `${k} ${v}` } };
}

async function report(
  tests: number,
  failing: ReadonlySet<number>,
): Promise<{ out: string; progress: string[] }> {
  const progress: string[] = [];
  async function* source(): AsyncGenerator<Event> {
    for (const event of run(tests, failing)) yield await Promise.resolve(event);
  }
  let out = '';
  // The events are built by hand: the reporter reads only the fields above.
  for await (const chunk of reportTo(source() as never, (l: string) => progress.push(l))) out += chunk;
  return { out, progress };
}

describe('npm test reporter (test/support/failures-reporter.mjs)', () => {
  it('writes a progress line every PROGRESS_EVERY tests, suites not counted', async () => {
    const { progress } = await report(PROGRESS_EVERY * 2 + 1, new Set([3]));
    assert.equal(progress.length, 2);
    assert.match(progress[0]!, new RegExp(`^# progress: ${PROGRESS_EVERY} tests done, 1 failed, \\d+ s\\n$`));
  });

  it('ends with the failures, then one line of totals', async () => {
    const { out } = await report(10, new Set([4]));
    const lines = out.trimEnd().split('\n');
    assert.match(
      lines.at(-1)!,
      /^# total: FAILED: 10 tests, 9 passed, 1 failed, 0 cancelled, 0 skipped, 0 todo \(\d+ s\)$/,
    );
    assert.ok(out.indexOf('# failed tests (1):') < out.indexOf('# total:'));
    assert.match(out, /# - t4\n# {3}at \/x\.test\.ts:5:3\n/);
    const clean = await report(3, new Set());
    assert.match(
      clean.out,
      /^# total: ok: 3 tests, 3 passed, 0 failed, 0 cancelled, 0 skipped, 0 todo \(\d+ s\)\n$/,
    );
  });

  it('runs as npm test runs it: TAP, then the failures and the totals last; progress on stderr', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-reporter-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const suite = path.join(dir, 'sample.test.mjs');
    writeFileSync(
      suite,
      "import { it } from 'node:test';\n" +
        `for (let i = 0; i < ${PROGRESS_EVERY + 1}; i++) it('t' + i, () => { if (i === 7) throw new Error('boom'); });\n`,
    );
    const reporter = fileURLToPath(new URL('./support/failures-reporter.mjs', import.meta.url));
    // Without the runner's own context variable, which would make the child skip its files as a nested run.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const child = start(
      process.execPath,
      [
        // Without --test-force-exit (npm test has it, for handles a test leaves open): on a file of 251 empty tests
        // the runner is done before the reporters have read its events, and the forced exit cuts the output short
        // (seen in CI at t157), whatever the reporters do. The sample leaves nothing open.
        '--test',
        '--test-reporter=tap',
        '--test-reporter-destination=stdout',
        `--test-reporter=${reporter}`,
        '--test-reporter-destination=stdout',
        suite,
      ],
      60_000,
      env,
    );
    const code = await child.exited;
    const r = { code, stdout: child.stdout, stderr: child.stderr };
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /^TAP version 13\n/);
    // TAP's own last line, the run's duration, comes after (a forced exit would drop it, as npm test's does).
    const lines = r.stdout
      .trimEnd()
      .split('\n')
      .filter((l) => !l.startsWith('# duration_ms'));
    assert.match(
      lines.at(-1)!,
      new RegExp(`^# total: FAILED: ${PROGRESS_EVERY + 1} tests, ${PROGRESS_EVERY} passed, 1 failed`),
    );
    assert.ok(r.stdout.lastIndexOf('# failed tests (1):') > r.stdout.lastIndexOf('# todo 0'));
    assert.match(r.stderr, new RegExp(`^# progress: ${PROGRESS_EVERY} tests done, 1 failed, \\d+ s$`, 'm'));
  });
});
