// Generation benchmark: all EnvoyFilters (generateAll) and all MetaProtocol routes (buildRouteConfigurations) for
// 1,000 and 10,000 synthetic MetaProtocol services, and all EnvoyFilters for a mixed mesh of the same sizes
// (MetaProtocol, Redis, native Dubbo with authorization policies). What it measures, how to read its figures and
// why: bench/README.md. In the same rounds, the webhook rules over the MetaProtocol-only mesh's objects
// (`validationOverGeneration10k`).
import { PerformanceObserver, performance, type PerformanceEntry } from 'node:perf_hooks';
import { ConfigStore } from '../src/controller/store.ts';
import { generateAll } from '../src/envoyfilter/generate-all.ts';
import { configConflicts } from '../src/model/conflicts/conflicts.ts';
import { SOURCE_ANNOTATION } from '../src/model/constants.ts';
import type { Generator } from '../src/model/generator.ts';
import { sourceKey } from '../src/model/names.ts';
import type { ConfigObject } from '../src/model/objects.ts';
import { parseConfigObject } from '../src/model/parse/parse.ts';
import { refOf, type ConfigIssue } from '../src/model/result.ts';
import { ruleIssues } from '../src/model/validate/rules.ts';
import { createGenerators } from '../src/plugins/registry.ts';
import { buildRouteConfigurations } from '../src/xds-rds/routes.ts';
import { median, round } from './figures.ts';
import { benchIncremental, GROWTH_TARGET, SHARE_TARGET } from './incremental.ts';
import { SYNTHETIC_PARSE_OPTIONS, syntheticObjectsInListOrder, type SyntheticMix } from './synthetic.ts';

const SIZES = [1000, 10000] as const;

/** The target of `mixedOverMetaProtocol10k`: the mixed mesh costs at most this much more per service. */
const MIXED_TARGET = 1.3;

/** The target of `validationOverGeneration10k`: the webhook rules cost at most this share of `generateAll`. */
const VALIDATION_TARGET = 0.2;

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

/** The store of a mesh, and its parsed objects in the order they were stored. */
function buildStore(services: number, mix: SyntheticMix): { store: ConfigStore; objects: ConfigObject[] } {
  const store = new ConfigStore({ rootNamespace: 'istio-system' });
  const objects: ConfigObject[] = [];
  for (const raw of syntheticObjectsInListOrder(services, mix)) {
    const parsed = parseConfigObject(raw, SYNTHETIC_PARSE_OPTIONS);
    if (!parsed?.ok) throw new Error(`synthetic object did not parse: ${JSON.stringify(parsed?.issues)}`);
    store.upsert(parsed.value);
    objects.push(parsed.value);
  }
  return { store, objects };
}

/**
 * The per-object rules of src/model/validate/*.ts, as the parse path runs them on an object that parsed without
 * errors: a function of the objects that runs every rule of each object's kind, one loop over the objects. Refs are
 * taken before, as the parser holds its object's ref.
 */
function validationRun(objects: readonly ConfigObject[]): () => (readonly ConfigIssue[])[] {
  const refs = objects.map(refOf);
  return () => {
    const out: (readonly ConfigIssue[])[] = [];
    for (let i = 0; i < objects.length; i++)
      out.push(ruleIssues(objects[i] as ConfigObject, refs[i], SYNTHETIC_PARSE_OPTIONS.kinds));
    return out;
  };
}

/**
 * Once, at bench start: every synthetic object of both meshes parses without issues (warnings included), and
 * generation at both sizes reports no issue and gives every ServiceEntry EnvoyFilters of its own.
 */
function checkSyntheticMeshes(generators: readonly Generator[]): void {
  for (const mix of ['metaprotocol', 'mixed'] as const) {
    for (const services of SIZES) {
      const store = new ConfigStore({ rootNamespace: 'istio-system' });
      const sources = new Set<string>();
      for (const raw of syntheticObjectsInListOrder(services, mix)) {
        const parsed = parseConfigObject(raw, SYNTHETIC_PARSE_OPTIONS);
        if (!parsed?.ok || parsed.issues.length > 0) {
          throw new Error(`synthetic object (${mix}) has issues: ${JSON.stringify(parsed?.issues)}`);
        }
        store.upsert(parsed.value);
        const md = parsed.value.metadata;
        if (parsed.value.kind === 'ServiceEntry')
          sources.add(sourceKey('ServiceEntry', md.namespace, md.name));
      }
      const out = generateAll(store, generators, { namespaceScope: false });
      if (out.issues.length > 0 || out.failedSources.size > 0) {
        throw new Error(
          `generation of the ${mix} mesh has issues: ${JSON.stringify(out.issues.slice(0, 5))}`,
        );
      }
      for (const o of out.objects) sources.delete(o.metadata.annotations?.[SOURCE_ANNOTATION] ?? '');
      if (sources.size > 0) {
        throw new Error(
          `${sources.size} services of the ${mix} mesh generate no EnvoyFilter, e.g. ${[...sources][0]}`,
        );
      }
    }
  }
}

