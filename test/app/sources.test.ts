// The config sources as a list (app/sources.ts): one ConfigSource per source a `--config-source` reads, built from
// one options object; readiness, sync and the directory's file problems are read through the list.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { ConfigSources } from '../../src/app/sources.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { createPluginKinds } from '../../src/plugins/registry.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { serveOptions } from '../e2e/options.ts';

const ROOT = 'istio-system';

function kubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:1' }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

function sourcesOf(configSource: 'mcp' | 'kube' | 'dir', configDir = '', kc?: KubeConfig): ConfigSources {
  const o = serveOptions({ configSource, configDir });
  const store = new ConfigStore({ rootNamespace: ROOT, kinds: createPluginKinds() });
  return new ConfigSources({
    source: o.source,
    mesh: o.mesh,
    podName: 'p-0',
    store,
    kc,
    logger: silentLogger,
  });
}

describe('config sources as a list', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('mcp reads the Kubernetes API and istiod, named in that order while neither synced', () => {
    const sources = sourcesOf('mcp', '', kubeConfig());
    assert.deepEqual(
      sources.list.map((s) => s.name),
      ['kubernetes', 'istiod (MCP)'],
    );
    assert.equal(sources.synced, false);
    assert.deepEqual(sources.pending(), ['kubernetes', 'istiod (MCP)']);
    assert.equal(sources.partial, false);
    assert.equal(sources.withProblems(), undefined);
    assert.equal(sources.streamStatus()?.().synced, false);
  });

  it('kube reads the Kubernetes API only, and needs it', () => {
    assert.deepEqual(
      sourcesOf('kube', '', kubeConfig()).list.map((s) => s.name),
      ['kubernetes'],
    );
    assert.throws(() => sourcesOf('kube'), /--config-source kube needs the Kubernetes API/);
    assert.throws(() => sourcesOf('mcp'), /--config-source mcp needs the Kubernetes API/);
  });

  it('dir syncs on start, and its file problems are reached through the list', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aeraki-sources-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'bad.yaml'), 'kind: [unclosed\n');
    const sources = sourcesOf('dir', dir);
    assert.deepEqual(
      sources.list.map((s) => s.name),
      ['directory'],
    );
    assert.deepEqual(sources.pending(), ['directory']);
    assert.equal(sources.streamStatus(), undefined);
    await sources.start();
    try {
      assert.equal(sources.synced, true);
      assert.deepEqual(sources.pending(), []);
      await sources.whenSynced();
      const files = sources.withProblems();
      assert.deepEqual(
        files?.problems().map((p) => p.path),
        [join(dir, 'bad.yaml')],
      );
      assert.equal(sources.partial, true, 'a file never read well: deletions held');
      assert.deepEqual(sources.unavailableKinds(), []);
    } finally {
      await sources.stop();
    }
  });
});
