// The status plan kept from run to run (src/status/planner.ts): a run plans again only the targets whose inputs
// changed, and what it plans is what planStatus plans for the same inputs (checked on every run below). Each kind
// of input invalidates the targets it touches: the object's generation, the store's rejection, the issues of a
// generation pass, a conflict, held state, the proxies' answers to a MetaRouter's routes, a listener rejection, a
// status edited by someone else (seen on a resync list), a deletion; a store change whose event was missed is
// repaired by the resync list.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ListenerRejection } from '../../src/model/listener-rejections.ts';
import type { ConfigObject } from '../../src/model/objects.ts';
import { issue, type ConfigIssue, type ObjectRef } from '../../src/model/result.ts';
import type { RouteAckCounts, RouteAcks } from '../../src/model/route-acks.ts';
import type { ConfigEvent } from '../../src/model/view.ts';
import { refKey } from '../../src/status/conditions.ts';
import { planStatus, type StatusPlan } from '../../src/status/plan.ts';
import { StatusPlanner } from '../../src/status/planner.ts';
import { Slicer, SlicesStopped } from '../../src/util/slices.ts';
import type { StatusInputs, StatusTarget } from '../../src/status/types.ts';
import { gateway, metaRouter, serviceEntry, storeOf } from '../support/builders.ts';

const NOW = '2026-02-03T04:05:06Z';
const HOST = 'svc.shop.svc.cluster.local';
const REF: ObjectRef = { kind: 'MetaRouter', namespace: 'shop', name: 'r' };
const META_PORT = [{ number: 20880, name: 'tcp-metaprotocol-dubbo' }];

/** Ten services `svc-<i>`, each with a MetaRouter `r-<i>`, and the one under test (`svc`, `r`). */
function objects(): ConfigObject[] {
  const out: ConfigObject[] = [
    serviceEntry('shop', 'svc', { hosts: [HOST], ports: META_PORT }),
    metaRouter('shop', 'r', { hosts: [HOST] }, { generation: 1, uid: 'uid-r' }),
  ];
  for (let i = 0; i < 10; i++) {
    const host = `svc-${i}.shop.svc.cluster.local`;
    out.push(serviceEntry('shop', `svc-${i}`, { hosts: [host], ports: META_PORT }));
    out.push(metaRouter('shop', `r-${i}`, { hosts: [host] }, { generation: 1, uid: `uid-r-${i}` }));
  }
  return out;
}

/** Proxies' answers the test moves: per route, the counts; `moved` is what takeChanged hands over. */
class Acks implements RouteAcks {
  readonly counts = new Map<string, RouteAckCounts>();
  moved: string[] = [];
  routesOf(namespace: string, name: string) {
    return [{ name: `${name}.${namespace}_20880`, generation: 1 }];
  }
  summary(route: string) {
    return this.counts.get(route) ?? { subscribed: 1, acked: 1, pending: 0, rejected: 0 };
  }
  takeChanged() {
    const out = this.moved;
    this.moved = [];
    return out;
  }
  metaRouterOf(route: string) {
    const [name, rest] = route.split('.');
    return `${rest?.split('_')[0]}/${name}`;
  }
}

/**
 * A store, the API server's MetaRouters, a planner and the inputs of each run (the store's events since the last
 * run). `run()` plans, checks the plan against planStatus, and writes the patches back as the API server would.
 */
