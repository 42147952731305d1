// Generation benchmark: all EnvoyFilters (generateAll) and all MetaProtocol routes (buildRouteConfigurations) for
// 1,000 and 10,000 synthetic services. What it measures, how to read its figures and why: bench/README.md.
import { PerformanceObserver, performance, type PerformanceEntry } from 'node:perf_hooks';
import { ConfigStore } from '../src/controller/store.ts';
import { generateAll } from '../src/envoyfilter/generate-all.ts';
import type { Generator } from '../src/model/generator.ts';
import { parseConfigObject } from '../src/model/parse.ts';
import { createGenerators } from '../src/plugins/registry.ts';
import { buildRouteConfigurations } from '../src/xds-rds/routes.ts';
import { syntheticObjectsInListOrder } from './synthetic.ts';

const SIZES = [1000, 10000] as const;

/** Generations per sample times size: both sizes do the same work in a sample. */
const WORK_PER_SAMPLE = 10000;

/** Rounds per run: GENERATE_ROUNDS (an odd count from 3 to 201), 11 by default. */
function roundsFromEnv(value: string | undefined): number {
  if (value === undefined || value === '') return 11;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 3 || n > 201 || n % 2 === 0) {
    throw new Error(`GENERATE_ROUNDS=${value}: want an odd whole number from 3 to 201`);
  }
  return n;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)] ?? NaN;
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
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

function buildStore(services: number): ConfigStore {
  const store = new ConfigStore({ rootNamespace: 'istio-system' });
  for (const raw of syntheticObjectsInListOrder(services)) {
    const parsed = parseConfigObject(raw);
    if (!parsed?.ok) throw new Error(`synthetic object did not parse: ${JSON.stringify(parsed?.issues)}`);
    store.upsert(parsed.value);
  }
  return store;
}

/** Larger than the last-level cache of the machines here (32 MiB): sweeping it evicts everything else. */
const EVICTION_BUFFER = new Uint8Array(64 * 2 ** 20);

function evictCaches(): void {
  for (let i = 0; i < EVICTION_BUFFER.length; i += 64) EVICTION_BUFFER[i] = (EVICTION_BUFFER[i] ?? 0) + 1;
}

/** One timed sample: the mean wall time of `repeat` calls, and the timed windows (for the GC pauses inside). */
interface Sample {
  readonly ms: number;
  readonly windows: readonly (readonly [number, number])[];
  readonly repeat: number;
}

/**
 * Times `repeat` calls of fn, each with the caches evicted before it (outside its window), keeping every output
 * to the end of the sample. Returns the last output.
 */
function sample(fn: () => unknown, repeat: number): { sample: Sample; last: unknown } {
  gc();
  const kept: unknown[] = [];
  const windows: [number, number][] = [];
  for (let r = 0; r < repeat; r++) {
    evictCaches();
    const start = performance.now();
    kept.push(fn());
    windows.push([start, performance.now()]);
  }
  const ms = windows.reduce((t, [a, b]) => t + (b - a), 0) / repeat;
  return { sample: { ms, windows, repeat }, last: kept[kept.length - 1] };
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

/** Garbage-collection pauses of the main thread (GENERATE_DIAGNOSE only). */
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
  readonly generate: Sample[];
  /** JSON.stringify of the generated output. */
  readonly json: Sample[];
  /** The reference workload: a deep copy of the generated output. */
  readonly copy: Sample[];
  readonly heap: HeapUse[];
  outputs: number;
}

type Kind = 'filters' | 'routes';
const KINDS: readonly Kind[] = ['filters', 'routes'];
type SizeSamples = Record<Kind, KindSamples>;

function emptySamples(): SizeSamples {
  const kind = (): KindSamples => ({ generate: [], json: [], copy: [], heap: [], outputs: 0 });
  return { filters: kind(), routes: kind() };
}

/** A kind of output: how to generate it from a store and where its objects are in the result. */
interface KindRun {
  readonly run: () => unknown;
  readonly objectsOf: (result: unknown) => readonly unknown[];
}

/** Generation, JSON.stringify and deep copy of its output, heap. `previous`: the output of a run before. */
function measureKind(kind: KindRun, previous: unknown, repeat: number, into: KindSamples): void {
  const generated = sample(kind.run, repeat);
  const objects = kind.objectsOf(generated.last);
  into.generate.push(generated.sample);
  into.json.push(sample(() => JSON.stringify(objects), repeat).sample);
  into.copy.push(sample(() => deepCopy(objects), repeat).sample);
  into.heap.push(heapUse(kind.run));
  if (kind.objectsOf(previous).length !== objects.length) throw new Error('generation is not deterministic');
  into.outputs = objects.length;
}

