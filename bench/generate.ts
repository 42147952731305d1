// Issue 2 benchmark: generation of the full EnvoyFilter set and of all MetaProtocol routes for 1,000 and 10,000
// synthetic ServiceEntries. Reports medians, per-service cost, peak heap, the growth ratio t(10k)/t(1k) (linear is
// 10) and the ratio of generation time to JSON.stringify of the same output (the bare cost of emitting it).
import { performance } from 'node:perf_hooks';
import { ConfigStore } from '../src/controller/store.ts';
import { generateAll } from '../src/envoyfilter/generate-all.ts';
import { parseConfigObject } from '../src/model/parse.ts';
import { createGenerators } from '../src/plugins/registry.ts';
import { buildRouteConfigurations } from '../src/xds-rds/routes.ts';
import { syntheticObjects } from './synthetic.ts';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * Runs fn `runs` times; returns the median wall time of one call and the peak heap growth seen across runs.
 * Each sample times `repeat` consecutive calls (divided back to one call), so that a small configuration is
 * measured over as much work, and as many garbage collections, as a large one: otherwise the small case runs
 * entirely between two collections and the growth ratio measures the collector, not the algorithm.
 */
function measure(
  fn: () => unknown,
  runs: number,
  repeat = 1,
): { ms: number; peakHeapMb: number; last: unknown } {
  const times: number[] = [];
  let peak = 0;
  let last: unknown;
  for (let i = 0; i < runs; i++) {
    gc();
    const before = process.memoryUsage().heapUsed;
    const t0 = performance.now();
    for (let r = 0; r < repeat; r++) last = fn();
    times.push((performance.now() - t0) / repeat);
    peak = Math.max(peak, process.memoryUsage().heapUsed - before);
  }
  return { ms: median(times), peakHeapMb: peak / 2 ** 20, last };
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

export async function benchGenerate(): Promise<Record<string, unknown>> {
  const generators = createGenerators();
  const results: Record<string, Record<string, number>> = {};
  for (const services of [1000, 10000]) {
    const store = buildStore(services);
    const runs = services >= 10000 ? 5 : 9;
    const repeat = Math.max(1, Math.round(10000 / services));
    const filters = measure(() => generateAll(store, generators, { namespaceScope: false }), runs, repeat);
    const filterObjects = (filters.last as ReturnType<typeof generateAll>).objects;
    const filterJson = measure(() => JSON.stringify(filterObjects), runs, repeat);
    const routes = measure(() => buildRouteConfigurations(store), runs, repeat);
    const routeObjects = (routes.last as ReturnType<typeof buildRouteConfigurations>).routes;
    const routeJson = measure(() => JSON.stringify(routeObjects), runs, repeat);
    results[services] = {
      envoyFilters: filterObjects.length,
      filtersMedianMs: round(filters.ms),
      filtersUsPerService: round((filters.ms * 1000) / services),
      filtersPeakHeapMb: round(filters.peakHeapMb),
      filtersVsStringify: round(filters.ms / filterJson.ms),
      routes: routeObjects.length,
      routesMedianMs: round(routes.ms),
      routesUsPerService: round((routes.ms * 1000) / services),
      routesPeakHeapMb: round(routes.peakHeapMb),
      routesVsStringify: round(routes.ms / routeJson.ms),
    };
    await new Promise((r) => setImmediate(r));
  }
  const small = results[1000]!;
  const large = results[10000]!;
  const summary = {
    ...results,
    growthFilters: round(large['filtersMedianMs']! / small['filtersMedianMs']!),
    growthRoutes: round(large['routesMedianMs']! / small['routesMedianMs']!),
  };
  console.log('generation', JSON.stringify(summary, null, 2));
  return summary;
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
