/**
 * Plugins own their kinds (DESIGN.md, Layout): no code outside src/plugins/ names a kind a plugin declares, so
 * adding a protocol is one folder, one line in plugins/registry.ts and its CRD. The store, the sources, the webhook
 * and the status controller learn the kinds from the plugin list.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createPluginKinds } from '../../src/plugins/registry.ts';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

describe('plugin-owned kinds', () => {
  it('the plugins declare kinds of their own (the check below has something to look for)', () => {
    const kinds = createPluginKinds().map((k) => k.kind);
    assert.ok(kinds.includes('RedisService'), `plugin kinds: ${kinds.join(', ')}`);
    assert.ok(kinds.includes('DubboAuthorizationPolicy'), `plugin kinds: ${kinds.join(', ')}`);
  });

  it('no file outside src/plugins/ names a kind a plugin declares', () => {
    const kinds = createPluginKinds().map((k) => k.kind);
    const word = new RegExp(`\\b(${kinds.join('|')})\\b`);
    const outside = sourceFiles(SRC).filter((f) => !relative(SRC, f).startsWith('plugins/'));
    assert.ok(outside.length > 100, `read ${outside.length} files under src/`);
    const naming = outside
      .map((f) => ({ file: relative(SRC, f), match: word.exec(readFileSync(f, 'utf8'))?.[0] }))
      .filter((x) => x.match !== undefined)
      .map((x) => `src/${x.file} names ${x.match}`);
    assert.deepEqual(naming, []);
  });
});
