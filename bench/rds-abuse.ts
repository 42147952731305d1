// RDS under abuse: 2,000 well-behaved mTLS StreamRoutes streams (one connection each, as bench/rds.ts opens
// them) get one MetaRouter change per round; the push latency (until every stream has the new version) is
// measured without misbehaving clients, with 200 of them (bench/rds-abuse-clients.ts, another process: streams
// that never send, garbage requests, ping floods), and without them again, in the same run. The figure is the
// ratio of the latency under abuse to the latency without (target: at most 1.5).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '../src/util/logger.ts';
import { ConfigStore } from '../src/controller/store.ts';
import { RouteSource } from '../src/xds-rds/route-source.ts';
import { RdsServer } from '../src/xds-rds/server.ts';
import { SnapshotCache } from '../src/xds-rds/snapshot.ts';
import { testCa, writeCertDir } from '../test/fakes/test-ca.ts';
import { closeStreams, openStreams, stats, waitUntil, world, type BenchStream } from './rds.ts';

const STREAMS = 2000;
const NEVER_SEND = 70;
const GARBAGE = 70;
const PING_FLOOD = 60;
const ROUNDS = 5;
const CLIENTS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'rds-abuse-clients.ts');

interface Abusers {
  stop(): Promise<Record<string, number>>;
}

/** Starts the misbehaving clients' process; resolves once every one of them is connected. */
function startAbusers(port: number): Promise<Abusers> {
  const ca = testCa();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', CLIENTS, String(port), String(NEVER_SEND), String(GARBAGE), String(PING_FLOOD)],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, ABUSE_CA: ca.ca, ABUSE_CERT: ca.clientCert, ABUSE_KEY: ca.clientKey },
    },
  );
  const lines = createInterface({ input: child.stdout });
  const next = () =>
    new Promise<string>((resolve, reject) => {
      lines.once('line', resolve);
      child.once('exit', (code) => reject(new Error(`abusers exited with ${code}`)));
    });
  return next().then((first) => {
    if (first !== 'ready') throw new Error(`abusers: ${first}`);
    return {
      stop: async () => {
        const counts = next();
        child.stdin.write('stop\n');
        return JSON.parse(await counts) as Record<string, number>;
      },
    };
  });
}

async function pushRound(
  streams: BenchStream[],
  store: ConfigStore,
  source: RouteSource,
  cache: SnapshotCache,
  round: number,
): Promise<{ medianMs: number; maxMs: number }> {
  const oldVersion = cache.snapshot().version;
  const changed = world(`r${round}`).find((o) => o.kind === 'MetaRouter')!;
  const waits = streams.map((s) => s.waitFor((v) => v !== oldVersion));
  const t0 = performance.now();
  store.upsert(changed);
  source.rebuild();
  return stats((await Promise.all(waits)).map((t) => t - t0));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** Runs the abuse benchmark; prints and returns the figures. */
export async function benchRdsAbuse(): Promise<Record<string, unknown>> {
  const certs = writeCertDir();
  const store = new ConfigStore({ rootNamespace: 'istio-system' });
  for (const o of world('v1')) store.upsert(o);
  const cache = new SnapshotCache();
  const source = new RouteSource(store, cache, { logger: silentLogger });
  source.rebuild();
  const server = new RdsServer({ host: '127.0.0.1', port: 0, logger: silentLogger, tls: certs }, cache);
  const port = await server.start();
  let ready = 0;
  const streams = openStreams(port, STREAMS, () => ready++);
  await waitUntil(() => ready === STREAMS);

  let round = 0;
  const phase = async () => {
    const out: { medianMs: number; maxMs: number }[] = [];
    for (let i = 0; i < ROUNDS; i++) out.push(await pushRound(streams, store, source, cache, ++round));
    return out;
  };
  const before = await phase();
  const abusers = await startAbusers(port);
  const abused = await phase();
  const counts = await abusers.stop();
  const afterRounds = await phase();

  closeStreams(streams);
  await server.stop();
  source.stop();
  certs.remove();

  const quiet = [...before, ...afterRounds];
  const fig = (rs: { medianMs: number; maxMs: number }[]) => ({
    medianMs: median(rs.map((r) => r.medianMs)),
    maxMs: median(rs.map((r) => r.maxMs)),
  });
  const quietFig = fig(quiet);
  const abusedFig = fig(abused);
  const result = {
    streams: STREAMS,
    misbehaving: { neverSend: NEVER_SEND, garbage: GARBAGE, pingFlood: PING_FLOOD },
    rounds: ROUNDS,
    withoutAbuse: quietFig,
    withAbuse: abusedFig,
    maxLatencyRatio: +(abusedFig.maxMs / quietFig.maxMs).toFixed(2),
    medianLatencyRatio: +(abusedFig.medianMs / quietFig.medianMs).toFixed(2),
    abuserCounts: counts,
    serverRefused: Object.fromEntries(server.metrics.refused),
    serverInvalidRequests: server.metrics.invalidRequests,
  };
  console.log(JSON.stringify({ bench: 'rds-abuse', ...result }));
  return result;
}
