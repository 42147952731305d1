// The status controller's run (issue 40), run by `npm run bench -- status`: 5,000 MetaProtocol ServiceEntries, each
// with a DestinationRule and a MetaRouter (bench/synthetic.ts, its even services), and the 5,000 MetaRouters as the
// API server holds them. Timed: a whole run of a StatusController (src/status/controller.ts, `reconcile()`), with
// its inputs from statusInputsOf (src/app/serve-topics.ts: the store as view, store.rejected(), the issues and
// conflicts of the generation pass, the store's events through the `config` topic) and route acknowledgements
// (every proxy acknowledged the current generation), over an in-memory port that answers as the watch-fed target
// cache does (kube.ts: `changes()` since the last list, each write recorded as a change).
// `firstRunMs` (a figure): the first run (no target has a status yet: 5,000 writes, `firstRunWrites`); `fullPlanMs`:
// the first run of a new controller (a new leader) once every status is current: a list and a plan of every
// MetaRouter, no write; `oneChangePlanMs`: that controller's run after one MetaRouter changed (a new weight and
// generation, on the store and the API server) from the steady state (one write). The target of `oneChangeOverFull` is at most 0.01. `unchangedPlanMs` (a figure): a run
// with nothing changed (no write). bench/README.md, "`status`".
import { performance } from 'node:perf_hooks';
import { ConfigStore } from '../src/controller/store.ts';
import { generateAll } from '../src/envoyfilter/generate-all.ts';
import type { MetaRouter } from '../src/model/objects.ts';
import { parseConfigObject } from '../src/model/parse/parse.ts';
import type { RouteAcks } from '../src/model/route-acks.ts';
import { createGenerators } from '../src/plugins/registry.ts';
import { createTopics, statusInputsOf } from '../src/app/serve-topics.ts';
import { applyWrites } from '../src/kit/apply.ts';
import type { GenerateOutput } from '../src/envoyfilter/generate-all.ts';
import { StatusController, type StatusRunReport } from '../src/status/controller.ts';
import type { StatusPort } from '../src/status/kube.ts';
import { refKey } from '../src/status/conditions.ts';
import type { ObjectRef } from '../src/model/result.ts';
import type { StatusTarget } from '../src/status/types.ts';
import { systemClock } from '../src/util/clock.ts';
import { silentLogger } from '../src/util/logger.ts';
import { median, round } from './figures.ts';
import { SYNTHETIC_PARSE_OPTIONS, syntheticObjectsInListOrder } from './synthetic.ts';

/** The target: one MetaRouter change at most this share of a full plan. */
export const SHARE_TARGET = 0.01;
/** Synthetic services: the even ones (every other) have a MetaRouter; only those are kept. */
const SERVICES = 10_000;

/** Rounds: STATUS_ROUNDS (odd, 3 to 101), 7 by default. */
function rounds(value: string | undefined): number {
  const n = value === undefined ? 7 : Number(value);
  if (!Number.isInteger(n) || n < 3 || n > 101 || n % 2 === 0) {
    throw new Error(`STATUS_ROUNDS=${value}: want an odd whole number from 3 to 101`);
  }
  return n;
}

const indexOf = (name: string): number => Number(name.slice('svc-'.length));

/** The store of 5,000 ServiceEntries, DestinationRules and MetaRouters (the even synthetic services). */
function buildStore(): ConfigStore {
  const store = new ConfigStore({ rootNamespace: 'istio-system' });
  for (const raw of syntheticObjectsInListOrder(SERVICES)) {
    const name = (raw['metadata'] as { name: string }).name;
    if (indexOf(name) % 2 !== 0) continue;
    const metadata = raw['metadata'] as Record<string, unknown>;
    metadata['generation'] = 1;
    metadata['uid'] = `uid-${name}`;
    const parsed = parseConfigObject(raw, SYNTHETIC_PARSE_OPTIONS);
    if (!parsed?.ok) throw new Error(`synthetic object did not parse: ${JSON.stringify(parsed?.issues)}`);
    store.upsert(parsed.value);
  }
  return store;
}

/** Every MetaRouter serves one route, which two proxies acknowledged at the MetaRouter's current generation. */
function allAcked(store: ConfigStore): RouteAcks {
  return {
    routesOf: (namespace, name) => {
      const mr = store.get('MetaRouter', namespace, name);
      return [{ name: `${name}.${namespace}_20880`, generation: mr?.metadata.generation }];
    },
    summary: () => ({ subscribed: 2, acked: 2, pending: 0, rejected: 0 }),
    takeChanged: () => [],
    metaRouterOf: () => undefined,
  };
}

/**
 * The API server's MetaRouters in memory, as the status port over the watch-fed cache answers: `list()` every one,
 * `changes()` those changed since, a status patch recorded (a new object, as the patch answer) and reported there.
 */
class MemoryPort implements StatusPort {
  private readonly targets = new Map<string, StatusTarget>();
  private changed = new Map<string, ObjectRef>();
  writes = 0;

  constructor(store: ConfigStore) {
    for (const mr of store.list('MetaRouter')) this.put(targetOf(mr, undefined));
  }

  put(t: StatusTarget): void {
    this.targets.set(refKey(t.ref), t);
    this.changed.set(refKey(t.ref), t.ref);
  }

  get(ref: ObjectRef): StatusTarget | undefined {
    return this.targets.get(refKey(ref));
  }

  list(): Promise<StatusTarget[]> {
    this.changed = new Map();
    return Promise.resolve([...this.targets.values()]);
  }

