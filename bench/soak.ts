// Soak: `aeraki serve` (in process, the real composition root) with 10,000 services from the fake istiod (MCP)
// and their MetaRouters from the fake kube-apiserver, writing EnvoyFilters to that API server and serving 1,000
// RDS streams, under 5 changes a second of mixed kinds for SOAK_MINUTES (default 10). Everything is measured from
// the outside: a change's time is when the bench hands it to a fake; its write is the EnvoyFilter request the
// API server answers for that service; its push is the RDS response its stream receives.
// Figures: resident memory at start, middle and end (after a collection), change-to-write and change-to-push
// p50/p99, API calls per change, event-loop delay p99, deletions nobody asked for, resync repairs.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startServe, type RunningServe } from '../src/app/serve.ts';
import type { ConfigObject } from '../src/model/objects.ts';
import { parseConfigObject } from '../src/model/parse.ts';
import { silentLogger } from '../src/util/logger.ts';
import { createLogger } from '../src/util/logging.ts';
import { serveOptions } from '../test/e2e/options.ts';
import { fakeKubeConfig } from '../test/fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../test/fakes/kube-apiserver/index.ts';
import type { KubeObject } from '../test/fakes/kube-apiserver/types.ts';
import { FakeIstiod } from '../test/fakes/istiod/server.ts';
import { ChangeLog } from './soak-changes.ts';
import { openStreams, type SoakStreams } from './soak-streams.ts';
import { syntheticObjects } from './synthetic.ts';

// SOAK_SERVICES (default 10,000) and SOAK_STREAMS (default 1,000) shrink the mesh for a quick trial; SOAK_LOG=1
// prints the controller's warnings; SOAK_ISTIOD_PUSH=kind makes the fake istiod re-send only the changed kind's
// type URLs (default all: every watched type URL on each change, as istiod does).
const SERVICES = Number(process.env['SOAK_SERVICES'] ?? '10000');
const STREAMS = Math.min(SERVICES, Number(process.env['SOAK_STREAMS'] ?? '1000'));
const CHANGES_PER_SECOND = 5;
const DEBOUNCE = { afterMs: 1000, maxMs: 10_000 };
const RDS_DEBOUNCE = { afterMs: 100, maxMs: 1000 };
const ISTIOD_PUSH = process.env['SOAK_ISTIOD_PUSH'] === 'kind' ? 'kind' : 'all';

const mb = (n: number) => Math.round((n / 2 ** 20) * 10) / 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function minutes(): number {
  const n = Number(process.env['SOAK_MINUTES'] ?? '10');
  if (!(n > 0)) throw new Error(`SOAK_MINUTES must be a number above 0, got ${process.env['SOAK_MINUTES']}`);
  return n;
}

/** Resident memory and V8 heap in use after a full collection (heap growth is retention; the rest, the allocator). */
function memoryMb(): { rss: number; heap: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rss: mb(m.rss), heap: mb(m.heapUsed) };
}

/** The synthetic mesh split by where it lives: Istio kinds on istiod, MetaRouters on the API server. */
function mesh(): { istio: ConfigObject[]; routers: KubeObject[] } {
  const istio: ConfigObject[] = [];
  const routers: KubeObject[] = [];
  for (const raw of syntheticObjects(SERVICES)) {
    if (raw['kind'] === 'MetaRouter') {
      routers.push(raw as unknown as KubeObject);
      continue;
    }
    const r = parseConfigObject(raw);
    if (r?.ok) istio.push(r.value);
  }
  return { istio, routers };
}

const pick = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;

interface RunFigure {
  readonly ms: number;
  readonly writes: number;
  /** The run listed what exists (a periodic resync, or after a failed write) instead of reading the cache. */
  readonly listed: boolean;
  readonly failures: number;
}