function harness() {
  const store = storeOf(objects());
  let changes: ConfigEvent[] = [];
  store.subscribe((e) => changes.push(e));
  const api = new Map<string, StatusTarget>();
  for (const mr of store.list('MetaRouter')) {
    const ref = { kind: 'MetaRouter', namespace: mr.metadata.namespace, name: mr.metadata.name };
    api.set(refKey(ref), { ref, generation: 1, uid: mr.metadata.uid ?? '', status: undefined });
  }
  const planner = new StatusPlanner();
  planner.listed([...api.values()], false);
  const state: {
    issues: readonly ConfigIssue[];
    listenerRejections?: readonly ListenerRejection[];
    acks: Acks;
  } = { issues: [], acks: new Acks() };
  const sorted = (p: StatusPlan) =>
    [...p.patches].sort((a, b) => (refKey(a.target.ref) < refKey(b.target.ref) ? -1 : 1));
  const run = (): StatusPlan => {
    const inputs: StatusInputs = {
      view: store,
      rejected: store.rejected(),
      issues: state.issues,
      routeAcks: state.acks,
      ...(state.listenerRejections ? { listenerRejections: state.listenerRejections } : {}),
      changes,
    };
    changes = [];
    const plan = planner.plan(inputs, NOW);
    const full = planStatus({ ...inputs, targets: [...api.values()], now: NOW });
    assert.deepEqual(sorted(plan), sorted(full), 'the patches planStatus plans');
    assert.deepEqual(plan.events, full.events, 'the Events planStatus plans');
    const written = plan.patches.map((p) => ({ ...p.target, status: p.status }));
    for (const t of written) api.set(refKey(t.ref), t);
    planner.changed({ changed: written, deleted: [] });
    return plan;
  };
  /** Runs until nothing is written: the steady state. */
  const settle = () => {
    run();
    assert.deepEqual(run().patches, [], 'the statuses written are current');
  };
  const condition = (p: StatusPlan, type: string, ref: ObjectRef = REF) =>
    p.patches
      .find((x) => refKey(x.target.ref) === refKey(ref))
      ?.status.conditions.find((c) => c.type === type);
  return {
    store,
    api,
    planner,
    state,
    run,
    settle,
    condition,
    dropChanges: () => {
      changes = [];
    },
  };
}

const only = (p: StatusPlan) => p.patches.map((x) => refKey(x.target.ref));

