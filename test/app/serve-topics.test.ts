// The status controller follows serve's topics: a publish on each topic it plans from asks it for a run, and its
// inputs are the topics' latest values. A real StatusController on the manual clock, over an in-memory port.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTopics, followTopics, statusInputsOf, type Topics } from '../../src/app/serve-topics.ts';
import { applyWrites } from '../../src/kit/apply.ts';
import type { ListenerRejection } from '../../src/model/listener-rejections.ts';
import { issue } from '../../src/model/result.ts';
import type { RouteAcks } from '../../src/model/route-acks.ts';
import type { ServeTopics } from '../../src/model/topics.ts';
import { StatusController } from '../../src/status/controller.ts';
import type { StatusPort } from '../../src/status/kube.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { metaRouter, storeOf } from '../support/builders.ts';

const QUIET = 100;
const REF = { kind: 'MetaRouter', namespace: 'shop', name: 'r' } as const;
const ACKS: RouteAcks = { routesOf: () => [], summary: () => undefined };
const REJECTION: ListenerRejection = {
  source: 'ServiceEntry/shop/svc',
  reason: 'ProxyRejected',
  proxies: 1,
  namespaces: ['shop'],
  firstProxy: 'sidecar~10.0.0.1~a.shop~shop.svc.cluster.local',
  firstError: 'bad filter',
};

/** One value per topic, as its publisher sends it. */
const SAMPLES: { readonly [K in keyof ServeTopics]: ServeTopics[K] } = {
  config: { type: 'updated', kind: 'MetaRouter', namespace: 'shop', name: 'r' },
  desired: { issues: [issue(REF, 'spec.hosts', 'no such host')], objects: [] },
  routes: { routes: ['svc.shop.example_20880'] },
  acks: ACKS,
  rejections: [REJECTION],
  kinds: { synced: true, unavailable: [] },
};

/** Topics and a started status controller following them; `runs()` counts its runs (each lists its targets once). */
async function harness(follow = true) {
  const clock = new ManualClock(Date.parse('2026-02-03T04:05:06Z'));
  const topics = createTopics(clock, silentLogger);
  let runs = 0;
  const port: StatusPort = {
    list: () => {
      runs++;
      return Promise.resolve([]);
    },
    patchStatus: () => Promise.resolve(),
    createEvent: () => Promise.resolve(),
  };
  const status = new StatusController({
    port,
    apply: applyWrites,
    inputs: statusInputsOf(storeOf([]), topics),
    logger: silentLogger,
    quietMs: QUIET,
    maxWaitMs: 10 * QUIET,
    resyncMs: 0,
    clock,
  });
  if (follow) followTopics(topics, status);
  status.start();
  const settle = async () => {
    clock.advance(10 * QUIET);
    await status.idle();
  };
  await settle(); // the run start() asks for
  return { topics, status, settle, runs: () => runs };
}

const publish = <K extends keyof ServeTopics>(topics: Topics, name: K) => topics[name].publish(SAMPLES[name]);

describe('serve topics: the status controller follows them', () => {
  for (const name of ['config', 'desired', 'routes', 'acks', 'rejections'] as const) {
    it(`a publish on ${name} leads to a status run`, async () => {
      const h = await harness();
      assert.equal(h.runs(), 1);
      publish(h.topics, name);
      await h.settle();
      assert.equal(h.runs(), 2);
      await h.status.stop();
    });
  }

  it('without the subscription, a publish runs nothing (the runs above come from following)', async () => {
    const h = await harness(false);
    for (const name of ['config', 'desired', 'routes', 'acks', 'rejections'] as const)
      publish(h.topics, name);
    await h.settle();
    assert.equal(h.runs(), 1);
    await h.status.stop();
  });

  it('a change of kinds alone does not run status (it never did: its runs wait for the sync themselves)', async () => {
    const h = await harness();
    publish(h.topics, 'kinds');
    await h.settle();
    assert.equal(h.runs(), 1);
    await h.status.stop();
  });

  it('the unsubscribe function stops the following', () => {
    const clock = new ManualClock(0);
    const topics = createTopics(clock, silentLogger);
    let triggers = 0;
    const off = followTopics(topics, { trigger: () => triggers++ });
    publish(topics, 'desired');
    off();
    publish(topics, 'desired');
    assert.equal(triggers, 1);
  });
});

describe('serve topics: status plans from their latest values', () => {
  it('reads nothing but the store before any publish', () => {
    const store = storeOf([metaRouter('shop', 'r', { hosts: ['svc.shop.example'] })]);
    const inputs = statusInputsOf(store, createTopics(new ManualClock(0), silentLogger))();
    assert.equal(inputs.view, store);
    assert.deepEqual(inputs.rejected, []);
    assert.deepEqual(inputs.issues, []);
    assert.equal('conflicts' in inputs, false);
    assert.equal('listenerRejections' in inputs, false);
    assert.equal('routeAcks' in inputs, false);
  });

  it("hands over the store's events once each: those since the last read (what a run plans again)", () => {
    const topics = createTopics(new ManualClock(0), silentLogger);
    const inputs = statusInputsOf(storeOf([]), topics);
    assert.deepEqual(inputs().changes, []);
    publish(topics, 'config');
    publish(topics, 'config');
    assert.deepEqual(inputs().changes, [SAMPLES.config, SAMPLES.config]);
    assert.deepEqual(inputs().changes, [], 'not again');
  });

  it('takes the last generation issues and conflicts, the listener rejections and the acks view', () => {
    const topics = createTopics(new ManualClock(0), silentLogger);
    const inputs = statusInputsOf(storeOf([]), topics);
    const conflict = issue(REF, 'spec.hosts[0]', 'host also claimed by MetaRouter shop/other');
    topics.desired.publish(SAMPLES.desired);
    topics.desired.publish({ issues: [conflict], conflicts: [conflict], objects: [] });
    topics.rejections.publish([REJECTION]);
    topics.acks.publish(ACKS);
    const read = inputs();
    assert.deepEqual(read.issues, [conflict]);
    assert.deepEqual(read.conflicts, [conflict]);
    assert.deepEqual(read.listenerRejections, [REJECTION]);
    assert.equal(read.routeAcks, ACKS);
  });
});
