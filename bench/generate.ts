// Issue 2 benchmark: generation of the full EnvoyFilter set and of all MetaProtocol routes for 1,000 and 10,000
// synthetic ServiceEntries. Reports medians, per-service cost, peak heap, the growth ratio t(10k)/t(1k) (linear is
// 10) and the ratio of generation time to JSON.stringify of the same output (the bare cost of emitting it).
//
// Method (the machines are shared and noisy):
// - Rounds interleave the sizes (1k, 10k, 1k, 10k, ...), so a change of load hits both sizes alike. Each size's
//   store is built fresh in its round and dropped after it: a size is measured with only its own config on the
//   heap, as in a controller that holds that config.
// - A 1k sample times 10 consecutive generations (divided back to one), so both sizes cover the same work and
//   the same number of young-generation collections; otherwise the small case runs between two collections and
//   the ratio measures the collector, not the generator.
// - Every output of a sample is kept until the sample ends, as the controller keeps each generation's output
//   (the reconciler writes it, the RDS snapshot serves it) well past the next young-generation collection. If
//   the 1k outputs were dropped at once they would die young and cost the collector nothing, which the
//   controller never sees; the 10k output never dies young. Both sizes promote the same volume this way.
// - Caches are evicted before every timed generation (a 64 MiB sweep, not timed), for both sizes: the controller
//   rebuilds after other work (watches, RDS streams, writes) has gone through the caches, so each rebuild starts
//   cold. Timing 10 back-to-back rebuilds of one 1k config instead keeps that config (a few MB) in the caches
//   from the second rebuild on, while a 10k config never fits: the ratio then measures the cache size. That
//   warm figure is reported too (`...Warm...`).
// - Garbage-collection pauses inside each sample are summed (perf_hooks 'gc' entries) and reported as a share,
//   with the growth ratio of the time outside them: a diagnosis of where super-linear time goes, not a target.
// - Minor page faults inside the timed windows are counted too (process.resourceUsage, read outside the
//   windows): memory the heap commits afresh during a rebuild costs a kernel fault per 4 KiB page, a few
//   microseconds each here. Also a diagnosis.
// - Where young-generation collections fall is chance: a 10k rebuild always spans two, a 1k window holds one
//   now and then, and the last outputs of every sample are promoted after it, outside the windows. A third cold
//   sample (`...Collected...`) therefore ends every timed call with a young-generation collection inside its
//   window (gc({ type: 'minor' })), so each rebuild pays in full for copying what it keeps and for freeing its
//   garbage, at both sizes alike. Another diagnosis, beside the headline figures, which stay the plain cold
//   rebuild.
// - A reference workload runs in the same rounds: a plain deep copy of the same output (every object and array
//   allocated afresh, strings shared, kept like the generation's output; `...Copy...`). It does nothing but build
//   and keep that much data, so its growth is what the machine charges, at that hour, for the memory such an
//   output occupies at each size; the generation's growth is read against it. Another diagnosis.
import { PerformanceObserver, performance, type PerformanceEntry } from 'node:perf_hooks';
import { ConfigStore } from '../src/controller/store.ts';
import { generateAll } from '../src/envoyfilter/generate-all.ts';
import type { Generator } from '../src/model/generator.ts';
import { compareStrings } from '../src/model/order.ts';
import { parseConfigObject } from '../src/model/parse.ts';
import { createGenerators } from '../src/plugins/registry.ts';
import { buildRouteConfigurations } from '../src/xds-rds/routes.ts';
import { syntheticObjects } from './synthetic.ts';

const SIZES = [1000, 10000] as const;
/**
 * Rounds per run: 11, or GENERATE_ROUNDS (an odd count from 3 to 201). The per-round ratios spread widely on a shared
 * machine (their quartiles are printed), so the median of 11 moves by about one from run to run; more rounds narrow
 * that at the cost of time (about 14 s per round). Read when this benchmark starts, not when it is imported.
 */
function roundsFromEnv(value: string | undefined): number {
  if (value === undefined || value === '') return 11;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 3 || n > 201 || n % 2 === 0) {
    throw new Error(`GENERATE_ROUNDS=${value}: want an odd whole number from 3 to 201`);
  }
  return n;
}

/** Generations per sample times size: the same work in every sample. */
const WORK_PER_SAMPLE = 10000;

function median(xs: readonly number[]): number {
  return quantile(xs, 0.5);
}

/** The q-quantile (nearest rank below), q in [0, 1]: 0.5 is the median of an odd count. */
function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) * q)] ?? NaN;
}

