// `aeraki serve --config-source dir --output dir` restarted with a broken file that holds a ServiceEntry and its
// MetaRouter: the state file beside the output brings back the file's last good read, so a proxy connecting after
// the restart gets the same route as before it, and the log and /debug/config name the file. Without the state
// file, the EnvoyFilter kept for that service names a route nobody serves: /readyz (still ready) says so, as do
// /debug/routes and aeraki_unserved_routes.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { startServe, type RunningServe } from '../../src/app/serve.ts';
import { RdsTestClient, sotwRequest } from '../fakes/rds-client.ts';
import { META_ROUTE, metaEntry, metaRouterRaw, type Raw } from '../support/lkg-objects.ts';
import { recordingLogger } from '../support/recording-logger.ts';
import { dirServeOptions } from './options.ts';
import { httpGet } from './support.ts';

const root = mkdtempSync(path.join(tmpdir(), 'aeraki-dir-restart-e2e-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** One run's directories: the config, the output and the state file beside it (the default). */
function dirsOf(name: string) {
  const configDir = path.join(root, name, 'config');
  const outputDir = path.join(root, name, 'out');
  mkdirSync(configDir, { recursive: true });
  return {
    configDir,
    outputDir,
    routerFile: path.join(configDir, 'router.yaml'),
    stateFile: `${outputDir}.aeraki-dir-state`,
  };
}
type Dirs = ReturnType<typeof dirsOf>;

const yamlOf = (raws: readonly Raw[]) => raws.map((r) => stringify(r)).join('---\n');
const GOOD = yamlOf([metaEntry, metaRouterRaw(true)]);
/** The same file with a last document whose flow sequence never closes: invalid YAML. */
const BROKEN = `${GOOD}---\nkind: [ServiceEntry\n`;

async function start(dirs: Dirs, logger = recordingLogger()): Promise<RunningServe> {
  const running = await startServe(
    dirServeOptions(dirs.configDir, dirs.outputDir, {
      // Where `aeraki serve` puts it by default with --output dir (cmd/serve-rows-source.ts dirStateFileOf).
      dirStateFile: dirs.stateFile,
    }),
    { logger },
  );
  await running.synced;
  await running.reconciler.runNow();
  return running;
}

/** The route a proxy connecting now receives for META_ROUTE (its JSON), or undefined when none comes. */
async function routeOnNewStream(running: RunningServe): Promise<unknown> {
  const client = new RdsTestClient(running.rdsPort, 'insecure', '127.0.0.1');
  try {
    const stream = client.sotw();
    stream.send(sotwRequest([META_ROUTE]));
    const resp = await stream.next(10_000);
    stream.close();
    return resp.resources[0]?.json;
  } finally {
    client.close();
  }
}

const get = async (running: RunningServe, where: 'admin' | 'debug', p: string) =>
  (await httpGet(`http://${where === 'admin' ? running.adminAddress : running.debugAddress}${p}`)).body;

/** Serves the good file once (the route a proxy gets then), stops, and breaks the file. */
async function servedThenBroken(dirs: Dirs): Promise<unknown> {
  writeFileSync(dirs.routerFile, GOOD);
  const running = await start(dirs);
  try {
    const before = await routeOnNewStream(running);
    assert.match(JSON.stringify(before), /"v1"/, 'the MetaRouter route (subset v1) is served');
    return before;
  } finally {
    await running.stop();
    writeFileSync(dirs.routerFile, BROKEN);
  }
}

describe('aeraki serve (dir): a restart never serves less than before it', () => {
  it('serves the last good read of a file broken across a restart, from the state file', async () => {
    const dirs = dirsOf('state');
    const { routerFile } = dirs;
    const before = await servedThenBroken(dirs);
    const log = recordingLogger();
    const running = await start(dirs, log);
    try {
      assert.deepEqual(await routeOnNewStream(running), before, 'the same route after the restart');
      const warning = log.records.find((r) => r.fields['file'] === routerFile);
      assert.match(
        warning?.message ?? '',
        /last good read of before the restart \(from the state file\) is in effect/,
      );
      assert.equal(warning?.fields['stateFile'], dirs.stateFile);
      const files = (JSON.parse(await get(running, 'debug', '/debug/config')) as { files: unknown }).files;
      assert.deepEqual(files, {
        partial: false,
        errors: [
          {
            path: routerFile,
            line: BROKEN.split('\n').length,
            column: 1,
            message: 'invalid YAML: unexpected end of the stream within a flow collection',
            lastGood: true,
            restored: true,
          },
        ],
      });
      assert.doesNotMatch(await get(running, 'admin', '/readyz'), /not served/);
      assert.match(await get(running, 'admin', '/metrics'), /^aeraki_unserved_routes 0$/m);
    } finally {
      await running.stop();
    }
  });

  it('without a state file, says that a kept EnvoyFilter names a route nobody serves (ready)', async () => {
    const dirs = dirsOf('no-state');
    await servedThenBroken(dirs);
    rmSync(dirs.stateFile, { force: true });
    const running = await start(dirs);
    try {
      const ready = await httpGet(`http://${running.adminAddress}/readyz`);
      assert.equal(ready.status, 200);
      const filter = `istio-system/aeraki-outbound-${META_ROUTE.replace(/_20880$/, '')}-240.240.0.1-20880`;
      const detail = `EnvoyFilter ${filter} names RDS route ${META_ROUTE}, which is not served: a proxy (re)connecting gets no routes for it`;
      assert.ok(ready.body.includes(detail), ready.body);
      const routes = JSON.parse(await get(running, 'debug', '/debug/routes')) as { unservedRoutes: unknown };
      assert.deepEqual(routes.unservedRoutes, [{ route: META_ROUTE, envoyFilter: filter }]);
      assert.match(await get(running, 'admin', '/metrics'), /^aeraki_unserved_routes 1$/m);
    } finally {
      await running.stop();
    }
  });
});