/** Larger than the last-level cache of the machines here (32 MiB): sweeping it evicts everything else. */
let evictionBuffer: Uint8Array | undefined;

/** Allocated on first use: bench/run.ts loads every benchmark, and the soak measures its process's memory. */
function evictCaches(): void {
  const buffer = (evictionBuffer ??= new Uint8Array(64 * 2 ** 20));
  for (let i = 0; i < buffer.length; i += 64) buffer[i] = (buffer[i] ?? 0) + 1;
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
/** Per size: each kind of output, and the webhook rules over the same objects (MetaProtocol-only mesh). */
type SizeSamples = Record<Kind, KindSamples> & { readonly validation: Sample[] };
/** What the mixed mesh is measured for: routes are MetaProtocol-only, so EnvoyFilters. */
const MIXED_KINDS: readonly Kind[] = ['filters'];

function emptySamples(): SizeSamples {
  const kind = (): KindSamples => ({ generate: [], json: [], copy: [], heap: [], outputs: 0 });
  return { filters: kind(), routes: kind(), validation: [] };
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

/**
 * One round of one mesh at one size: the kinds of output of `kinds` (routes exist for MetaProtocol only); with
 * `validate`, then the webhook rules over the mesh's objects, by the same method.
 */
function measureRound(
  services: number,
  mix: SyntheticMix,
  kinds: readonly Kind[],
  generators: readonly Generator[],
  into: SizeSamples,
  validate = false,
): void {
  const { store, objects } = buildStore(services, mix);
  // The conflicts are computed once per pass, by generation (whose time includes them), and shared: the routes
  // take them, as they do in a pass that builds both.
  const conflicts = configConflicts(store);
  const runs: Record<Kind, KindRun> = {
    filters: {
      run: () => generateAll(store, generators, { namespaceScope: false }),
      objectsOf: (r) => (r as ReturnType<typeof generateAll>).objects,
    },
    routes: {
      run: () => buildRouteConfigurations(store, conflicts),
      objectsOf: (r) => (r as ReturnType<typeof buildRouteConfigurations>).routes,
    },
  };
  // Warm-up runs; their outputs are held to the end of the round, as the controller holds its last output while
  // it builds the next (bench/README.md, "Hidden classes").
  const previous = new Map(kinds.map((k) => [k, runs[k].run()]));
  const repeat = Math.max(1, Math.round(WORK_PER_SAMPLE / services));
  for (const k of kinds) measureKind(runs[k], previous.get(k), repeat, into[k]);
  if (validate) {
    const validation = validationRun(objects);
    // Warm-up, as for generation: its output is held to the end of the round too.
    const warm = validation();
    into.validation.push(sample(validation, repeat).sample);
    if (warm.length !== objects.length) throw new Error('validation skipped objects');
  }
}

const ms = (xs: readonly Sample[]) => median(xs.map((x) => x.ms));

/** The figures of one size: a block per kind of output, `<kind>MedianMs`, `<kind>UsPerService`, ... */
function figures(
  services: number,
  s: SizeSamples,
  pauses: GcPauses | undefined,
  kinds: readonly Kind[] = KINDS,
): Record<string, number> {
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
  return Object.assign({}, ...kinds.map(kind)) as Record<string, number>;
}

export async function benchGenerate(): Promise<Record<string, unknown>> {
  const rounds = roundsFromEnv(process.env['GENERATE_ROUNDS']);
  const diagnose = process.env['GENERATE_DIAGNOSE'] === '1';
  const generators = createGenerators();
  checkSyntheticMeshes(generators);
  const pauses = diagnose ? new GcPauses() : undefined;
  const [small, large] = [emptySamples(), emptySamples()];
  // The mixed mesh, in the same rounds (bench/README.md, "The mixed mesh").
  const [mixedSmall, mixedLarge] = [emptySamples(), emptySamples()];
  const pause = () => new Promise((resolve) => setImmediate(resolve));
  for (let r = 0; r < rounds; r++) {
    measureRound(SIZES[0], 'metaprotocol', KINDS, generators, small, true);
    await pause();
    measureRound(SIZES[1], 'metaprotocol', KINDS, generators, large, true);
    await pause();
    measureRound(SIZES[0], 'mixed', MIXED_KINDS, generators, mixedSmall);
    await pause();
    measureRound(SIZES[1], 'mixed', MIXED_KINDS, generators, mixedLarge);
    await pause();
    console.error(`generation: round ${r + 1}/${rounds} done`);
  }
  await pauses?.stop();
  // Per round, the value of one measure in `a` over the same in `b` (measured seconds apart), in round order.
  const perRound = (
    a: SizeSamples,
    b: SizeSamples,
    pick: (s: SizeSamples) => readonly Sample[],
    value = (x: Sample) => x.ms,
  ) => pick(a).map((x, i) => value(x) / value(pick(b)[i] as Sample));
  // The growth figures of one mesh: per round t(10k)/t(1k), medians over rounds.
  const growthFigures = (lo: SizeSamples, hi: SizeSamples, kinds: readonly Kind[]) => {
    const ratios = (pick: (s: SizeSamples) => readonly Sample[], value?: (x: Sample) => number) =>
      perRound(hi, lo, pick, value);
    const growth = (pick: (s: SizeSamples) => readonly Sample[], value?: (x: Sample) => number) =>
      round(median(ratios(pick, value)));
    // Per round, the generation's growth divided by the reference workload's; the median of those quotients.
    const overCopy = (k: Kind) => {
      const copy = ratios((s) => s[k].copy);
      return round(median(ratios((s) => s[k].generate).map((g, i) => g / (copy[i] as number))));
    };
    const outsideGc = (x: Sample) => x.ms - (pauses?.within(x) ?? 0);
    // `growthFilters<suffix>` and `growthRoutes<suffix>`, for the kinds measured.
    const perKind = (suffix: string, figure: (k: Kind) => number) =>
      Object.fromEntries(
        kinds.map((k) => [`growth${k === 'filters' ? 'Filters' : 'Routes'}${suffix}`, figure(k)]),
      ) as Record<string, number>;
    return {
      ...perKind('', (k) => growth((s) => s[k].generate)),
      ...(pauses && perKind('OutsideGc', (k) => growth((s) => s[k].generate, outsideGc))),
      ...perKind('Copy', (k) => growth((s) => s[k].copy)),
      ...perKind('OverCopy', overCopy),
    };
  };
  // The mixed mesh's EnvoyFilter time over the MetaProtocol-only one's, same size (so per service too); with
  // `copy`, the same for the reference workload (what the larger mixed output costs to build and keep).
  const mixedOver = (mixed: SizeSamples, metaProtocol: SizeSamples, copy = false) =>
    round(median(perRound(mixed, metaProtocol, (s) => (copy ? s.filters.copy : s.filters.generate))));
  // The webhook rules' time over generateAll's, same size, same round; and the rules' median time.
  const validationOver = (s: SizeSamples) =>
    round(median(s.validation.map((v, i) => v.ms / (s.filters.generate[i] as Sample).ms)));
  const summary = {
    rounds,
    [SIZES[0]]: figures(SIZES[0], small, pauses),
    [SIZES[1]]: figures(SIZES[1], large, pauses),
    ...growthFigures(small, large, KINDS),
    mixed: {
      [SIZES[0]]: figures(SIZES[0], mixedSmall, pauses, MIXED_KINDS),
      [SIZES[1]]: figures(SIZES[1], mixedLarge, pauses, MIXED_KINDS),
      ...growthFigures(mixedSmall, mixedLarge, MIXED_KINDS),
    },
    mixedOverMetaProtocol1k: mixedOver(mixedSmall, small),
    mixedOverMetaProtocol10k: mixedOver(mixedLarge, large),
    mixedOverMetaProtocol10kCopy: mixedOver(mixedLarge, large, true),
    validationMs1k: round(ms(small.validation)),
    validationMs10k: round(ms(large.validation)),
    validationOverGeneration1k: validationOver(small),
    validationOverGeneration10k: validationOver(large),
    incremental: await benchIncremental(generators, rounds),
  };
  console.log('generation', JSON.stringify(summary, null, 2));
  console.log(
    `generation: mixed over MetaProtocol-only, EnvoyFilter µs per service at 10k: ` +
      `${summary.mixedOverMetaProtocol10k} (target ≤ ${MIXED_TARGET}); reference workload: ` +
      `${summary.mixedOverMetaProtocol10kCopy}`,
  );
  console.log(
    `generation: validation over generateAll at 10k: ${summary.validationOverGeneration10k} ` +
      `(target ≤ ${VALIDATION_TARGET}; ${summary.validationMs10k} ms)`,
  );
  const inc = summary.incremental;
  console.log(
    `generation: one changed service, incremental, 10k over 1k: EnvoyFilters ${inc['changeFiltersGrowth']}, ` +
      `routes ${inc['changeRoutesGrowth']} (target ≤ ${GROWTH_TARGET}); over a full rebuild at 10k: EnvoyFilters ` +
      `${inc['changeFiltersOverFull10k']}, routes ${inc['changeRoutesOverFull10k']} (target ≤ ${SHARE_TARGET})`,
  );
  return summary;
}