/** Count, p50, p99 and max of the runs' durations, and of their writes. */
function runStats(runs: readonly RunFigure[]): Record<string, number> {
  const ms = runs.map((r) => r.ms).sort((a, b) => a - b);
  const writes = runs.map((r) => r.writes).sort((a, b) => a - b);
  return {
    count: runs.length,
    p50Ms: pick(ms, 50),
    p99Ms: pick(ms, 99),
    maxMs: ms.at(-1) ?? NaN,
    writesP50: pick(writes, 50),
    writesMax: writes.at(-1) ?? NaN,
  };
}

/** p50 and p99 of a histogram in ms, as the upper bound of the bucket that holds each (Prometheus's view). */
async function histogramPercentiles(h: {
  get(): Promise<{ values: readonly { metricName?: string; labels: object; value: number }[] }>;
}): Promise<Record<string, number>> {
  const { values } = await h.get();
  const buckets = values
    .filter((v) => v.metricName?.endsWith('_bucket'))
    .map((v) => {
      const le = (v.labels as { le?: string | number }).le;
      return { le: le === '+Inf' ? Infinity : Number(le), n: v.value };
    });
  const count = buckets.find((b) => b.le === Infinity)?.n ?? 0;
  const at = (p: number) => (buckets.find((b) => b.n >= (count * p) / 100)?.le ?? NaN) * 1000;
  return { count, p50AtMostMs: at(50), p99AtMostMs: at(99) };
}

interface Soak {
  readonly api: FakeKubeApiServer;
  readonly istiod: FakeIstiod;
  readonly running: RunningServe;
  readonly log: ChangeLog;
}

async function start(): Promise<Soak> {
  const { istio, routers } = mesh();
  const api = await startFakeKubeApiServer({ eventWindow: 100_000 });
  api.seed(routers);
  const istiod = await FakeIstiod.start({ serve: 'v1', pushScope: ISTIOD_PUSH });
  istiod.set(istio as Parameters<FakeIstiod['set']>[0]);
  const running = await startServe(
    serveOptions({
      istiodAddress: istiod.address,
      rdsInsecure: true,
      leaderElect: false,
      namespaceBootstrap: false,
      debounceAfterMs: DEBOUNCE.afterMs,
      debounceMaxMs: DEBOUNCE.maxMs,
      rdsDebounceAfterMs: RDS_DEBOUNCE.afterMs,
      rdsDebounceMaxMs: RDS_DEBOUNCE.maxMs,
      resyncMs: 60_000,
      // The first sync writes 30,000 EnvoyFilters; the soak measures what follows it.
      kubeApiQps: 2000,
      kubeApiBurst: 500,
    }),
    {
      logger: process.env['SOAK_LOG']
        ? createLogger({ level: 'warn', format: 'text', component: 'soak' })
        : silentLogger,
      kubeConfig: fakeKubeConfig(api),
    },
  );
  const log = new ChangeLog({ api, istiod, istio, routers, watched: STREAMS });
  return { api, istiod, running, log };
}

/** Waits until the first sync wrote every filter and the writes stopped for a few seconds. */
async function firstSync(api: FakeKubeApiServer, running: RunningServe): Promise<number> {
  await running.synced;
  console.log('soak: config synced; first sync of the EnvoyFilters');
  let last = -1;
  for (let i = 1; ; i++) {
    await sleep(3000);
    const n = api.list('envoyfilters.networking.istio.io').length;
    if (n === last && n > 0) return n;
    if (i % 10 === 0) console.log(`soak: ${n} EnvoyFilters written`);
    last = n;
  }
}