describe('status/planner: plans what changed', () => {
  it('a run with nothing changed plans no target; one MetaRouter changed plans it alone', () => {
    const h = harness();
    h.run();
    assert.equal(h.planner.planned, 11);
    h.run(); // reads back the writes
    const idle = h.run();
    assert.deepEqual(idle.patches, []);
    assert.equal(h.planner.planned, 0, 'nothing planned');
    h.store.upsert(metaRouter('shop', 'r-3', { hosts: ['svc-3.shop.svc.cluster.local'], exportTo: ['*'] }));
    h.run();
    assert.equal(h.planner.planned, 1, 'the changed MetaRouter only');
  });

  it("the object's generation: planned again with the new observedGeneration", () => {
    const h = harness();
    h.settle();
    const t = { ...h.api.get(refKey(REF))!, generation: 2 };
    h.api.set(refKey(REF), t);
    h.planner.changed({ changed: [t], deleted: [] });
    const p = h.run();
    assert.deepEqual(only(p), [refKey(REF)]);
    assert.equal(p.patches[0]!.status.observedGeneration, 2);
  });

  it("the store's rejection appearing, then going", () => {
    const h = harness();
    h.settle();
    h.store.reject(REF, [issue(REF, 'spec.routes[0]', 'bad route')], [HOST]);
    const rejected = h.run();
    assert.equal(h.condition(rejected, 'Accepted')?.status, 'False');
    assert.deepEqual(rejected.events.map((e) => e.reason).sort(), ['Held', 'Invalid']);
    h.run();
    h.store.upsert(metaRouter('shop', 'r', { hosts: [HOST] }, { generation: 1, uid: 'uid-r' }));
    const fixed = h.run();
    assert.equal(h.condition(fixed, 'Accepted')?.status, 'True');
    assert.deepEqual(fixed.events, []);
  });

  it('the issues of a generation pass changing', () => {
    const h = harness();
    h.settle();
    h.state.issues = [issue(REF, 'spec.hosts', 'no usable port')];
    const p = h.run();
    assert.deepEqual(only(p), [refKey(REF)]);
    assert.equal(h.condition(p, 'Accepted')?.message, 'spec.hosts: no usable port');
    h.run();
    h.state.issues = [...h.state.issues]; // a new pass, the same issues: nothing to plan
    assert.deepEqual(h.run().patches, []);
    h.state.issues = [];
    assert.equal(h.condition(h.run(), 'Accepted')?.status, 'True');
  });

  it('a conflict: a second MetaRouter for the host plans both; the one not used says Conflict', () => {
    const h = harness();
    h.settle();
    const other: ObjectRef = { kind: 'MetaRouter', namespace: 'shop', name: 'a-first' };
    h.store.upsert(metaRouter('shop', 'a-first', { hosts: [HOST] }, { generation: 1, uid: 'uid-a' }));
    const t: StatusTarget = { ref: other, generation: 1, uid: 'uid-a', status: undefined };
    h.api.set(refKey(other), t);
    h.planner.changed({ changed: [t], deleted: [] });
    const p = h.run();
    assert.deepEqual(only(p).sort(), [refKey(other), refKey(REF)]);
    assert.equal(h.condition(p, 'Programmed')?.reason, 'Conflict');
  });

  it('held state: a Gateway appearing that a MetaRouter invalid from the start binds', () => {
    const h = harness();
    const bad: ObjectRef = { kind: 'MetaRouter', namespace: 'shop', name: 'bad' };
    const t: StatusTarget = { ref: bad, generation: 1, uid: 'uid-bad', status: undefined };
    h.api.set(refKey(bad), t);
    h.planner.changed({ changed: [t], deleted: [] });
    h.store.reject(bad, [issue(bad, 'spec.routes', 'invalid')], ['bad.shop.svc.cluster.local'], ['shop/gw']);
    h.settle();
    h.store.upsert(gateway('shop', 'gw', {}));
    const p = h.run();
    assert.deepEqual(only(p), [refKey(bad)]);
    assert.match(h.condition(p, 'Programmed', bad)?.message ?? '', /held .*Gateway shop\/gw/);
  });

  it("the proxies' answers: a NACK of the MetaRouter's route, then an ACK", () => {
    const h = harness();
    h.settle();
    const route = 'r.shop_20880';
    h.state.acks.counts.set(route, {
      subscribed: 1,
      acked: 0,
      pending: 0,
      rejected: 1,
      firstRejection: { proxy: 'sidecar~10.0.0.1', version: '7', detail: 'bad route' },
    });
    h.state.acks.moved = [route];
    const nack = h.run();
    assert.deepEqual(only(nack), [refKey(REF)]);
    assert.equal(h.condition(nack, 'Programmed')?.reason, 'ProxyRejected');
    assert.deepEqual(
      nack.events.map((e) => e.reason),
      ['ProxyRejected'],
    );
    h.run();
    h.state.acks.counts.delete(route);
    h.state.acks.moved = [route];
    const ack = h.run();
    assert.equal(h.condition(ack, 'Programmed')?.status, 'True');
    assert.deepEqual(ack.events, []);
  });

  it('a listener rejection of its ServiceEntry, then none', () => {
    const h = harness();
    h.settle();
    h.state.listenerRejections = [
      {
        source: 'ServiceEntry/shop/svc',
        reason: 'ProxyRejected',
        proxies: 1,
        namespaces: ['shop'],
        firstProxy: 'sidecar~10.0.0.1',
        firstError: 'bad filter',
      },
    ];
    const p = h.run();
    assert.deepEqual(only(p), [refKey(REF)]);
    assert.equal(h.condition(p, 'Programmed')?.status, 'False');
    h.run();
    h.state.listenerRejections = [];
    assert.equal(h.condition(h.run(), 'Programmed')?.status, 'True');
  });

  it('a ServiceEntry losing its MetaProtocol port plans the MetaRouter of its host', () => {
    const h = harness();
    h.settle();
    h.store.upsert(serviceEntry('shop', 'svc', { hosts: [HOST], ports: [{ number: 80, name: 'http' }] }));
    const p = h.run();
    assert.deepEqual(only(p), [refKey(REF)]);
    assert.equal(h.condition(p, 'Programmed')?.reason, 'NoMetaProtocolPort');
  });

  it('a status edited by someone else: the resync list plans it again, and it is written back', () => {
    const h = harness();
    h.settle();
    const edited = { ...h.api.get(refKey(REF))!, status: { conditions: [] } };
    h.api.set(refKey(REF), edited);
    h.planner.listed([...h.api.values()], true);
    const p = h.run();
    assert.deepEqual(only(p), [refKey(REF)]);
    assert.deepEqual(h.run().patches, []);
  });

  it('store changes whose events were missed are repaired by the resync list', () => {
    const h = harness();
    h.settle();
    // Its ServiceEntry loses the MetaProtocol port; another MetaRouter takes the host of r-1.
    h.store.upsert(serviceEntry('shop', 'svc', { hosts: [HOST], ports: [{ number: 80, name: 'http' }] }));
    h.store.upsert(metaRouter('shop', 'a-first', { hosts: ['svc-1.shop.svc.cluster.local'] }));
    h.dropChanges();
    const blind = h.planner.plan(
      { view: h.store, rejected: h.store.rejected(), issues: [], routeAcks: h.state.acks, changes: [] },
      NOW,
    );
    assert.deepEqual(blind.patches, [], 'not seen without the events');
    h.planner.listed([...h.api.values()], true);
    const p = h.run();
    assert.equal(h.condition(p, 'Programmed')?.reason, 'NoMetaProtocolPort');
    assert.equal(h.condition(p, 'Programmed', { ...REF, name: 'r-1' })?.reason, 'Conflict');
  });

  it('a deleted target leaves the plan; a deleted store object makes it Pending', () => {
    const h = harness();
    h.settle();
    h.store.delete('MetaRouter', 'shop', 'r');
    const p = h.run();
    assert.deepEqual(only(p), [refKey(REF)]);
    assert.equal(h.condition(p, 'Programmed')?.reason, 'Pending');
    h.run();
    h.api.delete(refKey(REF));
    h.planner.changed({ changed: [], deleted: [REF] });
    assert.deepEqual(h.run().patches, []);
    assert.equal(h.planner.size, 10);
  });

  it('a write not answered yet is planned again on every run until it is', () => {
    const h = harness();
    h.settle();
    h.state.issues = [issue(REF, 'spec.hosts', 'no usable port')];
    h.planner.plan(
      {
        view: h.store,
        rejected: h.store.rejected(),
        issues: h.state.issues,
        routeAcks: h.state.acks,
        changes: [],
      },
      NOW,
    );
    const again = h.planner.plan(
      {
        view: h.store,
        rejected: h.store.rejected(),
        issues: h.state.issues,
        routeAcks: h.state.acks,
        changes: [],
      },
      NOW,
    );
    assert.deepEqual(only(again), [refKey(REF)]);
    assert.equal(h.planner.planned, 1);
  });
});

