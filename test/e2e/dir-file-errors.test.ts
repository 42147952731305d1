// `aeraki serve --config-source dir --output dir` with files that cannot be parsed (DESIGN habit 13): a file turned
// unparseable keeps its objects (same RDS snapshot, no EnvoyFilter file deleted or changed), an alias bomb leaves
// the process up and ready, both are reported (/debug/config, aeraki_config_file_errors) and recover when fixed;
// across a restart with the broken file present the process is ready and deletes nothing until it is fixed.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { startServe, type RunningServe } from '../../src/app/serve.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { dubboEntry, META_ROUTE, metaEntry, metaRouterRaw, type Raw } from '../support/lkg-objects.ts';
import { dirServeOptions } from './options.ts';
import { httpGet, waitFor } from './support.ts';

const root = mkdtempSync(path.join(tmpdir(), 'aeraki-file-errors-e2e-'));
const configDir = path.join(root, 'config');
const outputDir = path.join(root, 'out');
const routerFile = path.join(configDir, 'router.yaml');
const bombFile = path.join(configDir, 'bomb.yaml');
after(() => rmSync(root, { recursive: true, force: true }));

const yamlOf = (raws: readonly Raw[]) => raws.map((r) => stringify(r)).join('---\n');
const ROUTER = yamlOf([metaRouterRaw(true), dubboEntry]);
/** The router file with one bracket broken: line 3 opens a flow sequence that never closes. */
const BROKEN = `${ROUTER}---\napiVersion: v1\nkind: [ConfigMap\n`;
const BOMB = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
  .concat(
    ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'].map(
      (k, i) => `${k}: &${k} [${`*${'abcdefgh'[i]},`.repeat(8)}*${'abcdefgh'[i]}]`,
    ),
  )
  .join('\n');

/** Every file the output directory holds, by relative path, with its content. */
function outputFiles(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const ns of readdirSync(outputDir).sort()) {
    for (const f of readdirSync(path.join(outputDir, ns)).sort())
      out[`${ns}/${f}`] = readFileSync(path.join(outputDir, ns, f), 'utf8');
  }
  return out;
}

interface FilesDoc {
  partial: boolean;
  errors: { path: string; message: string; line?: number; column?: number; lastGood: boolean }[];
}

async function filesDoc(running: RunningServe): Promise<FilesDoc> {
  const body = (await httpGet(`http://${running.debugAddress}/debug/config`)).body;
  return (JSON.parse(body) as { files: FilesDoc }).files;
}

async function start(): Promise<RunningServe> {
  const running = await startServe(dirServeOptions(configDir, outputDir), { logger: silentLogger });
  await running.synced;
  await running.reconciler.runNow();
  return running;
}

const ready = async (running: RunningServe) =>
  (await httpGet(`http://${running.adminAddress}/readyz`)).status;
const metric = async (running: RunningServe) =>
  /aeraki_config_file_errors (\d+)/.exec((await httpGet(`http://${running.adminAddress}/metrics`)).body)?.[1];
const route = (running: RunningServe) => running.cache.snapshot().resources.get(META_ROUTE)?.json;

describe('aeraki serve (dir): files that cannot be parsed', () => {
  it('keeps what a broken file held, survives an alias bomb, recovers, and holds deletes across a restart', async () => {
    mkdirSync(configDir, { recursive: true });
    writeFileSync(path.join(configDir, 'entries.yaml'), yamlOf([metaEntry]));
    writeFileSync(routerFile, ROUTER);
    let running = await start();
    try {
      const written = outputFiles();
      assert.ok(
        Object.keys(written).some((f) => f.includes('dubbo')),
        Object.keys(written).join(', '),
      );
      const routed = route(running);
      assert.match(JSON.stringify(routed), /"v1"/, 'the MetaRouter route (subset v1) is served');
      const version = running.cache.snapshot().version;

      // 1. One broken bracket: the file's objects stay in effect, reported with line and column.
      writeFileSync(routerFile, BROKEN);
      await waitFor(async () => (await filesDoc(running)).errors.length === 1, 'the file error');
      assert.deepEqual((await filesDoc(running)).errors, [
        {
          path: routerFile,
          line: BROKEN.split('\n').length,
          column: 1,
          message: 'invalid YAML: unexpected end of the stream within a flow collection',
          lastGood: true,
        },
      ]);
      assert.equal((await filesDoc(running)).partial, false);
      await running.reconciler.runNow();
      assert.deepEqual(outputFiles(), written, 'no EnvoyFilter file deleted or changed');
      assert.equal(running.cache.snapshot().version, version, 'the RDS snapshot is unchanged');
      assert.equal(await metric(running), '1');

      // 2. An alias bomb: still up and ready, reported, nothing else changes.
      writeFileSync(bombFile, BOMB);
      await waitFor(async () => (await filesDoc(running)).errors.length === 2, 'the bomb reported');
      const bomb = (await filesDoc(running)).errors.find((e) => e.path === bombFile);
      assert.equal(
        bomb?.message,
        'YAML aliases add more than 100000 nodes when expanded (the limit of --max-yaml-alias-nodes)',
      );
      assert.equal(await ready(running), 200);
      await running.reconciler.runNow();
      assert.deepEqual(outputFiles(), written);
      assert.equal(await metric(running), '2');

      // 3. Fixed and removed: recovered, same output.
      writeFileSync(routerFile, ROUTER);
      rmSync(bombFile);
      await waitFor(async () => (await filesDoc(running)).errors.length === 0, 'recovery');
      await running.reconciler.runNow();
      assert.deepEqual(outputFiles(), written);
      assert.deepEqual(route(running), routed);
      assert.equal(await metric(running), '0');
    } finally {
      await running.stop();
    }

    // 4. A restart with the broken file present: ready, partial, nothing deleted.
    const written = outputFiles();
    writeFileSync(routerFile, BROKEN);
    running = await start();
    try {
      assert.equal(await ready(running), 200);
      const files = await filesDoc(running);
      assert.equal(files.partial, true);
      assert.deepEqual(
        files.errors.map((e) => [e.path, e.lastGood]),
        [[routerFile, false]],
      );
      await running.reconciler.runNow();
      assert.deepEqual(Object.keys(outputFiles()), Object.keys(written), 'nothing deleted');
      // The MetaRouter is unknown: its service gets the default route (no subset) meanwhile.
      assert.doesNotMatch(JSON.stringify(route(running)), /"v1"/);

      // 5. Fixed without the Dubbo entry: deletes resume (an object removed from a file that parses).
      writeFileSync(routerFile, yamlOf([metaRouterRaw(true)]));
      await waitFor(async () => !(await filesDoc(running)).partial, 'the file read well');
      await waitFor(async () => {
        await running.reconciler.runNow();
        return !Object.keys(outputFiles()).some((f) => f.includes('dubbo'));
      }, 'the Dubbo EnvoyFilter deleted');
      // The routes follow after their own debounce.
      await waitFor(() => JSON.stringify(route(running)).includes('"v1"'), 'the MetaRouter route again');
    } finally {
      await running.stop();
    }
  });
});