/** The reference workload: `v` copied object by object, array by array (strings and numbers shared). */
function deepCopy(v: unknown): unknown {
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = deepCopy(v[i]);
    return out;
  }
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    const o = v as Record<string, unknown>;
    for (const k in o) if (Object.hasOwn(o, k)) out[k] = deepCopy(o[k]);
    return out;
  }
  return v;
}

type GcOptions = { type?: 'major' | 'minor' };

function gc(options?: GcOptions): void {
  (globalThis as { gc?: (options?: GcOptions) => void }).gc?.(options);
}

/**
 * A store filled as the controller fills it: kind by kind, each kind in the order a Kubernetes LIST returns it
 * (namespace, then name; what informers deliver at start-up), so objects sit in memory in the order the
 * generators visit them. (The synthetic list interleaves kinds and numbers services 0..n, an order no source
 * delivers.)
 */
function buildStore(services: number): ConfigStore {
  const store = new ConfigStore({ rootNamespace: 'istio-system' });
  const raws = syntheticObjects(services);
  const listOrder = (o: Record<string, unknown>) => {
    const meta = o['metadata'] as { namespace: string; name: string };
    return `${String(o['kind'])}\u0000${meta.namespace}\u0000${meta.name}`;
  };
  const keyed = raws.map((raw) => ({ raw, key: listOrder(raw) }));
  keyed.sort((a, b) => compareStrings(a.key, b.key));
  for (const { raw } of keyed) {
    const parsed = parseConfigObject(raw);
    if (!parsed?.ok) throw new Error(`synthetic object did not parse: ${JSON.stringify(parsed?.issues)}`);
    store.upsert(parsed.value);
  }
  return store;
}

/** One timed sample: wall and CPU time of one call (the mean of `repeat` calls) and the timed windows. */
interface Sample {
  readonly ms: number;
  /** CPU time of the process (all threads, so concurrent GC work too) per call. */
  readonly cpuMs: number;
  readonly windows: readonly (readonly [number, number])[];
  readonly repeat: number;
  /** Minor page faults per call. */
  readonly faults: number;
}

/** Heap of one generation: growth during the call (no collection forced) and what its output holds after it. */
interface HeapUse {
  readonly peak: number;
  readonly retained: number;
}

function heapUse(fn: () => unknown): HeapUse {
  gc();
  const before = process.memoryUsage().heapUsed;
  const out = fn();
  const peak = process.memoryUsage().heapUsed - before;
  gc();
  const retained = process.memoryUsage().heapUsed - before;
  if (out === undefined) throw new Error('no output'); // keeps `out` alive across the collection
  return { peak, retained };
}

/** Larger than the last-level cache of the machines here (32 MiB): sweeping it evicts everything else. */
const EVICTION_BUFFER = new Uint8Array(64 * 2 ** 20);

function evictCaches(): void {
  for (let i = 0; i < EVICTION_BUFFER.length; i += 64)
    EVICTION_BUFFER[i] = (EVICTION_BUFFER[i] as number) + 1;
}

/**
 * How a sample times its calls. Cold: caches are evicted before each call, outside the timed windows; collected:
 * cold, and each window ends with a young-generation collection (see the header); warm: the calls run back to
 * back in one window.
 */
type Mode = 'cold' | 'collected' | 'warm';

/** Times `repeat` calls of fn, keeping every output until the end (see the header). */
function sample(fn: () => unknown, repeat: number, mode: Mode): { sample: Sample; last: unknown } {
  gc();
  const kept: unknown[] = [];
  const windows: [number, number][] = [];
  let cpuMicros = 0;
  let faults = 0;
  const timed = (calls: number): void => {
    const cpu0 = process.cpuUsage();
    const f0 = process.resourceUsage().minorPageFault;
    const start = performance.now();
    for (let r = 0; r < calls; r++) kept.push(fn());
    if (mode === 'collected') gc({ type: 'minor' });
    windows.push([start, performance.now()]);
    faults += process.resourceUsage().minorPageFault - f0;
    const cpu = process.cpuUsage(cpu0);
    cpuMicros += cpu.user + cpu.system;
  };
  if (mode !== 'warm') {
    for (let r = 0; r < repeat; r++) {
      evictCaches();
      timed(1);
    }
  } else {
    timed(repeat);
  }
  const ms = windows.reduce((t, [a, b]) => t + (b - a), 0) / repeat;
  return {
    sample: { ms, cpuMs: cpuMicros / 1000 / repeat, windows, repeat, faults: faults / repeat },
    last: kept[kept.length - 1],
  };
}

/** Collects garbage-collection pauses of the main thread. */
class GcPauses {
  private readonly entries: PerformanceEntry[] = [];
  private readonly observer = new PerformanceObserver((list) => {
    this.entries.push(...list.getEntries());
  });

