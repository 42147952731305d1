// The status controller against the fake kube-apiserver over real HTTP with client-node, on the manual clock.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { aerakiResources } from '../../src/controller/kube/resources.ts';
import type { ConfigStore } from '../../src/controller/store.ts';
import { issue, type ObjectRef } from '../../src/model/result.ts';
import { applyWrites } from '../../src/kit/apply.ts';
import { StatusController, type StatusControllerOptions } from '../../src/status/controller.ts';
import { createKubeStatusPort } from '../../src/status/kube.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { leaderLoopPart, Runtime } from '../../src/kit/runtime.ts';
import { FakeElector } from '../support/fake-elector.ts';
import { recordingLogger, type LogRecord } from '../support/recording-logger.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';
import { metaRouter, serviceEntry, storeOf } from '../support/builders.ts';
import { createPluginKinds } from '../../src/plugins/registry.ts';

/** The controller's own CRDs: the core's and the plugins'. */
const AERAKI_RESOURCES = aerakiResources(createPluginKinds());

const MR = 'metarouters.metaprotocol.aeraki.io';
const EV = { group: 'events.k8s.io', resource: 'events' };
const QUIET = 500;
const HOST = 'svc.shop.example';
const REF: ObjectRef = { kind: 'MetaRouter', namespace: 'shop', name: 'r' };

let api: FakeKubeApiServer;
let clock: ManualClock;
let store: ConfigStore;
let rejected: { ref: ObjectRef; issues: ReturnType<typeof issue>[] }[];
before(async () => {
  api = await startFakeKubeApiServer();
});
after(async () => {
  await api.close();
});
beforeEach(() => {
  clock = new ManualClock(Date.parse('2026-02-03T04:05:06Z'));
  for (const o of api.list(MR)) api.delete(MR, o.metadata.namespace ?? '', o.metadata.name ?? '');
  for (const o of api.list(EV)) api.delete(EV, o.metadata.namespace ?? '', o.metadata.name ?? '');
  api.seed({
    apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
    kind: 'MetaRouter',
    metadata: { name: 'r', namespace: 'shop' },
    spec: { hosts: [HOST], routes: [{ route: [{ destination: { host: HOST } }] }] },
  });
  store = storeOf([
    serviceEntry('shop', 'svc', {
      hosts: [HOST],
      ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo' }],
    }),
    metaRouter('shop', 'r', { hosts: [HOST] }),
  ]);
  rejected = [];
  api.clearRequests();
});

function controller(o: Partial<StatusControllerOptions> = {}): StatusController {
  return new StatusController({
    port: createKubeStatusPort(fakeKubeConfig(api), {
      resources: AERAKI_RESOURCES,
      apiVersionOf: () => 'networking.istio.io/v1alpha3',
      instance: 'aeraki-0',
    }),
    apply: applyWrites,
    inputs: () => ({ view: store, rejected, issues: [] }),
    logger: silentLogger,
    quietMs: QUIET,
    maxWaitMs: 2000,
    resyncMs: 0,
    clock,
    ...o,
  });
}

/** Fires the debounce timer and awaits the run it starts. */
async function settle(c: StatusController): Promise<void> {
  clock.advance(QUIET);
  await c.idle();
}

const statusWrites = () => api.writes({ resource: 'metarouters' });
const eventWrites = () => api.writes({ group: 'events.k8s.io', resource: 'events' });
const conditions = () =>
  Object.fromEntries(
    ((api.get(MR, 'shop', 'r') as any).status?.conditions ?? []).map((c: any) => [c.type, c]),
  ) as Record<string, any>;

