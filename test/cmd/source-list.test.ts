// The config sources as a list (src/app/source-list.ts): the `--config-source` row, the banner's source line and
// needsKube read its entries, so a new source is an entry there, not an edit of each of them.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { printServeBanner, type BannerFacts } from '../../cmd/banner.ts';
import { SOURCE_ROWS } from '../../cmd/serve-rows-source.ts';
import { needsKube, type ConfigSourceKind } from '../../src/app/options.ts';
import { outputOf } from '../../src/app/outputs.ts';
import { SOURCE_LIST, sourceKinds, sourceOf, type SourceDescriptor } from '../../src/app/source-list.ts';
import { serveOptions } from '../e2e/options.ts';

const FACTS: BannerFacts = {
  rdsAddress: '127.0.0.1:15010',
  webhookAddress: undefined,
  adminAddress: '127.0.0.1:8080',
  debugAddress: undefined,
  devCerts: undefined,
};

function firstBannerLine(configSource: ConfigSourceKind, configDir: string): string {
  let out = '';
  printServeBanner(serveOptions({ configSource, configDir }), FACTS, (t) => (out += t));
  return out.split('\n')[0] ?? '';
}

describe('config sources: one list', () => {
  it('the --config-source row offers exactly the kinds of the list, each with its help', () => {
    const row = SOURCE_ROWS.configSource;
    assert.deepEqual(
      sourceKinds(),
      SOURCE_LIST.map((d) => d.kind),
    );
    for (const kind of sourceKinds()) assert.equal(row.parse(kind), kind);
    assert.throws(() => row.parse('bogus'), {
      message: `expected ${sourceKinds().join(' | ')}, got "bogus"`,
    });
    assert.equal(
      row.description,
      `where Istio config comes from: ${SOURCE_LIST.map((d) => `${d.kind} (${d.help})`).join(' | ')}`,
    );
    assert.equal(row.default, sourceKinds()[0]);
  });

  it('the banner names the source as its entry says', () => {
    const dir = path.join(process.cwd(), 'some', 'config');
    const rel = (p: string) => path.relative(process.cwd(), p);
    for (const kind of sourceKinds()) {
      const named = sourceOf(kind).banner({ dir }, rel);
      assert.equal(firstBannerLine(kind, dir), `aeraki serve: config from ${named}`, kind);
    }
    assert.equal(firstBannerLine('dir', dir), `aeraki serve: config from ${path.join('some', 'config')}`);
    assert.equal(firstBannerLine('mcp', ''), 'aeraki serve: config from mcp');
  });

  it('the Kubernetes API is needed as the entry says, unless the output or registries need it anyway', () => {
    for (const d of SOURCE_LIST) {
      assert.equal(needsKube(d.kind, outputOf('dir')), d.needsKube, d.kind);
      assert.equal(needsKube(d.kind, outputOf('kube')), true, d.kind);
    }
    assert.deepEqual(
      SOURCE_LIST.filter((d) => !d.needsKube).map((d) => d.kind),
      ['dir'],
    );
  });

  it('a new entry reaches the row, the banner and needsKube with no edit to them', async () => {
    const list = SOURCE_LIST as unknown as SourceDescriptor[];
    const entry: SourceDescriptor = {
      kind: 'static',
      help: 'a list in the code',
      needsKube: false,
      banner: () => 'a static list',
    };
    list.push(entry);
    try {
      const kind = 'static' as ConfigSourceKind;
      assert.equal(firstBannerLine(kind, ''), 'aeraki serve: config from a static list');
      assert.equal(needsKube(kind, outputOf('dir')), false);
      // The row as a fresh start-up reads it (a module instance of its own).
      const url = new URL('../../cmd/serve-rows-source.ts?with-static', import.meta.url).href;
      const fresh = (await import(url)) as { SOURCE_ROWS: typeof SOURCE_ROWS };
      const row = fresh.SOURCE_ROWS.configSource;
      assert.equal(row.parse('static'), 'static');
      assert.match(row.description, /\| dir \(--config-dir\) \| static \(a list in the code\)$/);
    } finally {
      list.pop();
    }
    assert.deepEqual(sourceKinds(), ['mcp', 'kube', 'dir']);
  });
});