export async function benchSoak(): Promise<Record<string, unknown>> {
  const t0 = Date.now();
  const { api, istiod, running, log } = await start();
  let streams: SoakStreams | undefined;
  try {
    const filters = await firstSync(api, running);
    streams = await openStreams(running.rdsPort, STREAMS, (route, at) => log.pushed(route, at));
    console.log(
      `soak: synced ${filters} EnvoyFilters and ${STREAMS} streams in ${Math.round((Date.now() - t0) / 1000)} s`,
    );
    const calls = { n: 0, byVerb: {} as Record<string, number> };
    const off = api.onRequest((r) => {
      calls.n++;
      const verb = r.verb ?? r.method;
      calls.byVerb[verb] = (calls.byVerb[verb] ?? 0) + 1;
      log.observed(r);
      api.clearRequests(); // counted here; the log would grow for hours
    });
    const offStore = running.store.subscribe((e) => {
      events[e.kind] = (events[e.kind] ?? 0) + 1;
      if (e.at !== undefined) log.arrived(e.kind, e.namespace, e.name, e.at);
    });
    const runs: RunFigure[] = [];
    const events: Record<string, number> = {};
    const offRuns = running.reconciler.onRun((r) => {
      if (r.skipped !== undefined) return;
      runs.push({
        ms: r.durationMs ?? 0,
        writes: r.created + r.updated + r.deleted,
        listed: r.listed === true,
        failures: r.failures.length,
      });
      if (process.env['SOAK_RUNS']) console.log(`soak: run ${JSON.stringify(runs.at(-1))}`);
    });
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const first = memoryMb();
    const memory = { startMb: first.rss, middleMb: 0, endMb: 0 };
    const heap = { startMb: first.heap, middleMb: 0, endMb: 0 };
    const durationMs = minutes() * 60_000;
    const began = Date.now();
    let middleTaken = false;
    for (let k = 0; Date.now() - began < durationMs; k++) {
      log.change(k);
      const due = began + ((k + 1) * 1000) / CHANGES_PER_SECOND;
      await sleep(Math.max(0, due - Date.now()));
      if (!middleTaken && Date.now() - began >= durationMs / 2) {
        ({ rss: memory.middleMb, heap: heap.middleMb } = memoryMb());
        middleTaken = true;
      }
    }
    await sleep(DEBOUNCE.maxMs + 2000); // the last changes land
    delay.disable();
    ({ rss: memory.endMb, heap: heap.endMb } = memoryMb());
    off();
    offStore();
    offRuns();
    const repairs = (await running.metrics.resyncRepairs.get()).values[0]?.value ?? 0;
    const summary = log.summary();
    const figures = {
      minutes: minutes(),
      services: SERVICES,
      streams: STREAMS,
      istiodPush: ISTIOD_PUSH,
      changes: summary.changes,
      changesByKind: summary.byKind,
      memory: { ...memory, endOverMiddle: Math.round((memory.endMb / memory.middleMb) * 1000) / 1000 },
      heap: { ...heap, endOverMiddle: Math.round((heap.endMb / heap.middleMb) * 1000) / 1000 },
      changeToWriteMs: summary.write,
      changeToPushMs: summary.push,
      // Where a change's time goes: to the controller's store (istiod or the API server, then decoding), and the
      // controller's own figure from that event to the write (aeraki_config_to_write_seconds, bucket bounds).
      changeToStoreMs: summary.arrival,
      storeToWriteMs: await histogramPercentiles(running.metrics.configToWrite),
      storeEvents: events,
      reconcileRuns: runStats(runs.filter((r) => !r.listed)),
      listingRuns: runStats(runs.filter((r) => r.listed)),
      writeFailures: runs.reduce((n, r) => n + r.failures, 0),
      apiCalls: calls.n,
      apiCallsByVerb: calls.byVerb,
      apiCallsPerChange: Math.round((calls.n / summary.changes) * 100) / 100,
      eventLoopDelayP99Ms: Math.round(delay.percentile(99) / 1e4) / 100,
      eventLoopDelayMaxMs: Math.round(delay.max / 1e4) / 100,
      unaskedDeletions: summary.unaskedDeletions,
      resyncRepairs: repairs,
      streamErrors: streams.errors(),
      targets: {
        endOverMiddle: 1.1,
        p99Ms: DEBOUNCE.maxMs + 500,
        apiCallsPerChange: 3,
        unaskedDeletions: 0,
      },
    };
    console.log(JSON.stringify(figures, null, 2));
    return figures;
  } finally {
    streams?.close();
    await running.stop();
    await istiod.close();
    await api.close();
  }
}

// Standalone: SOAK_MINUTES=2 node --import tsx --expose-gc bench/soak.ts
if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  await benchSoak();
  process.exit(0);
}
