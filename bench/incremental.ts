// Incremental regeneration (issue 22), run by `npm run bench -- generate`: the cost of one changed service with
// IncrementalGenerator (EnvoyFilters) and IncrementalRoutes plus patchSnapshot (routes), at 1,000 and 10,000
// MetaProtocol services, against a full rebuild at 10,000 in the same round. bench/README.md, "Incremental".
import { performance } from 'node:perf_hooks';
import { ConfigStore } from '../src/controller/store.ts';
import { generateAll } from '../src/envoyfilter/generate-all.ts';
import { IncrementalGenerator } from '../src/envoyfilter/incremental.ts';
import type { Generator } from '../src/model/generator.ts';
import type { ConfigObject } from '../src/model/objects.ts';
import { parseConfigObject } from '../src/model/parse/parse.ts';
import { IncrementalRoutes } from '../src/xds-rds/incremental-routes.ts';
import { buildRouteConfigurations } from '../src/xds-rds/routes.ts';
import { SnapshotCache } from '../src/xds-rds/snapshot.ts';
import { median, round } from './figures.ts';
import { SYNTHETIC_PARSE_OPTIONS, syntheticObjectsInListOrder } from './synthetic.ts';

/** The targets: 10k at most this many times 1k, and at most this share of a full rebuild at 10k. */
export const GROWTH_TARGET = 2;
export const SHARE_TARGET = 0.05;

/** Changes timed per sample (their mean is the sample). */
const CHANGES = 200;

type Raw = Record<string, unknown>;

function parsed(raw: unknown): ConfigObject {
  const p = parseConfigObject(raw, SYNTHETIC_PARSE_OPTIONS);
  if (!p?.ok) throw new Error(`synthetic object did not parse: ${JSON.stringify(p?.issues)}`);
  return p.value;
}

/**
 * Change k of a mesh of `services`: alternately a ServiceEntry (one more address) and a MetaRouter (another
 * traffic split), of a service spread over the mesh; the parsed object, ready to upsert.
 */
function change(raws: ReadonlyMap<string, Raw>, services: number, k: number): ConfigObject {
  const i = ((k * 7919) % services) & ~1; // even services have a MetaRouter
  const kind = k % 2 === 0 ? 'ServiceEntry' : 'MetaRouter';
  const raw = raws.get(`${kind}/svc-${i}`) as Raw & { spec: Raw };
  if (kind === 'ServiceEntry') {
    const addresses = [...(raw.spec['addresses'] as string[]), `240.242.${k & 255}.1`];
    return parsed({ ...raw, spec: { ...raw.spec, addresses } });
  }
  const routes = structuredClone(raw.spec['routes']) as { route: { weight?: number }[] }[];
  const split = routes[1]?.route ?? [];
  if (split[0] && split[1]) [split[0].weight, split[1].weight] = [50 + (k % 40), 50 - (k % 40)];
  return parsed({ ...raw, spec: { ...raw.spec, routes } });
}

interface Mesh {
  readonly store: ConfigStore;
  readonly filters: IncrementalGenerator;
  readonly routes: IncrementalRoutes;
  readonly cache: SnapshotCache;
  readonly raws: Map<string, Raw>;
  readonly services: number;
  changes: number;
}

function mesh(services: number, generators: readonly Generator[]): Mesh {
  const store = new ConfigStore({ rootNamespace: 'istio-system' });
  const raws = new Map<string, Raw>();
  for (const raw of syntheticObjectsInListOrder(services)) {
    const o = parsed(raw);
    store.upsert(o);
    raws.set(`${o.kind}/${o.metadata.name}`, raw);
  }
  const filters = new IncrementalGenerator(store, generators, { namespaceScope: false });
  const routes = new IncrementalRoutes(store);
  const cache = new SnapshotCache();
  filters.update();
  patch(routes, cache);
  return { store, filters, routes, cache, raws, services, changes: 0 };
}

function patch(routes: IncrementalRoutes, cache: SnapshotCache): void {
  const { changed } = routes.update();
  cache.patchRoutes({ names: changed, route: (n) => routes.route(n), isHeld: (n) => routes.isHeld(n) });
}

/** Mean ms per change of `regenerate` after each of CHANGES changes (the store's own work is not timed). */
function perChange(m: Mesh, regenerate: () => void): number {
  let total = 0;
  for (let c = 0; c < CHANGES; c++) {
    m.store.upsert(change(m.raws, m.services, m.changes++));
    const start = performance.now();
    regenerate();
    total += performance.now() - start;
  }
  return total / CHANGES;
}

function timed(fn: () => unknown): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

interface Round {
  filters: [number, number];
  routes: [number, number];
  fullFilters: number;
  fullRoutes: number;
  /** The bare cost of copying the complete desired set of EnvoyFilters at 10k (what each update returns). */
  copy: number;
}

export async function benchIncremental(
  generators: readonly Generator[],
  rounds: number,
): Promise<Record<string, number>> {
  const [small, large] = [mesh(1000, generators), mesh(10000, generators)];
  const fullCache = new SnapshotCache();
  const samples: Round[] = [];
  const filters = (m: Mesh) => perChange(m, () => m.filters.update());
  const routes = (m: Mesh) => perChange(m, () => patch(m.routes, m.cache));
  // Warm-up: both sizes run compiled code.
  for (const m of [small, large]) {
    filters(m);
    routes(m);
  }
  const desired = large.filters.update().objects;
  const copies = () =>
    timed(() => {
      for (let c = 0; c < CHANGES; c++) desired.slice();
    }) / CHANGES;
  for (let r = 0; r < rounds; r++) {
    samples.push({
      copy: copies(),
      filters: [filters(small), filters(large)],
      routes: [routes(small), routes(large)],
      fullFilters: timed(() => generateAll(large.store, generators, { namespaceScope: false })),
      fullRoutes: timed(() => {
        const built = buildRouteConfigurations(large.store);
        fullCache.setRoutes(built.routes, built.held);
      }),
    });
    await new Promise((resolve) => setImmediate(resolve));
  }
  large.filters.stop();
  small.filters.stop();
  const med = (f: (s: Round) => number) => median(samples.map(f));
  const fig = (f: (s: Round) => number, digits = 100) => Math.round(med(f) * digits) / digits;
  return {
    changeFiltersMs1k: fig((s) => s.filters[0], 1000),
    changeFiltersMs10k: fig((s) => s.filters[1], 1000),
    fullFiltersMs10k: round(med((s) => s.fullFilters)),
    changeFiltersGrowth: round(med((s) => s.filters[1] / s.filters[0])),
    changeFiltersOverFull10k: fig((s) => s.filters[1] / s.fullFilters, 10000),
    outputCopyMs10k: fig((s) => s.copy, 1000),
    changeFiltersOverCopy10k: round(med((s) => s.filters[1] / s.copy)),
    changeRoutesMs1k: fig((s) => s.routes[0], 1000),
    changeRoutesMs10k: fig((s) => s.routes[1], 1000),
    fullRoutesMs10k: round(med((s) => s.fullRoutes)),
    changeRoutesGrowth: round(med((s) => s.routes[1] / s.routes[0])),
    changeRoutesOverFull10k: fig((s) => s.routes[1] / s.fullRoutes, 10000),
  };
}
