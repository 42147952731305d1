// RDS under abuse: 2,000 well-behaved mTLS StreamRoutes streams (one connection each, as bench/rds.ts opens
// them) get one MetaRouter change per round; the push latency (until every stream has the new version) is
// measured in pairs of rounds, one without misbehaving clients and one with 200 of them active
// (bench/rds-abuse-clients.ts, another process: streams that never send, garbage requests, ping floods), in the
// same run. The figure is the median over pairs of the latency under abuse over the latency without (target: at
// most 1.5).
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
import { allWithin, closeStreams, openStreams, stats, waitUntil, world, type BenchStream } from './rds.ts';

const STREAMS = Number(process.env['RDS_ABUSE_STREAMS'] ?? 2000);
// RDS_ABUSE_MIX=never,garbage,pings changes the mix (to see which kind costs what).
const [NEVER_SEND, GARBAGE, PING_FLOOD] = (process.env['RDS_ABUSE_MIX'] ?? '70,70,60')
  .split(',')
  .map(Number) as [number, number, number];
const ROUNDS = 7;
const CLIENTS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'rds-abuse-clients.ts');

interface Abusers {
  command(c: 'pause' | 'resume'): void;
  stop(): Promise<Record<string, number>>;
  /** Ends the process at once (after a failure); nothing once it has exited. */
  kill(): void;
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
      command: (c) => child.stdin.write(`${c}\n`),
      kill: () => {
        if (child.exitCode === null) child.kill();
      },
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
  return stats((await allWithin(waits, `round ${round}: streams with the new version`)).map((t) => t - t0));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
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
  // Everything opened is closed again, whether the run completes or fails (the next benchmark runs in this
  // process).
  const streams: BenchStream[] = [];
  let abusers: Abusers | undefined;
  const quiet: { medianMs: number; maxMs: number }[] = [];
  const abused: { medianMs: number; maxMs: number }[] = [];
  let counts: Record<string, number>;
  try {
    // Opened 250 at a time: 2,000 TLS handshakes at once time out on a loaded machine (the client gives up).
    for (let opened = 0; opened < STREAMS; opened += 250) {
      let ready = 0;
      const batch = Math.min(250, STREAMS - opened);
      streams.push(...openStreams(port, batch, () => ready++));
      await waitUntil(
        () => ready === batch,
        () => `${opened + ready} of ${STREAMS} streams have their first response`,
      );
    }
    console.error(`# rds-abuse: ${STREAMS} streams open`);

    abusers = await startAbusers(port);
    console.error('# rds-abuse: misbehaving clients connected');
    // Pairs of rounds: quiet (clients paused: no streams, pings or garbage), then abused (resumed for a second
    // before the change is made, so the load is established). Rounds of each pair are seconds apart.
    for (let round = 0; round < ROUNDS; round++) {
      abusers.command('pause');
      await sleep(1000);
      quiet.push(await pushRound(streams, store, source, cache, 2 * round));
      abusers.command('resume');
      await sleep(1000);
      abused.push(await pushRound(streams, store, source, cache, 2 * round + 1));
    }
    counts = await abusers.stop();
  } finally {
    abusers?.kill();
    closeStreams(streams);
    await server.stop();
    source.stop();
    certs.remove();
  }

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
    maxLatencyRatio: +median(abused.map((a, i) => a.maxMs / quiet[i]!.maxMs)).toFixed(2),
    medianLatencyRatio: +median(abused.map((a, i) => a.medianMs / quiet[i]!.medianMs)).toFixed(2),
    abuserCounts: counts,
    serverRefused: Object.fromEntries(server.metrics.refused),
    serverInvalidRequests: server.metrics.invalidRequests,
  };
  console.log(JSON.stringify({ bench: 'rds-abuse', ...result }));
  return result;
}
