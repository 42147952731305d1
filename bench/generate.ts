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
// - Garbage-collection pauses inside each sample are summed (perf_hooks 'gc' entries) and reported as a share,
//   with the growth ratio of the time outside them: a diagnosis of where super-linear time goes, not a target.
import { PerformanceObserver, performance, type PerformanceEntry } from 'node:perf_hooks';
import { ConfigStore } from '../src/controller/store.ts';
import { generateAll } from '../src/envoyfilter/generate-all.ts';
import type { Generator } from '../src/model/generator.ts';
import { parseConfigObject } from '../src/model/parse.ts';
import { createGenerators } from '../src/plugins/registry.ts';
import { buildRouteConfigurations } from '../src/xds-rds/routes.ts';
import { syntheticObjects } from './synthetic.ts';

const SIZES = [1000, 10000] as const;
const ROUNDS = 7;
/** Generations per sample times size: the same work in every sample. */
const WORK_PER_SAMPLE = 10000;

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function buildStore(services: number): ConfigStore {
  const store = new ConfigStore({ rootNamespace: 'istio-system' });
  for (const raw of syntheticObjects(services)) {
    const parsed = parseConfigObject(raw);
    if (!parsed?.ok) throw new Error(`synthetic object did not parse: ${JSON.stringify(parsed?.issues)}`);
    store.upsert(parsed.value);
  }
  return store;
}

