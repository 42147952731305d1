// Near-miss inputs for `render` and `validate` (the table is near-miss-cases.ts): a misspelt field or a value of
// the wrong type in a kind read strictly is an error naming the object and the field path (exit 1); a near-miss
// kind is a warning (exit 0, 1 with `validate --strict`); kinds nobody reads say nothing. Every case is checked
// in-process for its exact stderr lines and exit codes, then the CLI runs over all of them at once: the same
// lines, the same exit codes, no stack trace.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { render } from '../../src/app/render.ts';
import { validateFiles } from '../../src/app/validate.ts';
import { parseRawObjects } from '../../src/model/parse/objects.ts';
import { hasErrors, issueLine, type ConfigIssue } from '../../src/model/result.ts';
import { cliArgs, run } from '../support/process.ts';
import {
  applicationProtocol,
  dubboPolicy,
  FIELD_CASES,
  KIND_CASES,
  metaRouter,
  redisDestination,
  redisService,
  SILENT_CASES,
  type NearMissCase,
} from './near-miss-cases.ts';
import { PARSE_OPTIONS } from '../support/kinds.ts';

const ROOT = 'istio-system';
const work = mkdtempSync(join(tmpdir(), 'aeraki-near-miss-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** Writes each case to its own file under `dir` (sorted as listed) and returns the paths. */
function writeCases(dir: string, cases: readonly NearMissCase[]): string[] {
  mkdirSync(dir, { recursive: true });
  return cases.map((c, i) => {
    const file = join(dir, `${String(i).padStart(2, '0')}.yaml`);
    writeFileSync(file, JSON.stringify(c.object, null, 2));
    return file;
  });
}

/** The exit codes of cmd/aeraki.ts: render fails on errors; validate on errors, and with --strict on any issue. */
const renderCode = (issues: readonly ConfigIssue[]) => (hasErrors(issues) ? 1 : 0);
const validateCode = (issues: readonly ConfigIssue[], strict: boolean) =>
  hasErrors(issues) || (strict && issues.length > 0) ? 1 : 0;

const GROUPS = [
  { title: 'unknown fields and wrong types are errors', cases: FIELD_CASES, codes: { plain: 1, strict: 1 } },
  { title: 'near-miss kinds are warnings', cases: KIND_CASES, codes: { plain: 0, strict: 1 } },
  { title: 'kinds nobody reads are ignored', cases: SILENT_CASES, codes: { plain: 0, strict: 0 } },
] as const;

describe('near-miss inputs', () => {
  it('the unchanged objects of the table are valid (each case breaks exactly what it names)', () => {
    const raws = [metaRouter(), applicationProtocol(), redisService(), redisDestination(), dubboPolicy()];
    const parsed = parseRawObjects(raws, ROOT, [], PARSE_OPTIONS);
    assert.deepEqual(parsed.issues.map(issueLine), []);
    assert.equal(parsed.objects.length, raws.length);
  });

  for (const group of GROUPS) {
    describe(group.title, () => {
      const files = writeCases(join(work, group.title.replace(/\W+/g, '-')), group.cases);
      group.cases.forEach((c, i) => {
        it(c.name, () => {
          const file = files[i]!;
          const rendered = render({
            files: [file],
            output: 'yaml',
            routes: false,
            rootNamespace: ROOT,
            namespaceScope: false,
          });
          assert.deepEqual(rendered.issues.map(issueLine), c.lines, 'render');
          assert.equal(renderCode(rendered.issues), group.codes.plain, 'render exit code');
          const routes = render({
            files: [file],
            output: 'yaml',
            routes: true,
            rootNamespace: ROOT,
            namespaceScope: false,
          });
          assert.deepEqual(routes.issues.map(issueLine), c.lines, 'render --routes');
          const validated = validateFiles({ files: [file], rootNamespace: ROOT, namespaceScope: false });
          assert.deepEqual(validated.map(issueLine), c.lines, 'validate');
          assert.equal(validateCode(validated, false), group.codes.plain, 'validate exit code');
          assert.equal(validateCode(validated, true), group.codes.strict, 'validate --strict exit code');
        });
      });
    });
  }

  describe('the CLI over the whole table', { concurrency: 3 }, () => {
    const cli = (...args: string[]) => run(process.execPath, cliArgs(args), 60_000);
    const all = join(work, 'cli-all');
    const allCases = GROUPS.flatMap((g) => g.cases);
    writeCases(all, allCases);
    const warnings = join(work, 'cli-warnings');
    writeCases(warnings, [...KIND_CASES, ...SILENT_CASES]);
    const linesOf = (cases: readonly NearMissCase[]) => cases.flatMap((c) => c.lines);
    const noStack = (stderr: string) => {
      assert.doesNotMatch(stderr, /^\s+at /m, 'no stack trace');
      assert.ok(
        stderr.split('\n').every((l) => l === '' || /^(error|warning): /.test(l)),
        stderr,
      );
    };

    for (const [command, extra] of [
      ['validate', []],
      ['validate', ['--strict']],
      ['render', []],
    ] as const) {
      it(
        `${command} ${extra.join(' ')}: every line in file order, exit 1 (errors)`.replace('  ', ' '),
        async () => {
          const r = await cli(command, '-f', all, ...extra);
          noStack(r.stderr);
          const lines = r.stderr.trimEnd().split('\n');
          // The table reuses one name per kind, so the files define those objects several times: one warning each.
          const defined = lines.filter((l) => / defined \d+ times \(/.test(l));
          assert.deepEqual(
            defined.map((l) => l.slice(0, l.indexOf(': defined'))),
            [
              'warning: MetaRouter rpc/r',
              'warning: ApplicationProtocol trpc',
              'warning: RedisService cache/rs',
              'warning: RedisDestination cache/rd',
            ],
          );
          assert.deepEqual(
            lines.filter((l) => !defined.includes(l)),
            linesOf(allCases),
          );
          assert.equal(r.code, 1);
        },
      );
    }

    it('validate over warnings only: exit 0; with --strict: the same lines, exit 1', async () => {
      const [plain, strict] = await Promise.all([
        cli('validate', '-f', warnings),
        cli('validate', '--strict', '-f', warnings),
      ]);
      for (const r of [plain, strict]) {
        noStack(r.stderr);
        assert.deepEqual(r.stderr.trimEnd().split('\n'), linesOf(KIND_CASES));
        assert.equal(r.stdout, '');
      }
      assert.equal(plain.code, 0);
      assert.equal(strict.code, 1);
    });
  });
});
