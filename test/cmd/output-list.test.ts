// The EnvoyFilter outputs as a list (src/app/outputs.ts): the `--output` row, the banner's output line, needsKube
// and serve's flag checks and defaults (cmd/serve-config.ts) read the descriptors, so a new output is its kind, its
// descriptor and its own files, not an edit of each of them.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Command } from 'commander';
import { printServeBanner, type BannerFacts } from '../../cmd/banner.ts';
import { addOptions, ConfigError } from '../../cmd/rows.ts';
import { SERVE_ROWS, serveConfig } from '../../cmd/serve-config.ts';
import { OUTPUT_ROWS } from '../../cmd/serve-rows-output.ts';
import { needsKube, type OutputKind } from '../../src/app/options.ts';
import { OUTPUTS, outputOf, outputsWith } from '../../src/app/outputs.ts';
import { serveOptions } from '../e2e/options.ts';

const FACTS: BannerFacts = {
  rdsAddress: '127.0.0.1:15010',
  webhookAddress: undefined,
  adminAddress: '127.0.0.1:8080',
  debugAddress: undefined,
  devCerts: undefined,
};

function outputLine(output: OutputKind, outputDir: string): string {
  let out = '';
  printServeBanner(serveOptions({ output, outputDir }), FACTS, (t) => (out += t));
  return out.split('\n')[1] ?? '';
}

function configOf(argv: string[]) {
  const cmd = addOptions(new Command('serve').exitOverride(), SERVE_ROWS);
  cmd.configureOutput({ writeErr: () => {} });
  cmd.parse(argv, { from: 'user' });
  return serveConfig(cmd, { KUBERNETES_SERVICE_HOST: '10.96.0.1' }, '1.2.3');
}

const EXAMPLES = path.resolve(import.meta.dirname, '../../examples');
const DIR = [
  '--output',
  'dir',
  '--output-dir',
  '/tmp/out',
  '--config-source',
  'dir',
  '--config-dir',
  EXAMPLES,
];

describe('outputs: one list', () => {
  it('the --output row offers exactly the kinds of the list, each with its choice', () => {
    const row = OUTPUT_ROWS.output;
    const kinds = OUTPUTS.map((d) => d.kind);
    assert.deepEqual(kinds, ['kube', 'dir']);
    for (const kind of kinds) assert.equal(row.parse(kind), kind);
    assert.throws(() => row.parse('stdout'), { message: `expected ${kinds.join(' | ')}, got "stdout"` });
    assert.equal(
      row.description,
      `where EnvoyFilters go: ${OUTPUTS.map((d) => `${d.kind} (${d.choice})`).join(' | ')}`,
    );
    assert.equal(row.default, kinds[0]);
  });

  it('the banner says where EnvoyFilters go as the descriptor says', () => {
    const dir = path.join(process.cwd(), 'some', 'out');
    const rel = (p: string) => path.relative(process.cwd(), p);
    for (const d of OUTPUTS) {
      assert.equal(outputLine(d.kind, dir), `  EnvoyFilters -> ${d.banner({ dir }, rel)}`, d.kind);
    }
    assert.equal(outputLine('dir', dir), `  EnvoyFilters -> ${path.join('some', 'out')}/`);
    assert.equal(outputLine('kube', ''), '  EnvoyFilters -> the Kubernetes API');
  });

  it('the Kubernetes API is needed when the output says so', () => {
    for (const d of OUTPUTS) assert.equal(needsKube('dir', d), d.needsKube, d.kind);
  });

  it("serve's leader, bootstrap and VIP defaults follow the descriptor", () => {
    const dir = configOf(DIR);
    assert.equal(outputOf('dir').electsLeader, false);
    assert.equal(dir.leader.elect, false);
    assert.equal(dir.bootstrap.enabled, false);
    assert.equal(dir.vip.allocate, false);
    const kube = configOf(['--output', 'kube']);
    assert.equal(kube.leader.elect, true);
    assert.equal(kube.vip.allocate, true);
  });

  it('a flag the output cannot honour is refused, naming the outputs that can', () => {
    assert.equal(outputsWith('electsLeader'), 'kube');
    assert.equal(outputsWith('clusterWriters'), 'kube');
    assert.throws(
      () => configOf([...DIR, '--leader-elect']),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.message.includes('--leader-elect needs --output kube (the Lease lives in the Kubernetes API)'),
    );
    assert.throws(
      () => configOf([...DIR, '--allocate-vips']),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.message.includes(
          '--allocate-vips needs --output kube (the VIPs are written into ServiceEntries)',
        ),
    );
  });
});
