// `aeraki validate -f ...` from the sources: render's error:/warning: lines on stderr, nothing on stdout, exit 1
// on errors, 0 otherwise, and with --strict warnings fail too.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { cliArgs, run } from '../support/process.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'aeraki-validate-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}

const entry = (name: string, port: string, addresses = "['240.240.0.1']") => `
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {namespace: rpc, name: ${name}}
spec:
  hosts: [${name}.rpc.svc.cluster.local]
  addresses: ${addresses}
  ports: [{number: 20880, name: ${port}, protocol: TCP}]
`;

const validate = (...args: string[]) => run(process.execPath, cliArgs(['validate', ...args]), 60_000);

describe('aeraki validate', { concurrency: 4 }, () => {
  const valid = file('valid.yaml', entry('echo', 'tcp-metaprotocol-dubbo'));
  const warned = file('warned.yaml', entry('cache', 'tcp-mongo'));
  const broken = file(
    'broken.yaml',
    `${entry('legacy', 'tcp-metaprotocol-nocodec')}---
apiVersion: metaprotocol.aeraki.io/v1alpha1
kind: MetaRouter
metadata: {namespace: rpc, name: limits}
spec:
  hosts: [echo.rpc.svc.cluster.local]
  localRateLimit: {tokenBucket: {maxTokens: 5, tokensPerFill: 5}}
`,
  );

  it('valid input: exit 0, no output', async () => {
    const r = await validate('-f', valid);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, '');
  });

  it('warnings alone: exit 0 with warning: lines; --strict: exit 1', async () => {
    const r = await validate('-f', warned);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^warning: ServiceEntry rpc\/cache: spec\.ports\[0\]\.name: /m);
    assert.doesNotMatch(r.stderr, /^error:/m);
    const strict = await validate('-f', warned, '--strict');
    assert.equal(strict.code, 1);
    assert.equal(strict.stderr, r.stderr);
  });

  it('errors: exit 1, one error: line per problem in render format', async () => {
    const r = await validate('-f', broken, '-f', valid);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    const lines = r.stderr.trimEnd().split('\n');
    assert.ok(
      lines.every((l) => /^(error|warning): /.test(l)),
      r.stderr,
    );
    assert.ok(
      lines.includes(
        'error: MetaRouter rpc/limits: spec.localRateLimit.tokenBucket.fillInterval: required field is missing (a token bucket needs maxTokens, tokensPerFill and fillInterval)',
      ),
      r.stderr,
    );
    assert.ok(
      lines.some((l) => l.startsWith('error: ServiceEntry rpc/legacy: ')),
      r.stderr,
    );
  });

  it('a missing file is an error of the file; no -f is a usage error', async () => {
    const missing = path.join(dir, 'nope.yaml');
    const r = await validate('-f', missing);
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`^error: File ${missing}: cannot read: `, 'm'));
    const none = await validate();
    assert.equal(none.code, 2);
    assert.match(none.stderr, /^error: at least one -f <file-or-dir> is required/m);
  });

  it('--root-namespace and --namespace-scope are accepted as render takes them', async () => {
    const r = await validate('-f', valid, '--root-namespace', 'mesh-root', '--namespace-scope');
    assert.equal(r.code, 0, r.stderr);
    const bad = await validate('-f', valid, '--root-namespace', 'Not_A_Namespace');
    assert.equal(bad.code, 2);
  });
});