  constructor() {
    this.observer.observe({ entryTypes: ['gc'] });
  }

  /** Pause time (ms per call) that fell inside the sample's timed windows. */
  within(s: Sample): number {
    let total = 0;
    for (const e of this.entries) {
      if (s.windows.some(([a, b]) => e.startTime >= a && e.startTime < b)) total += e.duration;
    }
    return total / s.repeat;
  }

  async stop(): Promise<void> {
    await new Promise((r) => setTimeout(r, 10)); // entries are delivered asynchronously
    this.observer.disconnect();
  }
}

/** The samples of one kind of output (EnvoyFilters or routes) at one size, one entry per round. */
interface KindSamples {
  readonly cold: Sample[];
  readonly warm: Sample[];
  readonly collected: Sample[];
  /** JSON.stringify of the cold sample's output. */
  readonly json: Sample[];
  /** The reference workload: a deep copy of the cold sample's output. */
  readonly copy: Sample[];
  readonly heap: HeapUse[];
}

interface SizeSamples {
  readonly filters: KindSamples;
  readonly routes: KindSamples;
  envoyFilters: number;
  routeConfigs: number;
}

function emptyKind(): KindSamples {
  return { cold: [], warm: [], collected: [], json: [], copy: [], heap: [] };
}

function emptySamples(): SizeSamples {
  return { filters: emptyKind(), routes: emptyKind(), envoyFilters: 0, routeConfigs: 0 };
}

/**
 * The timed samples of one kind: cold, then JSON.stringify and the deep copy of its output, warm, collected.
 * Returns the output objects of the cold sample (`objectsOf` picks them from a result of `run`).
 */
function measureKind(
  run: () => unknown,
  objectsOf: (result: unknown) => readonly unknown[],
  repeat: number,
  into: KindSamples,
): readonly unknown[] {
  const cold = sample(run, repeat, 'cold');
  const objects = objectsOf(cold.last);
  into.cold.push(cold.sample);
  into.json.push(sample(() => JSON.stringify(objects), repeat, 'cold').sample);
  into.copy.push(sample(() => deepCopy(objects), repeat, 'cold').sample);
  into.warm.push(sample(run, repeat, 'warm').sample);
  into.collected.push(sample(run, repeat, 'collected').sample);
  return objects;
}

function measureRound(services: number, generators: readonly Generator[], into: SizeSamples): void {
  const store = buildStore(services);
  const repeat = Math.max(1, Math.round(WORK_PER_SAMPLE / services));
  const run = {
    filters: () => generateAll(store, generators, { namespaceScope: false }),
    routes: () => buildRouteConfigurations(store),
  };
  // Warms the code paths. The outputs stay referenced to the end of the round, as the controller holds its last
  // output while it builds the next: a full collection that found no live object of some output shape would
  // drop that shape and the optimized code built for it, and the next sample would start unoptimized.
  const previous = { filters: run.filters(), routes: run.routes() };
  const filterObjects = measureKind(
    run.filters,
    (r) => (r as ReturnType<typeof generateAll>).objects,
    repeat,
    into.filters,
  );
  const routeObjects = measureKind(
    run.routes,
    (r) => (r as ReturnType<typeof buildRouteConfigurations>).routes,
    repeat,
    into.routes,
  );
  into.filters.heap.push(heapUse(run.filters));
  into.routes.heap.push(heapUse(run.routes));
  into.envoyFilters = filterObjects.length;
  into.routeConfigs = routeObjects.length;
  if (
    previous.filters.objects.length !== filterObjects.length ||
    previous.routes.routes.length !== routeObjects.length
  ) {
    throw new Error('generation is not deterministic');
  }
}

function figures(services: number, s: SizeSamples, pauses: GcPauses): Record<string, number> {
  const ms = (xs: Sample[]) => median(xs.map((x) => x.ms));
  // One block of figures per kind of output: `<kind>MedianMs`, `<kind>UsPerService`, ...
  const kind = (name: 'filters' | 'routes', k: KindSamples): Record<string, number> => ({
    [`${name}MedianMs`]: round(ms(k.cold)),
    [`${name}UsPerService`]: round((ms(k.cold) * 1000) / services),
    [`${name}PageFaults`]: round(median(k.cold.map((x) => x.faults))),
    [`${name}CpuMs`]: round(median(k.cold.map((x) => x.cpuMs))),
    [`${name}OutsideGcMs`]: round(median(k.cold.map((x) => x.ms - pauses.within(x)))),
    [`${name}GcShare`]: round(median(k.cold.map((x) => pauses.within(x))) / ms(k.cold)),
    [`${name}WarmMs`]: round(ms(k.warm)),
    [`${name}CollectedMs`]: round(ms(k.collected)),
    [`${name}PeakHeapMb`]: round(Math.max(...k.heap.map((x) => x.peak)) / 2 ** 20),
    [`${name}RetainedMb`]: round(median(k.heap.map((x) => x.retained)) / 2 ** 20),
    [`${name}VsStringify`]: round(ms(k.cold) / ms(k.json)),
    [`${name}CopyMs`]: round(ms(k.copy)),
  });
  return {
    envoyFilters: s.envoyFilters,
    ...kind('filters', s.filters),
    routes: s.routeConfigs,
    ...kind('routes', s.routes),
  };
}

