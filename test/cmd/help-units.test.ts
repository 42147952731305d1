// Help text shows durations and sizes as users write them (`200ms`, `15s`, `5m`, `4MiB`): every command's `--help`
// (the real CLI), and every row of every table whose parser carries a formatter reads back what the help prints.
// `aeraki --help` lists every command, and each command's `--help` lists every option of its table.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ANALYZE_ROWS } from '../../cmd/analyze-config.ts';
import { formatByteSize, formatDurationMs, parseByteSize, parseDurationMs } from '../../cmd/parsers.ts';
import { PROXY_STATUS_ROWS } from '../../cmd/proxy-status-config.ts';
import { RENDER_ROWS } from '../../cmd/render-config.ts';
import { ROUTES_ROWS } from '../../cmd/routes-config.ts';
import { showDefault, type ConfigRow } from '../../cmd/rows.ts';
import { SERVE_ROWS } from '../../cmd/serve-config.ts';
import { VALIDATE_ROWS } from '../../cmd/validate-config.ts';
import { cliArgs, run } from '../support/process.ts';

const COMMANDS = ['serve', 'render', 'validate', 'analyze', 'routes', 'certs', 'proxy-status'];
const TABLES: Record<string, object> = {
  serve: SERVE_ROWS,
  render: RENDER_ROWS,
  validate: VALIDATE_ROWS,
  analyze: ANALYZE_ROWS,
  routes: ROUTES_ROWS,
  'proxy-status': PROXY_STATUS_ROWS,
};
/** Placeholders of duration and size options, as the rows name them. */
const UNIT_PLACEHOLDER = /<(duration|bytes|size)>/;

function rowsOf(table: object): [string, ConfigRow<unknown>][] {
  return Object.entries(table) as [string, ConfigRow<unknown>][];
}

describe('help text units', () => {
  it('formats durations and sizes in the largest unit that divides them', () => {
    const durations: [number, string][] = [
      [0, '0'],
      [100, '100ms'],
      [200, '200ms'],
      [1500, '1500ms'],
      [15_000, '15s'],
      [300_000, '5m'],
      [86_400_000, '24h'],
    ];
    for (const [ms, shown] of durations) {
      assert.equal(formatDurationMs(ms), shown);
      assert.equal(parseDurationMs(shown), ms, `parse(${shown})`);
    }
    const sizes: [number, string][] = [
      [0, '0'],
      [1000, '1000B'],
      [65_536, '64KiB'],
      [4_194_304, '4MiB'],
      [1 << 30, '1GiB'],
    ];
    for (const [bytes, shown] of sizes) {
      assert.equal(formatByteSize(bytes), shown);
      assert.equal(parseByteSize(shown), bytes, `parse(${shown})`);
    }
    assert.equal(parseByteSize('4Mi'), 4_194_304, 'the Kubernetes form stays accepted');
  });

  it('every row whose parser carries a formatter reads back its default as the help shows it', () => {
    let checked = 0;
    for (const [command, table] of Object.entries(TABLES)) {
      for (const [key, row] of rowsOf(table)) {
        if (!('format' in row.parse) || typeof row.default !== 'number') continue;
        const shown = showDefault(row);
        assert.doesNotMatch(shown, /^\d{3,}$/, `${command} ${row.flag}: ${shown}`);
        assert.equal(row.parse(shown, undefined), row.default, `${command} ${key}: ${shown}`);
        checked++;
      }
    }
    assert.ok(checked >= 15, `only ${checked} rows carry a unit`);
  });

  for (const command of COMMANDS) {
    it(`aeraki ${command} --help shows no raw millisecond or byte default`, async () => {
      const r = await run(process.execPath, cliArgs([command, '--help']), 60_000);
      assert.equal(r.code, 0, r.stderr);
      // commander wraps long descriptions: join continuation lines to their option first.
      const options = r.stdout.replace(/\n {20,}/g, ' ').split('\n');
      for (const line of options.filter((l) => UNIT_PLACEHOLDER.test(l))) {
        assert.doesNotMatch(line, /\(default: \d+\)/, line);
      }
      const table = TABLES[command];
      for (const [, row] of table ? rowsOf(table) : []) {
        // The flag as commander prints it: `-o, --output <format>`, `--proxies`.
        assert.ok(
          r.stdout.includes(`  ${row.flag}`),
          `${row.flag} in aeraki ${command} --help:\n${r.stdout}`,
        );
      }
      if (command === 'proxy-status') {
        assert.match(r.stdout, /serves a page to look at in a browser:\nhttp:\/\/<debug-address>\/debug\//);
        assert.match(options.join('\n'), /\(default: 5s\)/);
      }
      if (command === 'serve') {
        for (const shown of ['(default: 200ms)', '(default: 15s)', '(default: 5m)', '(default: 4MiB)']) {
          assert.ok(options.join('\n').includes(shown), `${shown} in\n${r.stdout}`);
        }
      }
    });
  }

  it('aeraki --help lists every command', async () => {
    const r = await run(process.execPath, cliArgs(['--help']), 60_000);
    assert.equal(r.code, 0, r.stderr);
    const listed = [...r.stdout.matchAll(/^ {2}([a-z-]+) /gm)].map((m) => m[1]);
    for (const command of [...COMMANDS, 'version'])
      assert.ok(listed.includes(command), `${command} in\n${r.stdout}`);
    assert.match(r.stdout, /^ {2}analyze \[options\] .*stable\s+codes/ms);
    assert.match(r.stdout, /^ {2}proxy-status \[options\] \[proxy\] .*\/debug\/proxies/ms);
  });
});
