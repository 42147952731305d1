// The status controller's planning (issue 40), run by `npm run bench -- status`: 5,000 MetaProtocol ServiceEntries,
// each with a DestinationRule and a MetaRouter (bench/synthetic.ts, its even services), and the 5,000 MetaRouters
// as the API server lists them. Timed: planStatus (src/status/plan.ts), called as StatusController.runOnce calls it,
// with what statusInputsOf (src/app/serve-topics.ts) hands it: the store as view, store.rejected(), the issues and
// conflicts of the generation pass, the route acknowledgements (every proxy acknowledged the current generation).
// `fullPlanMs`: a run at start (no target has a status yet: every MetaRouter gets a write); `oneChangePlanMs`: the
// run after one MetaRouter changed (a new weight and generation) from the steady state (one write). The target
// of `oneChangeOverFull` is at most 0.01. `unchangedPlanMs` (a figure): a run with nothing changed (no write).
// bench/README.md, "`status`".
import { performance } from 'node:perf_hooks';
import { ConfigStore } from '../src/controller/store.ts';
import { generateAll } from '../src/envoyfilter/generate-all.ts';
import type { MetaRouter } from '../src/model/objects.ts';
import { parseConfigObject } from '../src/model/parse/parse.ts';
import type { RouteAcks } from '../src/model/route-acks.ts';
import { createGenerators } from '../src/plugins/registry.ts';
import type { StatusInputs } from '../src/status/controller.ts';
import { planStatus, type StatusPlan } from '../src/status/plan.ts';
import type { StatusTarget } from '../src/status/types.ts';
import { median, round } from './figures.ts';
import { SYNTHETIC_PARSE_OPTIONS, syntheticObjectsInListOrder } from './synthetic.ts';

/** The target: one MetaRouter change at most this share of a full plan. */
export const SHARE_TARGET = 0.01;
/** Synthetic services: the even ones (every other) have a MetaRouter; only those are kept. */
const SERVICES = 10_000;
const NOW = '2026-12-07T00:00:00Z';

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
  };
}

/** The MetaRouters as the API server lists them, each with `status` (undefined: none written yet). */
function listed(store: ConfigStore, status: (t: StatusTarget) => StatusTarget['status']): StatusTarget[] {
  return store.list('MetaRouter').map((mr) => {
    const t: StatusTarget = {
      ref: { kind: 'MetaRouter', namespace: mr.metadata.namespace, name: mr.metadata.name },
      generation: mr.metadata.generation ?? 0,
      uid: mr.metadata.uid ?? '',
      status: undefined,
    };
    return { ...t, status: status(t) };
  });
}

/** A run's planning: the controller's inputs of the moment, the listed targets, now. */
function timedPlan(
  inputs: () => StatusInputs,
  targets: readonly StatusTarget[],
): { ms: number; plan: StatusPlan } {
  const t0 = performance.now();
  const plan = planStatus({ ...inputs(), targets, now: NOW });
  return { ms: performance.now() - t0, plan };
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

export function benchStatus(): Promise<Record<string, unknown>> {
  const n = rounds(process.env['STATUS_ROUNDS']);
  const store = buildStore();
  const generated = generateAll(store, createGenerators(), { namespaceScope: false });
  const routeAcks = allAcked(store);
  const inputs = (): StatusInputs => ({
    view: store,
    rejected: store.rejected(),
    issues: generated.issues,
    conflicts: generated.conflicts,
    routeAcks,
  });
  const metaRouters = store.list('MetaRouter').length;
  const fullMs: number[] = [];
  const changeMs: number[] = [];
  const unchangedMs: number[] = [];
  let unchangedWrites = 0;
  let fullWrites = 0;
  let changeWrites = 0;
  for (let r = 0; r < n; r++) {
    const full = timedPlan(
      inputs,
      listed(store, () => undefined),
    );
    fullMs.push(full.ms);
    fullWrites = full.plan.patches.length;
    // The steady state: every target carries the status the full plan wrote.
    const written = new Map(full.plan.patches.map((p) => [p.target.uid, p.status]));
    const steady = timedPlan(
      inputs,
      listed(store, (t) => written.get(t.uid)),
    );
    unchangedMs.push(steady.ms);
    unchangedWrites += steady.plan.patches.length;
    const mr = store.list('MetaRouter')[(r * 997) % metaRouters] as MetaRouter;
    store.upsert(changed(mr, r));
    const after = listed(store, (t) => written.get(t.uid));
    const one = timedPlan(inputs, after);
    changeMs.push(one.ms);
    changeWrites = one.plan.patches.length;
  }
  if (unchangedWrites !== 0)
    throw new Error(`nothing changed, yet the plans wrote ${unchangedWrites} statuses`);
  if (changeWrites !== 1)
    throw new Error(`one MetaRouter changed, yet the plan writes ${changeWrites} statuses`);
  const fullPlanMs = median(fullMs);
  const oneChangePlanMs = median(changeMs);
  const figures = {
    serviceEntries: store.serviceEntries().length,
    metaRouters,
    rounds: n,
    fullPlanWrites: fullWrites,
    oneChangePlanWrites: changeWrites,
    fullPlanMs: round(fullPlanMs),
    oneChangePlanMs: round(oneChangePlanMs),
    unchangedPlanMs: round(median(unchangedMs)),
    oneChangeOverFull: Math.round((oneChangePlanMs / fullPlanMs) * 1000) / 1000,
    target: SHARE_TARGET,
  };
  console.log(JSON.stringify(figures));
  return Promise.resolve(figures);
}
