// `aeraki render --waypoint-envoyfilters` (cmd/render-config.ts, src/app/render.ts): the flag and
// `--metaprotocol-images` as render reads them, and the CLI on a waypoint case (test/fixtures/waypoint) with and
// without the flag.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { Command } from 'commander';
import { RENDER_ROWS, renderConfig } from '../../cmd/render-config.ts';
import { addOptions } from '../../cmd/rows.ts';
import { render } from '../../src/app/render.ts';
import { DEFAULT_META_PROTOCOL_IMAGES } from '../../src/model/proxy-images.ts';
import { formatIssue } from '../../src/model/result.ts';
import { repoRoot } from '../app/fixture-cases.ts';
import { cliArgs } from '../support/process.ts';

const casesDir = path.join(repoRoot, 'test/fixtures/waypoint');
const dubboCase = path.join(casesDir, '01-dubbo-service-namespace-binding');
const knownImageCase = path.join(casesDir, '05-metaprotocol-known-image/input.yaml');

function configOf(argv: string[]) {
  const cmd = addOptions(new Command('render').exitOverride(), RENDER_ROWS);
  cmd.parse(argv, { from: 'user' });
  return renderConfig(cmd, {});
}

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      cliArgs(args),
      { cwd: repoRoot, env: process.env, timeout: 60_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

interface Named {
  readonly metadata: { readonly name: string };
}

const isWaypointFilter = (o: Named) => o.metadata.name.startsWith('aeraki-waypoint-');

describe('render --waypoint-envoyfilters and --metaprotocol-images (cmd/render-config.ts)', () => {
  it('off by default; the images given go after the known ones', () => {
    const plain = configOf(['-f', 'a']);
    assert.equal(plain.waypointFilters, false);
    assert.deepEqual(plain.metaProtocolImages, DEFAULT_META_PROTOCOL_IMAGES);
    const c = configOf([
      '-f',
      'a',
      '--waypoint-envoyfilters',
      '--metaprotocol-images',
      'registry.example/mp:1, registry.example/mp-debug',
    ]);
    assert.equal(c.waypointFilters, true);
    assert.deepEqual(c.metaProtocolImages, [
      ...DEFAULT_META_PROTOCOL_IMAGES,
      'registry.example/mp:1',
      'registry.example/mp-debug',
    ]);
  });

  describe('a waypoint image named only by the flag', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'render-waypoint-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const input = path.join(dir, 'input.yaml');
    const text = readFileSync(knownImageCase, 'utf8');
    assert.match(text, /ghcr\.io\/aeraki-mesh\/meta-protocol-proxy:1\.4\.2/);
    writeFileSync(
      input,
      text.replace('ghcr.io/aeraki-mesh/meta-protocol-proxy:1.4.2', 'registry.example/mp:2'),
    );
    const waypointFilters = (argv: string[]) => {
      const out = render(configOf(['-f', input, '-o', 'json', '--waypoint-envoyfilters', ...argv]));
      const items = (JSON.parse(out.stdout) as { items: Named[] }).items.filter(isWaypointFilter);
      return { names: items.map((o) => o.metadata.name), issues: out.issues.map(formatIssue) };
    };

    it('without it: no waypoint filter for the MetaProtocol port, and a warning naming service and waypoint', () => {
      const r = waypointFilters([]);
      assert.deepEqual(r.names, []);
      assert.ok(
        r.issues.some((i) =>
          /^Service rpc\/greeter: .*waypoint rpc\/waypoint.*registry\.example\/mp:2/.test(i),
        ),
        r.issues.join('\n'),
      );
    });

    it('with it: the MetaProtocol waypoint filter, as for an image known by default', () => {
      const r = waypointFilters(['--metaprotocol-images', 'registry.example/mp']);
      assert.equal(r.names.length, 1, r.names.join(', '));
      // What case 05 (the image known by default) reports: its MetaRouter's routes do not apply on the waypoint.
      const expected = readFileSync(knownImageCase.replace('input.yaml', 'expected-warnings.txt'), 'utf8');
      assert.deepEqual(
        r.issues,
        expected.split('\n').filter((l) => l !== ''),
      );
    });
  });
});

describe('aeraki render --waypoint-envoyfilters (CLI)', () => {
  const expected = JSON.parse(readFileSync(path.join(dubboCase, 'expected-envoyfilters.json'), 'utf8')) as {
    items: Named[];
  };
  const input = path.join(dubboCase, 'input.yaml');

  it('prints the sidecar and waypoint EnvoyFilters of a case whose Namespaces and Gateways are among the files', async () => {
    const r = await cli(['render', '--waypoint-envoyfilters', '-o', 'json', '-f', input]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), expected);
    assert.ok(expected.items.some(isWaypointFilter));
  });

  it('without the flag: the sidecar filters alone, nothing said of the Namespaces and Gateways', async () => {
    const r = await cli(['render', '-o', 'json', '-f', input]);
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as { items: Named[] };
    assert.deepEqual(
      doc.items,
      expected.items.filter((o) => !isWaypointFilter(o)),
    );
    assert.doesNotMatch(r.stderr, /Namespace|Gateway|waypoint/);
  });
});
