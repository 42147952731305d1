// `aeraki serve --config-source dir --output dir` restarted with a broken file that holds a ServiceEntry and its
// MetaRouter: the state file beside the output brings back the file's last good read, so a proxy connecting after
// the restart gets the same route as before it, and the log and /debug/config name the file. Without the state
// file, the EnvoyFilter kept for that service names a route nobody serves: /readyz (still ready) says so, as do
// /debug/routes and aeraki_unserved_routes.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { startServe, type RunningServe } from '../../src/app/serve.ts';
import { RdsTestClient, sotwRequest } from '../fakes/rds-client.ts';
import { META_ROUTE, metaEntry, metaRouterRaw, type Raw } from '../support/lkg-objects.ts';
import { recordingLogger } from '../support/recording-logger.ts';
import { serveOptions } from './options.ts';
import { httpGet } from './support.ts';

const root = mkdtempSync(path.join(tmpdir(), 'aeraki-dir-restart-e2e-'));
const configDir = path.join(root, 'config');
const outputDir = path.join(root, 'out');
const routerFile = path.join(configDir, 'router.yaml');
const stateFile = `${outputDir}.aeraki-dir-state`;
after(() => rmSync(root, { recursive: true, force: true }));

const yamlOf = (raws: readonly Raw[]) => raws.map((r) => stringify(r)).join('---\n');
const GOOD = yamlOf([metaEntry, metaRouterRaw(true)]);
/** The same file with a last document whose flow sequence never closes: invalid YAML. */
const BROKEN = `${GOOD}---\nkind: [ServiceEntry\n`;

async function start(logger = recordingLogger()): Promise<RunningServe> {
  const running = await startServe(
    serveOptions({
      configSource: 'dir',
      configDir,
      output: 'dir',
      outputDir,
      rdsInsecure: true,
      leaderElect: false,
      namespaceBootstrap: false,
      debugEndpoints: true,
      watchDebounceMs: 20,
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

describe('aeraki serve (dir): a restart never serves less than before it', () => {
  it('serves a broken file last good read after a restart, and reports a kept EnvoyFilter with no route', async () => {
    mkdirSync(configDir, { recursive: true });
    writeFileSync(routerFile, GOOD);
    let running = await start();
    let before: unknown;
    try {
      before = await routeOnNewStream(running);
      assert.match(JSON.stringify(before), /"v1"/, 'the MetaRouter route (subset v1) is served');
    } finally {
      await running.stop();
    }
    assert.ok(existsSync(stateFile), 'the state file is written beside the output');

    // Restart with the file broken (invalid YAML): the same route, from the state file.
    writeFileSync(routerFile, BROKEN);
    const log = recordingLogger();
    running = await start(log);
    try {
      assert.deepEqual(await routeOnNewStream(running), before, 'the same route after the restart');
      const warning = log.records.find((r) => r.fields['file'] === routerFile);
      assert.match(
        warning?.message ?? '',
        /last good read of before the restart \(from the state file\) is in effect/,
      );
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
      const readyz = JSON.parse(await get(running, 'admin', '/readyz')) as unknown;
      assert.doesNotMatch(JSON.stringify(readyz), /not served/);
    } finally {
      await running.stop();
    }

    // Without the state file: the kept EnvoyFilter names a route nobody serves; ready, and said so.
    rmSync(stateFile);
    running = await start();
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
