// The conventions every command keeps (cmd/usage.ts, README "CLI"), checked on the CLI as a process: a usage
// error is one line and where the help is (exit 2), findings exit 1, --version, help within 80 columns, -n as
// kubectl apply -n, -f - and pipes, durations with units, control characters escaped in text output.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { parseDurationMs } from '../../cmd/parsers.ts';
import { parseDurationNanos } from '../../src/model/parse/duration.ts';
import { repoRoot } from '../app/fixture-cases.ts';
import { cliArgs } from '../support/process.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-cli-conventions-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `aeraki <args>` with `input` on its standard input (none: an empty one), killed after 30 s. */
function aeraki(args: readonly string[], input = ''): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, cliArgs(args), { cwd: repoRoot, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

function file(name: string, text: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}

/** A Thrift service and its route, without namespaces, as Aeraki's demos are written (applied with -n). */
const DEMO = `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: thrift-sample-server}
spec:
  hosts: [thrift-sample-server.meta-thrift.svc.cluster.local]
  addresses: [10.96.0.20]
  ports: [{number: 9090, name: tcp-metaprotocol-thrift-hello, protocol: TCP}]
  resolution: STATIC
  endpoints: [{address: 10.0.0.1}]
`;
const OTHER = `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: elsewhere, namespace: other}
spec:
  hosts: [elsewhere.other.svc.cluster.local]
  ports: [{number: 80, name: http, protocol: TCP}]
`;
const INVALID = `apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: broken, namespace: rpc}
spec:
  hosts: []
`;

const COMMANDS = ['render', 'validate', 'analyze', 'serve', 'certs', 'routes', 'proxy-status', 'version'];

describe('CLI conventions (cmd/usage.ts)', { concurrency: 4 }, () => {
  for (const command of COMMANDS) {
    it(`aeraki ${command}: a usage error is one error line and where the help is, exit 2`, async () => {
      const required = command === 'certs' ? ['--out', dir] : []; // certs checks --out first
      const r = await aeraki([command, ...required, '--no-such-flag']);
      assert.equal(r.code, 2, r.stderr);
      assert.equal(
        r.stderr,
        `error: unknown option '--no-such-flag'\nRun 'aeraki ${command} --help' for usage.\n`,
      );
      assert.equal(r.stdout, '');
    });

    it(`aeraki ${command} --help keeps to 80 columns (a longer line is one unbreakable word)`, async () => {
      const r = await aeraki([command, '--help']);
      assert.equal(r.code, 0, r.stderr);
      const wide = r.stdout.split('\n').filter((l) => l.length > 80 && /\S\s+\S/.test(l.trim()));
      assert.deepEqual(wide, []);
    });
  }

  it('an unknown command and a bad value are usage errors too', async () => {
    const unknown = await aeraki(['frobnicate']);
    assert.equal(unknown.code, 2);
    assert.equal(unknown.stderr, "error: unknown command 'frobnicate'\nRun 'aeraki --help' for usage.\n");
    const bad = await aeraki(['render', '-f', 'x.yaml', '-o', 'xml']);
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr.split('\n').length, 3, bad.stderr); // two lines and the final newline
    const missing = await aeraki(['validate']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^error: at least one -f .*\nRun 'aeraki validate --help' for usage\.\n$/);
  });

  it('--version and -v print what `aeraki version` prints', async () => {
    const version = await aeraki(['version']);
    assert.match(version.stdout, /^aeraki \d+\.\d+\.\d+\n$/);
    for (const flag of ['--version', '-v']) {
      const r = await aeraki([flag]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, version.stdout);
    }
  });

  it('findings exit 1 in render, validate and analyze; flags exit 2', async () => {
    const invalid = file('invalid.yaml', INVALID);
    for (const command of ['render', 'validate', 'analyze']) {
      const r = await aeraki([command, '-f', invalid]);
      assert.equal(r.code, 1, `${command}: ${r.stderr}`);
      const flag = await aeraki([command, '-f', invalid, '--max-file-size', 'lots']);
      assert.equal(flag.code, 2, `${command}: ${flag.stderr}`);
    }
  });

  it("--fail-on takes istioctl's spelling (Warning) as well", async () => {
    const warned = file('warned.yaml', DEMO.replace('  addresses: [10.96.0.20]\n', ''));
    const r = await aeraki(['analyze', '-f', warned, '-n', 'meta-thrift', '--fail-on', 'Warning']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /^Warning \[AER0004\] \(ServiceEntry meta-thrift\/thrift-sample-server /);
    const error = await aeraki(['analyze', '-f', warned, '-n', 'meta-thrift', '--fail-on', 'ERROR']);
    assert.equal(error.code, 0, error.stderr);
  });

  it('-n gives objects without a namespace its namespace, and refuses an object of another', async () => {
    const demo = file('demo.yaml', DEMO);
    const r = await aeraki(['render', '-f', demo, '-n', 'meta-thrift', '--namespace-scope', '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const items = (JSON.parse(r.stdout) as { items: { metadata: { namespace: string } }[] }).items;
    assert.ok(items.length > 0);
    assert.deepEqual([...new Set(items.map((i) => i.metadata.namespace))], ['meta-thrift']);
    const mixed = file('mixed.yaml', `${DEMO}---\n${OTHER}`);
    for (const command of ['render', 'validate', 'analyze']) {
      const m = await aeraki([command, '-f', mixed, '-n', 'meta-thrift']);
      assert.equal(m.code, 1, `${command}: ${m.stderr}`);
      assert.match(
        `${m.stdout}${m.stderr}`,
        /ServiceEntry other\/elsewhere: the namespace from the provided object "other" does not match the namespace "meta-thrift"/,
      );
    }
    const valid = await aeraki(['validate', '-f', demo, '-n', 'meta-thrift']);
    assert.equal(valid.code, 0, valid.stderr);
  });

  it('-f - reads standard input', async () => {
    const r = await aeraki(
      ['render', '-f', '-', '-n', 'meta-thrift', '--namespace-scope', '-o', 'json'],
      DEMO,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.ok((JSON.parse(r.stdout) as { items: unknown[] }).items.length > 0);
    const v = await aeraki(['validate', '-f', '-'], INVALID);
    assert.equal(v.code, 1);
    assert.match(v.stderr, /^error: ServiceEntry rpc\/broken: spec\.hosts/m);
  });

  it('a named pipe nobody writes to is an error at once, not a wait', async () => {
    const fifo = path.join(dir, 'pipe.yaml');
    execFileSync('mkfifo', [fifo]);
    const r = await aeraki(['render', '-f', fifo]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /^error: File .*pipe\.yaml: cannot read: a pipe that nobody wrote to/m);
  });

  it('a file that cannot be read is named once, without errno text', async () => {
    const missing = path.join(dir, 'missing.yaml');
    const r = await aeraki(['validate', '-f', missing]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, `error: File ${missing}: cannot read: no such file or directory\n`);
  });

  it('a control character in a file name is escaped: one line per issue', async () => {
    const r = await aeraki(['render', '-f', 'a\nerror: forged']);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'error: File a\\nerror: forged: cannot read: no such file or directory\n');
    const a = await aeraki(['analyze', '-f', 'b\rError [AER0000] forged']);
    assert.equal(a.stdout.split('\n').length, 2, a.stdout);
    assert.match(a.stdout, /b\\rError \[AER0000\] forged/);
  });

  it('a duration needs a unit, and takes the compound values MetaRouters take', async () => {
    const r = await aeraki(['proxy-status', '--timeout', '3']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /"3" has no unit: expected a duration with a unit \(ns, us, ms, s, m, h\)/);
    for (const [text, ms] of [
      ['1h30m', 5_400_000],
      ['1m30.5s', 90_500],
      ['250ms', 250],
      ['0', 0],
    ] as const) {
      assert.equal(parseDurationMs(text), ms, text);
      const metaRouter = parseDurationNanos(
        text,
        { kind: 'MetaRouter', namespace: 'ns', name: 'r' },
        'timeout',
      );
      assert.ok(metaRouter.ok && metaRouter.value === BigInt(ms) * 1_000_000n, text);
    }
    assert.throws(() => parseDurationMs('1.5'), /has no unit/);
    assert.throws(() => parseDurationMs('1500us'), /not a whole number of milliseconds/);
  });
});