describe('status/controller: against the API server', () => {
  it('writes the status once with a merge patch of /status, then not again while unchanged', async () => {
    const c = controller();
    c.trigger();
    await settle(c);
    assert.deepEqual(
      statusWrites().map((w) => [w.verb, w.subresource, w.contentType, w.fieldManager]),
      [['patch', 'status', 'application/merge-patch+json', 'aeraki']],
    );
    const obj = api.get(MR, 'shop', 'r') as any;
    assert.equal(obj.status.observedGeneration, obj.metadata.generation);
    assert.equal(conditions()['Accepted'].status, 'True');
    assert.equal(conditions()['Programmed'].status, 'True');
    assert.equal(conditions()['Accepted'].lastTransitionTime, '2026-02-03T04:05:06Z');

    c.trigger();
    await settle(c);
    const r = await c.reconcile();
    assert.equal(r.written, 0);
    assert.equal(r.unchanged, 1);
    assert.equal(statusWrites().length, 1, 'no rewrite of an unchanged status');
    await c.stop();
  });

  it('a non-leader never writes; the new leader writes once', async () => {
    const c = controller({ pollMs: 1000 });
    const elector = new FakeElector();
    const runtime = new Runtime({ logger: silentLogger, elector });
    await runtime.start(leaderLoopPart('status', c));
    c.trigger();
    await settle(c);
    clock.advance(5000);
    await c.idle();
    assert.equal(statusWrites().length + eventWrites().length, 0);
    assert.equal(api.requests.filter((r) => r.resource === 'metarouters').length, 0, 'not even a list');
    elector.elect(); // the status part starts, which requests a run
    await runtime.settled();
    clock.advance(QUIET);
    await c.idle();
    assert.equal(statusWrites().length, 1);
    await runtime.stop();
  });

  it('a rejected object: Accepted False naming the field, Invalid and Held Events created once', async () => {
    rejected = [{ ref: REF, issues: [issue(REF, 'spec.routes[0].match', 'invalid regex')] }];
    const c = controller();
    c.trigger();
    await settle(c);
    assert.equal(conditions()['Accepted'].status, 'False');
    assert.equal(conditions()['Accepted'].message, 'spec.routes[0].match: invalid regex');
    assert.equal(conditions()['Programmed'].reason, 'Held');
    const events = api.list(EV) as any[];
    assert.deepEqual(events.map((e) => e.reason).sort(), ['Held', 'Invalid']);
    const invalid = events.find((e) => e.reason === 'Invalid');
    assert.equal(invalid.reportingController, 'aeraki.io/controller');
    assert.equal(invalid.reportingInstance, 'aeraki-0');
    assert.equal(invalid.action, 'Validate');
    assert.equal(invalid.type, 'Warning');
    assert.equal(invalid.note, 'spec.routes[0].match: invalid regex');
    assert.equal(invalid.metadata.namespace, 'shop');
    assert.deepEqual(invalid.regarding, {
      apiVersion: 'metaprotocol.aeraki.io/v1alpha1',
      kind: 'MetaRouter',
      namespace: 'shop',
      name: 'r',
      uid: (api.get(MR, 'shop', 'r') as any).metadata.uid,
    });

    for (let i = 0; i < 3; i++) {
      c.trigger();
      await settle(c);
    }
    assert.equal(eventWrites().length, 2, 'no Event re-created while the problem lasts');
    assert.equal(statusWrites().length, 1);

    // A restarted controller finds its Events by name (409 counts as created) and writes no status.
    const restarted = controller();
    const r = await restarted.reconcile();
    assert.deepEqual(r.failures, []);
    assert.equal(r.written, 0);
    assert.equal(api.list(EV).length, 2);

    // Fixed: the status follows; no new Event.
    rejected = [];
    c.trigger();
    await settle(c);
    assert.equal(conditions()['Accepted'].status, 'True');
    assert.equal(statusWrites().length, 2);
    assert.equal(eventWrites().length, 2);
    await c.stop();
    await restarted.stop();
  });

  it('a status write refused with 403: retried with backoff, warned once without a stack, written once granted', async () => {
    const records: LogRecord[] = [];
    const fault = api.faults.inject({ verb: 'patch', resource: 'metarouters', forbid: true, times: 3 });
    const c = controller({
      logger: recordingLogger(records),
      retry: { initialMs: 50, maxMs: 200, jitter: 0 },
    });
    c.trigger();
    await settle(c);
    for (let retries = 0; fault.remaining > 0 && retries < 5; retries++) {
      const [delay] = clock.pendingDelays();
      assert.ok(
        delay !== undefined && delay <= 200,
        `retried after the capped backoff, not at a resync (${delay})`,
      );
      clock.advance(delay);
      await c.idle();
    }
    assert.equal(fault.hits, 3);
    const [delay] = clock.pendingDelays();
    if (delay !== undefined) {
      clock.advance(delay);
      await c.idle();
    }
    assert.equal(conditions()['Accepted'].status, 'True', 'written once access returned');
    const failed = records.filter((r) => r.message === 'status write failed');
    assert.deepEqual(
      failed.map((r) => r.level),
      ['warn', 'debug', 'debug'],
      'one warning while it lasts',
    );
    assert.equal(failed[0]!.fields['code'], 403);
    assert.ok(
      failed.every((r) => !('stack' in r.fields)),
      'no stack trace for an answer of the API server',
    );
    await c.stop();
  });
});