function measureRound(services: number, generators: readonly Generator[], into: SizeSamples): void {
  const store = buildStore(services);
  const runs: Record<Kind, KindRun> = {
    filters: {
      run: () => generateAll(store, generators, { namespaceScope: false }),
      objectsOf: (r) => (r as ReturnType<typeof generateAll>).objects,
    },
    routes: {
      run: () => buildRouteConfigurations(store),
      objectsOf: (r) => (r as ReturnType<typeof buildRouteConfigurations>).routes,
    },
  };
  // Warm-up runs; their outputs are held to the end of the round, as the controller holds its last output while
  // it builds the next (bench/README.md, "Hidden classes").
  const previous = { filters: runs.filters.run(), routes: runs.routes.run() };
  const repeat = Math.max(1, Math.round(WORK_PER_SAMPLE / services));
  for (const k of KINDS) measureKind(runs[k], previous[k], repeat, into[k]);
}

const ms = (xs: readonly Sample[]) => median(xs.map((x) => x.ms));

/** The figures of one size: a block per kind of output, `<kind>MedianMs`, `<kind>UsPerService`, ... */
function figures(services: number, s: SizeSamples, pauses: GcPauses | undefined): Record<string, number> {
  const kind = (name: Kind): Record<string, number> => {
    const k = s[name];
    return {
      [name === 'filters' ? 'envoyFilters' : 'routes']: k.outputs,
      [`${name}MedianMs`]: round(ms(k.generate)),
      [`${name}UsPerService`]: round((ms(k.generate) * 1000) / services),
      ...(pauses && {
        [`${name}GcShare`]: round(median(k.generate.map((x) => pauses.within(x))) / ms(k.generate)),
      }),
      [`${name}PeakHeapMb`]: round(Math.max(...k.heap.map((x) => x.peak)) / 2 ** 20),
      [`${name}RetainedMb`]: round(median(k.heap.map((x) => x.retained)) / 2 ** 20),
      [`${name}VsStringify`]: round(ms(k.generate) / ms(k.json)),
      [`${name}CopyMs`]: round(ms(k.copy)),
    };
  };
  return { ...kind('filters'), ...kind('routes') };
}

export async function benchGenerate(): Promise<Record<string, unknown>> {
  const rounds = roundsFromEnv(process.env['GENERATE_ROUNDS']);
  const diagnose = process.env['GENERATE_DIAGNOSE'] === '1';
  const generators = createGenerators();
  const pauses = diagnose ? new GcPauses() : undefined;
  const [small, large] = [emptySamples(), emptySamples()];
  for (let r = 0; r < rounds; r++) {
    measureRound(SIZES[0], generators, small);
    await new Promise((resolve) => setImmediate(resolve));
    measureRound(SIZES[1], generators, large);
    await new Promise((resolve) => setImmediate(resolve));
    console.error(`generation: round ${r + 1}/${rounds} done`);
  }
  await pauses?.stop();
  // Per round t(10k)/t(1k) of one measure (the two sizes measured seconds apart), in round order.
  const ratios = (pick: (s: SizeSamples) => readonly Sample[], value = (x: Sample) => x.ms) =>
    pick(large).map((x, i) => value(x) / value(pick(small)[i] as Sample));
  const growth = (pick: (s: SizeSamples) => readonly Sample[], value?: (x: Sample) => number) =>
    round(median(ratios(pick, value)));
  // Per round, the generation's growth divided by the reference workload's; the median of those quotients.
  const overCopy = (k: Kind) => {
    const copy = ratios((s) => s[k].copy);
    return round(median(ratios((s) => s[k].generate).map((g, i) => g / (copy[i] as number))));
  };
  const outsideGc = (x: Sample) => x.ms - (pauses?.within(x) ?? 0);
  // `growthFilters<suffix>` and `growthRoutes<suffix>`.
  const perKind = (suffix: string, figure: (k: Kind) => number) => ({
    [`growthFilters${suffix}`]: figure('filters'),
    [`growthRoutes${suffix}`]: figure('routes'),
  });
  const summary = {
    rounds,
    [SIZES[0]]: figures(SIZES[0], small, pauses),
    [SIZES[1]]: figures(SIZES[1], large, pauses),
    ...perKind('', (k) => growth((s) => s[k].generate)),
    ...(pauses && perKind('OutsideGc', (k) => growth((s) => s[k].generate, outsideGc))),
    ...perKind('Copy', (k) => growth((s) => s[k].copy)),
    ...perKind('OverCopy', overCopy),
  };
  console.log('generation', JSON.stringify(summary, null, 2));
  return summary;
}