  changes() {
    const refs = [...this.changed.values()];
    this.changed = new Map();
    return { changed: refs.map((r) => this.targets.get(refKey(r))!), deleted: [] };
  }

  patchStatus(p: Parameters<StatusPort['patchStatus']>[0]): Promise<void> {
    this.writes++;
    this.put({ ...p.target, status: p.status });
    return Promise.resolve();
  }

  createEvent(): Promise<void> {
    return Promise.resolve();
  }
}

function targetOf(mr: MetaRouter, status: StatusTarget['status']): StatusTarget {
  return {
    ref: { kind: 'MetaRouter', namespace: mr.metadata.namespace, name: mr.metadata.name },
    generation: mr.metadata.generation ?? 0,
    uid: mr.metadata.uid ?? '',
    status,
  };
}

/** One run of the controller, timed, and the status writes it made. */
async function timedRun(c: StatusController, port: MemoryPort): Promise<{ ms: number; writes: number }> {
  const before = port.writes;
  const t0 = performance.now();
  const r: StatusRunReport = await c.reconcile();
  const ms = performance.now() - t0;
  if (r.failures.length > 0 || r.listError) throw new Error(`status run failed: ${JSON.stringify(r)}`);
  return { ms, writes: port.writes - before };
}

/** A controller as serve builds it (kube-parts.ts), its inputs from the topics the store publishes to. */
function controllerOf(store: ConfigStore, generated: GenerateOutput, port: MemoryPort) {
  const topics = createTopics(systemClock, silentLogger);
  const off = store.subscribe((e) => topics.config.publish(e));
  topics.desired.publish({ issues: generated.issues, conflicts: generated.conflicts, objects: [] });
  topics.acks.publish(allAcked(store));
  const c = new StatusController({
    port,
    apply: applyWrites,
    inputs: statusInputsOf(store, topics),
    logger: silentLogger,
    quietMs: 60_000,
    maxWaitMs: 60_000,
    resyncMs: 0,
  });
  return { c, off };
}

/** MetaRouter `mr` with its split moved by one point and its generation bumped, as an edit on the API server does. */
function changed(mr: MetaRouter, k: number): MetaRouter {
  const routes = mr.spec.routes.map((r) =>
    r.name !== 'split'
      ? r
      : {
          ...r,
          route: r.route.map((d, j) => ({ ...d, weight: j === 0 ? 50 + (k % 40) : 50 - (k % 40) })),
        },
  );
  const generation = (mr.metadata.generation ?? 0) + 1;
  return { ...mr, metadata: { ...mr.metadata, generation }, spec: { ...mr.spec, routes } };
}

export async function benchStatus(): Promise<Record<string, unknown>> {
  const n = rounds(process.env['STATUS_ROUNDS']);
  const store = buildStore();
  const generated = generateAll(store, createGenerators(), { namespaceScope: false });
  const metaRouters = store.list('MetaRouter').length;
  const fullMs: number[] = [];
  const changeMs: number[] = [];
  const unchangedMs: number[] = [];
  let unchangedWrites = 0;
  let fullWrites = 0;
  let firstWrites = 0;
  let changeWrites = 0;
  const firstMs: number[] = [];
  for (let r = 0; r < n; r++) {
    const port = new MemoryPort(store);
    const first = controllerOf(store, generated, port);
    const start = await timedRun(first.c, port);
    firstMs.push(start.ms);
    firstWrites = start.writes;
    // The steady state: the run that reads back what the first one wrote writes nothing.
    const settle = await timedRun(first.c, port);
    if (settle.writes !== 0) throw new Error(`the statuses written are written again (${settle.writes})`);
    first.off();
    // A full plan: a new controller (a new leader) plans every MetaRouter, each status already current.
    const { c, off } = controllerOf(store, generated, port);
    const full = await timedRun(c, port);
    fullMs.push(full.ms);
    fullWrites += full.writes;
    const steady = await timedRun(c, port);
    unchangedMs.push(steady.ms);
    unchangedWrites += steady.writes;
    const mr = store.list('MetaRouter')[(r * 997) % metaRouters] as MetaRouter;
    const edited = changed(mr, r);
    store.upsert(edited);
    const ref = targetOf(edited, undefined);
    port.put({ ...ref, status: port.get(ref.ref)?.status });
    const one = await timedRun(c, port);
    changeMs.push(one.ms);
    changeWrites = one.writes;
    off();
  }
  if (fullWrites !== 0) throw new Error(`every status current, yet a full plan wrote ${fullWrites}`);
  if (unchangedWrites !== 0)
    throw new Error(`nothing changed, yet the runs wrote ${unchangedWrites} statuses`);
  if (changeWrites !== 1)
    throw new Error(`one MetaRouter changed, yet the run writes ${changeWrites} statuses`);
  const fullPlanMs = median(fullMs);
  const oneChangePlanMs = median(changeMs);
  const figures = {
    serviceEntries: store.serviceEntries().length,
    metaRouters,
    rounds: n,
    firstRunWrites: firstWrites,
    firstRunMs: round(median(firstMs)),
    oneChangePlanWrites: changeWrites,
    fullPlanMs: round(fullPlanMs),
    oneChangePlanMs: round(oneChangePlanMs),
    unchangedPlanMs: round(median(unchangedMs)),
    oneChangeOverFull: Math.round((oneChangePlanMs / fullPlanMs) * 1000) / 1000,
    target: SHARE_TARGET,
  };
  console.log(JSON.stringify(figures));
  return figures;
}
