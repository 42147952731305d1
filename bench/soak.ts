// Soak: `aeraki serve` (in process, the real composition root) with 10,000 services from the fake istiod (MCP)
// and their MetaRouters from the fake kube-apiserver, writing EnvoyFilters to that API server and serving 1,000
// RDS streams, under 5 changes a second of mixed kinds for SOAK_MINUTES (default 10). Everything is measured from
// the outside: a change's time is when the bench hands it to a fake; its write is the EnvoyFilter request the
// API server answers for that service; its push is the RDS response its stream receives.
// Two processes, as in a mesh: this one runs only the controller and measures it (memory, event-loop delay,
// reconcile runs, its histograms, its store's events); the fakes, the streams and the changes run in a child
// (bench/soak-mesh.ts, messages in bench/soak-ipc.ts), which matches each change to its write and push.
// Figures: resident memory at start, middle and end (after a collection), change-to-write and change-to-push
// p50/p99, change-to-every-acknowledgement p50/p99 (the controller's own aeraki_config_to_ack_seconds, every
// stream ACKing every response), API calls per change, event-loop delay p99, deletions nobody asked for, resync
// repairs.
import { fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';
import { startServe, type RunningServe } from '../src/app/serve.ts';
import { silentLogger } from '../src/util/logger.ts';
import { createLogger } from '../src/util/logging.ts';
import { serveOptions } from '../test/e2e/options.ts';
import { fakeKubeConfig } from '../test/fakes/kube-apiserver/client.ts';
import { ackFigures, describeAcks, recordObservations } from './soak-acks.ts';
import { percentile } from './soak-changes.ts';
import {
  memoryMb,
  soakSettings,
  SoakChannel,
  type FromMesh,
  type MeshSummary,
  type SoakSettings,
  type StoreArrival,
  type ToMesh,
} from './soak-ipc.ts';

const MINUTE = 60_000;
/** How often the store events gathered are posted to the mesh process. */
const POST_EVERY_MS = 100;

interface Mesh {
  readonly channel: SoakChannel<FromMesh, ToMesh>;
  /** Asks the mesh process to close its fakes and waits for it to exit (killed after 30 s). */
  stop(): Promise<void>;
}

/** Forks bench/soak-mesh.ts; its failure, or its exit before `stop`, fails every wait on the channel. */
function forkMesh(): Mesh {
  const child = fork(fileURLToPath(new URL('./soak-mesh.ts', import.meta.url)), [], {
    // SOAK_MESH_PROFILE=DIR writes a CPU profile of the mesh process there (--cpu-prof is refused in NODE_OPTIONS).
    execArgv: [
      '--import',
      'tsx',
      '--expose-gc',
      ...(process.env['SOAK_MESH_PROFILE']
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env['SOAK_MESH_PROFILE']}`]
        : []),
    ],
  });
  const channel = new SoakChannel<FromMesh, ToMesh>((m) => {
    if (child.connected) child.send(m);
  });
  child.on('message', (raw) => {
    const m = raw as FromMesh;
    if (m.type === 'failed') channel.end(new Error(`soak: the mesh process failed: ${m.error}`));
    else channel.receive(m);
  });
  child.on('error', (e) => channel.end(e));
  const closed = new Promise<void>((resolve) =>
    child.on('close', (code, signal) => {
      channel.end(new Error(`soak: the mesh process exited (${signal ?? `code ${code}`})`));
      resolve();
    }),
  );
  return {
    channel,
    stop: async () => {
      channel.send({ type: 'stop' });
      const kill = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await closed;
      clearTimeout(kill);
    },
  };
}

function serve(s: SoakSettings, ready: Extract<FromMesh, { type: 'ready' }>): Promise<RunningServe> {
  return startServe(
    serveOptions({
      istiodAddress: ready.istiod,
      rdsInsecure: true,
      leaderElect: false,
      namespaceBootstrap: false,
      debounceAfterMs: s.debounce.afterMs,
      debounceMaxMs: s.debounce.maxMs,
      rdsDebounceAfterMs: s.rdsDebounce.afterMs,
      rdsDebounceMaxMs: s.rdsDebounce.maxMs,
      resyncMs: 60_000,
      // The first sync writes 30,000 EnvoyFilters; the soak measures what follows it.
      kubeApiQps: 2000,
      kubeApiBurst: 500,
    }),
    {
      logger: s.log ? createLogger({ level: 'warn', format: 'text', component: 'soak' }) : silentLogger,
      kubeConfig: fakeKubeConfig(ready.api),
    },
  );
}

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
    p50Ms: percentile(ms, 50),
    p99Ms: percentile(ms, 99),
    maxMs: ms.at(-1) ?? NaN,
    writesP50: percentile(writes, 50),
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

/** Count, p50, p99 and max of observed values (ms, to a tenth). */
function observedStats(ms: readonly number[]): Record<string, number> {
  const sorted = [...ms].sort((a, b) => a - b);
  const tenths = (n: number) => Math.round(n * 10) / 10;
  return {
    count: sorted.length,
    p50Ms: tenths(percentile(sorted, 50)),
    p99Ms: tenths(percentile(sorted, 99)),
    maxMs: tenths(sorted.at(-1) ?? NaN),
  };
}

/** The histogram's percentiles under the names of the ack figure's bucket view (the count is the figure's own). */
function bucketView(h: Record<string, number>): Record<string, number> {
  return { bucketP50AtMostMs: h['p50AtMostMs'] ?? NaN, bucketP99AtMostMs: h['p99AtMostMs'] ?? NaN };
}

/**
 * What the bench process watches during the churn: the controller's reconcile runs and its store's events (by
 * kind here; each posted to the mesh process, which matches it to its change, every POST_EVERY_MS).
 */
function watchController(s: SoakSettings, running: RunningServe, channel: Mesh['channel']) {
  const runs: RunFigure[] = [];
  const events: Record<string, number> = {};
  let arrivals: StoreArrival[] = [];
  const post = () => {
    if (arrivals.length > 0) channel.send({ type: 'store', events: arrivals });
    arrivals = [];
  };
  const timer = setInterval(post, POST_EVERY_MS);
  const offStore = running.store.subscribe((e) => {
    events[e.kind] = (events[e.kind] ?? 0) + 1;
    if (e.at !== undefined) arrivals.push({ kind: e.kind, namespace: e.namespace, name: e.name, at: e.at });
  });
  const offRuns = running.reconciler.onRun((r) => {
    if (r.skipped !== undefined) return;
    runs.push({
      ms: r.durationMs ?? 0,
      writes: r.created + r.updated + r.deleted,
      listed: r.listed === true,
      failures: r.failures.length,
    });
    if (s.runs) console.log(`soak: run ${JSON.stringify(runs.at(-1))} ended ${new Date().toISOString()}`);
  });
  /** Stops watching; the last store events are posted (before anything sent after this). */
  const stop = () => {
    clearInterval(timer);
    offStore();
    offRuns();
    post();
  };
  return { runs, events, stop };
}

/**
 * SOAK_MEMORY=SECONDS prints the parts of the controller's memory (process.memoryUsage, after a collection) every
 * SECONDS during the churn: what grows outside the heap shows as rss minus heapTotal, external and arrayBuffers;
 * what `heapTotal` holds beyond use shows by heap space (v8.getHeapSpaceStatistics: size/used of the young
 * generation, old space, code and large objects).
 */
function sampleMemory(s: SoakSettings, quiet: BenchOnly): NodeJS.Timeout | undefined {
  if (s.memoryEverySeconds <= 0) return undefined;
  const t0 = Date.now();
  return setInterval(() => {
    const m = quiet(() => {
      (globalThis as { gc?: () => void }).gc?.();
      return process.memoryUsage();
    });
    const mb = (n: number) => Math.round(n / 1048576);
    const at = Math.round((Date.now() - t0) / 1000);
    console.log(
      `soak: memory at ${at} s: rss ${mb(m.rss)} heapTotal ${mb(m.heapTotal)} heapUsed ${mb(m.heapUsed)} ` +
        `external ${mb(m.external)} arrayBuffers ${mb(m.arrayBuffers)} MB; spaces ${heapSpaces(mb)}`,
    );
  }, s.memoryEverySeconds * 1000);
}

/** `new 16/1 old 300/280 ...`: each heap space's size over its use, in MB (spaces of 0 MB left out). */
function heapSpaces(mb: (n: number) => number): string {
  const short = (name: string) => name.replace(/_space$/, '').replace(/_object/, '');
  return getHeapSpaceStatistics()
    .filter((x) => mb(x.space_size) > 0)
    .map((x) => `${short(x.space_name)} ${mb(x.space_size)}/${mb(x.space_used_size)}`)
    .join(' ');
}

const ratio = (a: number, b: number) => Math.round((a / b) * 1000) / 1000;

/** The machine's one-minute load average, to a tenth (the soak reports it with each run: 2 cores are shared). */
const load1 = () => Math.round((loadavg()[0] ?? NaN) * 10) / 10;

/** Stretches above this the bench lists with their times (issue 40's eventLoopDelayMaxMs target). */
const STALL_MS = 100;

/**
 * The controller's loop stretches longer than STALL_MS, each with when it ended (seconds into the churn) and how
 * long the loop was held: a timer due every 10 ms that fires late by more than STALL_MS marks one. Printed as they
 * happen with SOAK_RUNS=1, so each sits beside the reconcile runs around it.
 */
function watchStalls(s: SoakSettings): {
  stop(): void;
  skip(): void;
  stalls: { atS: number; ms: number }[];
} {
  const stalls: { atS: number; ms: number }[] = [];
  const t0 = Date.now();
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    const late = now - last - 10;
    last = now;
    if (late <= STALL_MS) return;
    const stall = { atS: Math.round((Date.now() - t0) / 100) / 10, ms: Math.round(late) };
    stalls.push(stall);
    if (s.runs) console.log(`soak: loop held ${stall.ms} ms, ended ${new Date().toISOString()}`);
  }, 10);
  return { stop: () => clearInterval(timer), skip: () => (last = performance.now()), stalls };
}

/** Runs the bench's own work that holds the controller's loop (a forced collection for a memory figure). */
type BenchOnly = <T>(fn: () => T) => T;

/**
 * The bench's forced collections (memory at start, middle, end and every SOAK_MEMORY seconds: a full collection
 * of a 300 MB heap holds the loop 100 to 400 ms) are left out of the loop's figures: the delay histogram is
 * paused around them and the stall watch starts afresh after them.
 */
function benchOnly(
  delay: ReturnType<typeof monitorEventLoopDelay>,
  stalls: ReturnType<typeof watchStalls>,
): BenchOnly {
  return (fn) => {
    delay.disable();
    try {
      return fn();
    } finally {
      stalls.skip();
      delay.enable();
    }
  };
}

async function figures(
  s: SoakSettings,
  running: RunningServe,
  m: MeshSummary,
  own: ReturnType<typeof watchController> & {
    memory: Record<string, number>;
    heap: Record<string, number>;
    acks: ReturnType<typeof ackFigures>;
    pushes: readonly number[];
    load: Record<string, number>;
    stalls: readonly { atS: number; ms: number }[];
  },
  delay: { p99: number; max: number },
) {
  return {
    minutes: s.minutes,
    services: s.services,
    streams: s.streams,
    rds: s.rds,
    subscribers: s.subscribers,
    istiodPush: s.istiodPush,
    // The machine's one-minute load average at the start, middle and end of the churn (2 cores, shared).
    load: own.load,
    changes: m.changes,
    changesByKind: m.byKind,
    memory: {
      ...own.memory,
      endOverMiddle: ratio(own.memory['endMb'] ?? NaN, own.memory['middleMb'] ?? NaN),
    },
    heap: { ...own.heap, endOverMiddle: ratio(own.heap['endMb'] ?? NaN, own.heap['middleMb'] ?? NaN) },
    // The mesh process (fakes with every object, streams, change log) after a collection, at the end.
    meshRssMb: m.rssMb,
    meshHeapMb: m.heapMb,
    changeToWriteMs: m.write,
    changeToPushMs: m.push,
    // The controller's own figure (AckTracker through aeraki_config_to_ack_seconds): from the store event that
    // changed a route configuration to every subscribed stream's ACK of it; the buckets' view beside it.
    changeToAckMs: {
      ...own.acks,
      ...bucketView(await histogramPercentiles(running.metrics.configToAck)),
    },
    // Its first stage, the controller's aeraki_config_to_push_seconds as observed (route debounce, rebuild, the
    // snapshot handed to the streams): the rest of changeToAckMs is the responses' way out and the ACKs' way back.
    storeToPushMs: observedStats(own.pushes),
    // Where a change's time goes: to the controller's store (istiod or the API server, then decoding), and the
    // controller's own figure from that event to the write (aeraki_config_to_write_seconds, bucket bounds).
    changeToStoreMs: m.arrival,
    changeToStoreByKindMs: m.arrivalByKind,
    storeToWriteMs: await histogramPercentiles(running.metrics.configToWrite),
    storeEvents: own.events,
    reconcileRuns: runStats(own.runs.filter((r) => !r.listed)),
    listingRuns: runStats(own.runs.filter((r) => r.listed)),
    writeFailures: own.runs.reduce((n, r) => n + r.failures, 0),
    apiCalls: m.apiCalls,
    apiCallsByVerb: m.apiCallsByVerb,
    apiCallsPerChange: Math.round((m.apiCalls / m.changes) * 100) / 100,
    eventLoopDelayP99Ms: delay.p99,
    eventLoopDelayMaxMs: delay.max,
    // Every stretch above STALL_MS (at most the first 50), seconds into the churn and its length.
    loopStalls: { count: own.stalls.length, first: own.stalls.slice(0, 50) },
    meshEventLoopDelayP99Ms: m.eventLoopDelayP99Ms,
    meshEventLoopDelayMaxMs: m.eventLoopDelayMaxMs,
    unaskedDeletions: m.unaskedDeletions,
    resyncRepairs: (await running.metrics.resyncRepairs.get()).values[0]?.value ?? 0,
    streamErrors: m.streamErrors,
    targets: {
      endOverMiddle: 1.1,
      p99Ms: s.debounce.maxMs + 500,
      ackP99Ms: own.acks.targetMs,
      apiCallsPerChange: 3,
      unaskedDeletions: 0,
      // Issue 40: the loop never held longer than a frame, and resident memory at the end.
      eventLoopDelayMaxMs: STALL_MS,
      endMb: 500,
    },
  };
}

/** Up to the churn: the mesh's fakes, then serve, its first sync, then the streams. */
async function start(s: SoakSettings, mesh: Mesh, started: (r: RunningServe) => void): Promise<RunningServe> {
  const t0 = Date.now();
  const ready = await mesh.channel.expect('ready', 10 * MINUTE);
  const running = await mesh.channel.alive(serve(s, ready));
  started(running);
  await mesh.channel.alive(running.synced);
  mesh.channel.send({ type: 'synced' });
  const { filters } = await mesh.channel.expect('filtered', 60 * MINUTE);
  mesh.channel.send({ type: 'rds', port: running.rdsPort });
  await mesh.channel.expect('streaming', 10 * MINUTE);
  const took = Math.round((Date.now() - t0) / 1000);
  console.log(`soak: synced ${filters} EnvoyFilters and ${s.streams} streams in ${took} s`);
  return running;
}

/** The churn, as the bench process sees it: memory at start, middle and end, event-loop delay, runs, events. */
async function measure(s: SoakSettings, mesh: Mesh, running: RunningServe) {
  const own = watchController(s, running, mesh.channel);
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const stalls = watchStalls(s);
  const quiet = benchOnly(delay, stalls);
  const sampler = sampleMemory(s, quiet);
  const acked = recordObservations(running.metrics.configToAck);
  const pushed = recordObservations(running.metrics.configToPush);
  const load = { start: load1(), middle: NaN, end: NaN };
  const first = quiet(memoryMb);
  const memory = { startMb: first.rss, middleMb: NaN, endMb: NaN };
  const heap = { startMb: first.heap, middleMb: NaN, endMb: NaN };
  mesh.channel.send({ type: 'churn' });
  const middle = setTimeout(
    () => {
      ({ rss: memory.middleMb, heap: heap.middleMb } = quiet(memoryMb));
      load.middle = load1();
    },
    (s.minutes * MINUTE) / 2,
  );
  try {
    await mesh.channel.expect('churned', s.minutes * MINUTE + 30 * MINUTE);
  } finally {
    clearTimeout(middle);
    clearInterval(sampler);
    stalls.stop();
    load.end = load1();
    acked.stop();
    pushed.stop();
    own.stop();
  }
  const acks = ackFigures(acked.ms, s.rdsDebounce.maxMs);
  console.log(describeAcks(acks));
  delay.disable();
  ({ rss: memory.endMb, heap: heap.endMb } = memoryMb());
  // SOAK_HEAP_SNAPSHOT=FILE: the controller's heap at the end (ArrayBuffer contents show as JSArrayBufferData).
  if (s.heapSnapshot) console.log(`soak: heap snapshot ${writeHeapSnapshot(s.heapSnapshot)}`);
  mesh.channel.send({ type: 'summarize' });
  const { summary } = await mesh.channel.expect('summary', 10 * MINUTE);
  const loop = { p99: Math.round(delay.percentile(99) / 1e4) / 100, max: Math.round(delay.max / 1e4) / 100 };
  return figures(
    s,
    running,
    summary,
    { ...own, memory, heap, acks, pushes: pushed.ms, load, stalls: stalls.stalls },
    loop,
  );
}

export async function benchSoak(): Promise<Record<string, unknown>> {
  const s = soakSettings();
  const mesh = forkMesh();
  let running: RunningServe | undefined;
  try {
    const started = await start(s, mesh, (r) => (running = r));
    const result = await measure(s, mesh, started);
    console.log(JSON.stringify(result, null, 2));
    return result;
  } finally {
    await running?.stop();
    await mesh.stop();
  }
}

// Standalone: SOAK_MINUTES=2 node --import tsx --expose-gc bench/soak.ts
if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  await benchSoak();
  process.exit(0);
}