describe('status/planner: in slices', () => {
  it('a full plan and a resync check yield to the loop, and plan what one stretch plans', async () => {
    const sliced = harness();
    const whole = harness();
    const inputsOf = (h: ReturnType<typeof harness>): StatusInputs => ({
      view: h.store,
      rejected: h.store.rejected(),
      issues: [],
      routeAcks: h.state.acks,
      changes: [],
    });
    let ticks = 0;
    let yields = 0;
    // A slice clock that moves one tick per read: a slice ends after three reads.
    const slicer = new Slicer({
      sliceMs: 3,
      now: () => ticks++,
      yieldNow: () => {
        yields++;
        return new Promise<void>((resolve) => setImmediate(resolve));
      },
    });
    const plan = await sliced.planner.planSliced(inputsOf(sliced), NOW, slicer);
    assert.ok(yields > 0, 'the full plan yielded');
    assert.deepEqual(plan, whole.planner.plan(inputsOf(whole), NOW));
    assert.equal(sliced.planner.planned, 11);
    // A resync list: every target checked again, in slices too.
    sliced.planner.listed([...sliced.api.values()], true);
    const before = yields;
    await sliced.planner.planSliced(inputsOf(sliced), NOW, slicer);
    assert.ok(yields > before, 'the resync check yielded');
  });

  it('a pass abandoned at a yield leaves what it had not planned to the next run', async () => {
    const h = harness();
    let ticks = 0;
    const stopping = new Slicer({ sliceMs: 3, now: () => ticks++, stopped: () => true });
    await assert.rejects(
      h.planner.planSliced(
        { view: h.store, rejected: [], issues: [], routeAcks: h.state.acks, changes: [] },
        NOW,
        stopping,
      ),
      SlicesStopped,
    );
    const plan = h.run();
    assert.equal(plan.patches.length, 11, 'every target planned by the next run');
  });
});
