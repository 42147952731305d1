// `aeraki routes`' client against the real RDS server: answers, names not served, delta, reconnects, formats.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import type { StatusObject } from '@grpc/grpc-js';
import type { ServiceEntry } from '../../src/model/objects.ts';
import { formatAnswer, watchRoutes, type RouteAnswer } from '../../src/tools/route-watcher.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { buildRouteConfigurations } from '../../src/xds-rds/routes.ts';
import { RdsServer } from '../../src/xds-rds/server.ts';
import { SnapshotCache } from '../../src/xds-rds/snapshot.ts';
import { serviceEntry, storeOf } from '../support/builders.ts';
import { cliArgs, start } from '../support/process.ts';

const service = (name: string, port: number): ServiceEntry =>
  serviceEntry('ns', name, {
    hosts: [`${name}.example`],
    ports: [{ number: port, name: 'tcp-metaprotocol-dubbo' }],
  });
const A = 'a.example_20880';
const B = 'b.example_20881';

/** Routes of the given services into the cache (what the route source does after a change). */
function publish(cache: SnapshotCache, services: ServiceEntry[]): void {
  cache.setRoutes(buildRouteConfigurations(storeOf(services)).routes);
}

async function rdsServer(cache: SnapshotCache, port = 0): Promise<{ server: RdsServer; port: number }> {
  const server = new RdsServer(
    { host: '127.0.0.1', port, logger: silentLogger, tls: { insecure: true } },
    cache,
  );
  return { server, port: await server.start() };
}

/** Everything a watcher reports, with a way to wait for the next of each. */
class Recorder {
  readonly answers: RouteAnswer[] = [];
  readonly notServed: string[][] = [];
  readonly disconnects: { status: StatusObject; retryInMs: number }[] = [];
  readonly noAnswers: number[] = [];
  private wake: (() => void) | undefined;

  readonly hooks = {
    onAnswer: (a: RouteAnswer) => this.push(() => this.answers.push(a)),
    onNotServed: (n: readonly string[]) => this.push(() => this.notServed.push([...n])),
    onDisconnect: (status: StatusObject, retryInMs: number) =>
      this.push(() => this.disconnects.push({ status, retryInMs })),
    onNoAnswer: (ms: number) => this.push(() => this.noAnswers.push(ms)),
  };

  private push(record: () => void): void {
    record();
    this.wake?.();
  }

  /** Resolves once `pred` holds (checked after every report); rejects after 10 s. */
  async until(pred: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (!pred()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, 100);
      });
    }
  }
}

const names = (a: RouteAnswer | undefined) => (a?.routes ?? []).map((r) => (r as { name: string }).name);

describe('route watcher against the RDS server', () => {
  const closers: (() => Promise<void> | void)[] = [];
  after(async () => {
    for (const c of closers.reverse()) await c();
  });

  for (const delta of [false, true]) {
    it(`${delta ? 'delta' : 'state of the world'}: prints what it holds, says once which name is not served`, async () => {
      const cache = new SnapshotCache();
      publish(cache, [service('a', 20880)]);
      const { server, port } = await rdsServer(cache);
      closers.push(() => server.stop());
      const rec = new Recorder();
      const w = watchRoutes({
        address: `127.0.0.1:${port}`,
        tls: 'insecure',
        names: [A, B],
        delta,
        ...rec.hooks,
      });
      closers.push(() => w.close());

      await rec.until(() => rec.answers.length === 1, 'the first answer');
      assert.deepEqual(names(rec.answers[0]), [A]);
      assert.deepEqual(rec.notServed, [[B]], 'the name the first answer lacks');

      publish(cache, [service('a', 20880), service('b', 20881)]);
      await rec.until(() => rec.answers.length === 2, 'the answer with both');
      assert.deepEqual(names(rec.answers[1]), [A, B]);
      assert.equal(rec.answers[1]?.version, cache.snapshot().version);

      publish(cache, [service('b', 20881)]);
      await rec.until(() => rec.answers.length === 3, 'the answer without a');
      assert.deepEqual(names(rec.answers[2]), [B]);
      assert.deepEqual(rec.notServed, [[B], [A]], 'reported again only after it was served in between');
      assert.equal(rec.disconnects.length, 0);
    });
  }

  it('reconnects with backoff when the server goes away, and resumes', async () => {
    const cache = new SnapshotCache();
    publish(cache, [service('a', 20880)]);
    const first = await rdsServer(cache);
    const rec = new Recorder();
    const w = watchRoutes({
      address: `127.0.0.1:${first.port}`,
      tls: 'insecure',
      names: [A],
      delta: true,
      backoff: { initialMs: 50, maxMs: 200, jitter: 0 },
      ...rec.hooks,
    });
    closers.push(() => w.close());
    await rec.until(() => rec.answers.length === 1, 'the first answer');
    await first.server.stop();
    await rec.until(() => rec.disconnects.length >= 1, 'the disconnect');
    assert.equal(rec.disconnects[0]?.retryInMs, 50);

    publish(cache, [service('b', 20881)]); // a removed while the watcher was away
    const second = await rdsServer(cache, first.port);
    closers.push(() => second.server.stop());
    await rec.until(() => rec.answers.length === 2, 'an answer after the reconnect');
    assert.deepEqual(names(rec.answers[1]), [], 'the delta stream resumed and learned a was removed');
    assert.deepEqual(rec.notServed, [[A]]);
  });

  it('says when no name is served at all (RDS then answers nothing)', async () => {
    const cache = new SnapshotCache();
    publish(cache, [service('a', 20880)]);
    const { server, port } = await rdsServer(cache);
    closers.push(() => server.stop());
    const rec = new Recorder();
    const w = watchRoutes({
      address: `127.0.0.1:${port}`,
      tls: 'insecure',
      names: ['nothing.example_1'],
      noAnswerMs: 50,
      ...rec.hooks,
    });
    closers.push(() => w.close());
    await rec.until(() => rec.noAnswers.length === 1, 'the no-answer notice');
    assert.deepEqual(rec.noAnswers, [50]);
    assert.equal(rec.answers.length, 0);
  });

  it('aeraki routes --once -o yaml prints the first answer, names what is not served, and exits 0', async () => {
    const cache = new SnapshotCache();
    publish(cache, [service('a', 20880)]);
    const { server, port } = await rdsServer(cache);
    closers.push(() => server.stop());
    const args = ['routes', `--rds-address=127.0.0.1:${port}`, '--insecure', '--once', '-o', 'yaml', A, B];
    const cli = start(process.execPath, cliArgs(args), 60_000);
    closers.push(() => cli.kill());
    assert.equal(await cli.exited, 0, cli.stderr);
    const doc = parseYaml(cli.stdout) as { version: string; routes: { name: string }[] };
    assert.equal(doc.version, cache.snapshot().version);
    assert.deepEqual(
      doc.routes.map((r) => r.name),
      [A],
    );
    assert.match(cli.stderr, new RegExp(`route ${B} is not served by 127\\.0\\.0\\.1:${port}`));
  });

  it('formats an answer as pretty JSON or as one YAML document', () => {
    const answer: RouteAnswer = { version: 'v1', routes: [{ name: A, virtualHosts: [] }] };
    const json = formatAnswer(answer, 'json');
    assert.deepEqual(JSON.parse(json), { version: 'v1', routes: [{ name: A, virtualHosts: [] }] });
    assert.ok(json.endsWith('}\n'));
    const yaml = formatAnswer(answer, 'yaml');
    assert.ok(yaml.startsWith('---\n'));
    assert.deepEqual(parseYaml(yaml), JSON.parse(json));
  });
});