/** One timed sample: wall time of one call (the mean of `repeat` consecutive calls), its window and heap growth. */
interface Sample {
  readonly ms: number;
  /** CPU time of the process (all threads, so concurrent GC work too) per call. */
  readonly cpuMs: number;
  readonly start: number;
  readonly end: number;
  readonly repeat: number;
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

function sample(fn: () => unknown, repeat: number): { sample: Sample; last: unknown } {
  gc();
  let last: unknown;
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  const kept: unknown[] = []; // see the header: outputs outlive the sample, as in the controller
  for (let r = 0; r < repeat; r++) kept.push((last = fn()));
  const end = performance.now();
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000 / repeat;
  return { sample: { ms: (end - start) / repeat, cpuMs, start, end, repeat }, last };
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

  /** Pause time (ms per call) that fell inside the sample's window. */
  within(s: Sample): number {
    let total = 0;
    for (const e of this.entries) {
      if (e.startTime >= s.start && e.startTime < s.end) total += e.duration;
    }
    return total / s.repeat;
  }

  async stop(): Promise<void> {
    await new Promise((r) => setTimeout(r, 10)); // entries are delivered asynchronously
    this.observer.disconnect();
  }
}

interface SizeSamples {
  filters: Sample[];
  filterJson: Sample[];
  routes: Sample[];
  routeJson: Sample[];
  filtersHeap: HeapUse[];
  routesHeap: HeapUse[];
  envoyFilters: number;
  routeConfigs: number;
}

function measureRound(services: number, generators: readonly Generator[], into: SizeSamples): void {
  const store = buildStore(services);
  const repeat = Math.max(1, Math.round(WORK_PER_SAMPLE / services));
  const run = {
    filters: () => generateAll(store, generators, { namespaceScope: false }),
    routes: () => buildRouteConfigurations(store),
  };
  run.filters(); // warm the code paths of this round's store
  run.routes();
  const filters = sample(run.filters, repeat);
  const filterObjects = (filters.last as ReturnType<typeof generateAll>).objects;
  const filterJson = sample(() => JSON.stringify(filterObjects), repeat);
  const routes = sample(run.routes, repeat);
  const routeObjects = (routes.last as ReturnType<typeof buildRouteConfigurations>).routes;
  const routeJson = sample(() => JSON.stringify(routeObjects), repeat);
  into.filters.push(filters.sample);
  into.filterJson.push(filterJson.sample);
  into.routes.push(routes.sample);
  into.routeJson.push(routeJson.sample);
  into.filtersHeap.push(heapUse(run.filters));
  into.routesHeap.push(heapUse(run.routes));
  into.envoyFilters = filterObjects.length;
  into.routeConfigs = routeObjects.length;
}

export async function benchGenerate(): Promise<Record<string, unknown>> {
  const generators = createGenerators();
  const pauses = new GcPauses();
  const bySize = new Map<number, SizeSamples>(
    SIZES.map((n) => [
      n,
      {
        filters: [],
        filterJson: [],
        routes: [],
        routeJson: [],
        filtersHeap: [],
        routesHeap: [],
        envoyFilters: 0,
        routeConfigs: 0,
      },
    ]),
  );
  for (let round = 0; round < ROUNDS; round++) {
    for (const services of SIZES) {
      measureRound(services, generators, bySize.get(services) as SizeSamples);
      await new Promise((r) => setImmediate(r));
    }
    console.error(`generation: round ${round + 1}/${ROUNDS} done`);
  }
  await pauses.stop();

  const results: Record<string, Record<string, number>> = {};
  const mutatorMs: Record<string, Record<number, number>> = { filters: {}, routes: {} };
  for (const [services, s] of bySize) {
    const ms = (xs: Sample[]) => median(xs.map((x) => x.ms));
    const cpuMs = (xs: Sample[]) => median(xs.map((x) => x.cpuMs));
    const gcMs = (xs: Sample[]) => median(xs.map((x) => pauses.within(x)));
    const outsideGc = (xs: Sample[]) => median(xs.map((x) => x.ms - pauses.within(x)));
    const peakMb = (xs: HeapUse[]) => Math.max(...xs.map((x) => x.peak)) / 2 ** 20;
    const retainedMb = (xs: HeapUse[]) => median(xs.map((x) => x.retained)) / 2 ** 20;
    (mutatorMs['filters'] as Record<number, number>)[services] = outsideGc(s.filters);
    (mutatorMs['routes'] as Record<number, number>)[services] = outsideGc(s.routes);
    results[services] = {
      envoyFilters: s.envoyFilters,
      filtersMedianMs: round(ms(s.filters)),
      filtersUsPerService: round((ms(s.filters) * 1000) / services),
      filtersCpuMs: round(cpuMs(s.filters)),
      filtersPeakHeapMb: round(peakMb(s.filtersHeap)),
      filtersRetainedMb: round(retainedMb(s.filtersHeap)),
      filtersVsStringify: round(ms(s.filters) / ms(s.filterJson)),
      filtersGcShare: round(gcMs(s.filters) / ms(s.filters)),
      routes: s.routeConfigs,
      routesMedianMs: round(ms(s.routes)),
      routesUsPerService: round((ms(s.routes) * 1000) / services),
      routesCpuMs: round(cpuMs(s.routes)),
      routesPeakHeapMb: round(peakMb(s.routesHeap)),
      routesRetainedMb: round(retainedMb(s.routesHeap)),
      routesVsStringify: round(ms(s.routes) / ms(s.routeJson)),
      routesGcShare: round(gcMs(s.routes) / ms(s.routes)),
    };
  }
  const [small, large] = SIZES.map((n) => results[n] as Record<string, number>) as [
    Record<string, number>,
    Record<string, number>,
  ];
  const growthOutsideGc = (kind: 'filters' | 'routes') => {
    const m = mutatorMs[kind] as Record<number, number>;
    return round((m[SIZES[1]] as number) / (m[SIZES[0]] as number));
  };
  const summary = {
    ...results,
    growthFilters: round((large['filtersMedianMs'] as number) / (small['filtersMedianMs'] as number)),
    growthRoutes: round((large['routesMedianMs'] as number) / (small['routesMedianMs'] as number)),
    growthFiltersCpu: round((large['filtersCpuMs'] as number) / (small['filtersCpuMs'] as number)),
    growthRoutesCpu: round((large['routesCpuMs'] as number) / (small['routesCpuMs'] as number)),
    growthFiltersOutsideGc: growthOutsideGc('filters'),
    growthRoutesOutsideGc: growthOutsideGc('routes'),
  };
  console.log('generation', JSON.stringify(summary, null, 2));
  return summary;
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