export async function benchGenerate(): Promise<Record<string, unknown>> {
  const rounds = roundsFromEnv(process.env['GENERATE_ROUNDS']);
  const generators = createGenerators();
  const pauses = new GcPauses();
  const bySize = new Map<number, SizeSamples>(SIZES.map((n) => [n, emptySamples()]));
  for (let round = 0; round < rounds; round++) {
    for (const services of SIZES) {
      measureRound(services, generators, bySize.get(services) as SizeSamples);
      await new Promise((r) => setImmediate(r));
    }
    console.error(`generation: round ${round + 1}/${rounds} done`);
  }
  await pauses.stop();
  const [smallSamples, largeSamples] = SIZES.map((n) => bySize.get(n) as SizeSamples) as [
    SizeSamples,
    SizeSamples,
  ];
  // Growth ratios are paired: the median over rounds of t(10k)/t(1k) within a round, the two measured seconds
  // apart, so that load drifting between rounds cancels out of each ratio.
  const ratios = (pick: (s: SizeSamples) => Sample[], value: (x: Sample) => number = (x) => x.ms) =>
    pick(largeSamples).map((x, i) => value(x) / value(pick(smallSamples)[i] as Sample));
  const growth = (pick: (s: SizeSamples) => Sample[], value?: (x: Sample) => number) =>
    round(median(ratios(pick, value)));
  // The spread of the per-round ratios (first and third quartiles): how far one round's load moves a ratio.
  const spread = (pick: (s: SizeSamples) => Sample[]) => {
    const r = ratios(pick);
    return [round(quantile(r, 0.25)), round(quantile(r, 0.75))];
  };
  // Per round, the generation's growth divided by the reference workload's: the median of those quotients.
  const overCopy = (kind: (s: SizeSamples) => KindSamples) => {
    const r = ratios((s) => kind(s).copy);
    return round(median(ratios((s) => kind(s).cold).map((x, i) => x / (r[i] as number))));
  };
  const cpu = (x: Sample) => x.cpuMs;
  const outsideGc = (x: Sample) => x.ms - pauses.within(x);
  // One figure for each kind of output, EnvoyFilters then routes, named `growthFilters<suffix>` and
  // `growthRoutes<suffix>`; `figure` gets the picker of that kind's samples.
  const perKind = (suffix: string, figure: (kind: (s: SizeSamples) => KindSamples) => unknown) => ({
    [`growthFilters${suffix}`]: figure((s) => s.filters),
    [`growthRoutes${suffix}`]: figure((s) => s.routes),
  });
  const summary = {
    rounds,
    [SIZES[0]]: figures(SIZES[0], smallSamples, pauses),
    [SIZES[1]]: figures(SIZES[1], largeSamples, pauses),
    // t(10k)/t(1k): linear is 10, the target at most 11 (cold caches, as a rebuild in the controller runs).
    ...perKind('', (k) => growth((s) => k(s).cold)),
    ...perKind('Quartiles', (k) => spread((s) => k(s).cold)),
    // The same from CPU time, from time outside GC pauses, with caches warm (back-to-back rebuilds), and with
    // every rebuild ending in a young-generation collection inside its window (see the header).
    ...perKind('Cpu', (k) => growth((s) => k(s).cold, cpu)),
    ...perKind('OutsideGc', (k) => growth((s) => k(s).cold, outsideGc)),
    ...perKind('Warm', (k) => growth((s) => k(s).warm)),
    ...perKind('Collected', (k) => growth((s) => k(s).collected)),
    growthFiltersCollectedQuartiles: spread((s) => s.filters.collected),
    // The reference workload (a deep copy of the same output, see the header): its growth, and the median of the
    // per-round quotients of the generation's growth by it (1 = the generation grows as building its output does).
    ...perKind('Copy', (k) => growth((s) => k(s).copy)),
    ...perKind('OverCopy', overCopy),
  };
  console.log('generation', JSON.stringify(summary, null, 2));
  return summary;
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
