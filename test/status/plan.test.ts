// The pure status planner: conditions, observedGeneration, transition times, unchanged statuses, Events.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { metaProtocolConflicts } from '../../src/model/conflicts/metarouter.ts';
import { issue, warning, type ObjectRef } from '../../src/model/result.ts';
import type { RouteAckCounts, RouteAcks } from '../../src/model/route-acks.ts';
import { heldHosts } from '../../src/status/held.ts';
import { newEvents, planStatus, type StatusPlanInput } from '../../src/status/plan.ts';
import type { StatusTarget } from '../../src/status/types.ts';
import { gateway, metaRouter, serviceEntry, storeOf } from '../support/builders.ts';

const NOW = '2026-02-03T04:05:06Z';
const HOST = 'svc.shop.example';
const ref = (name: string, kind = 'MetaRouter'): ObjectRef => ({ kind, namespace: 'shop', name });
const target = (name: string, over: Partial<StatusTarget> = {}): StatusTarget => ({
  ref: ref(name),
  generation: 3,
  uid: `uid-${name}`,
  status: undefined,
  ...over,
});
const router = (name: string, host = HOST, created = '2026-01-01T00:00:00Z') =>
  metaRouter(
    'shop',
    name,
    {
      hosts: [host],
      routes: [{ route: [{ destination: { host } }], requestMutation: [], responseMutation: [] }],
    },
    { creationTimestamp: created },
  );
const se = (portName = 'tcp-metaprotocol-dubbo') =>
  serviceEntry('shop', 'svc', { hosts: [HOST], ports: [{ number: 20880, name: portName }] });

function plan(over: Partial<StatusPlanInput> & Pick<StatusPlanInput, 'view' | 'targets'>) {
  return planStatus({ rejected: [], issues: [], now: NOW, ...over });
}

function conditionsOf(p: ReturnType<typeof planStatus>, name: string) {
  const patch = p.patches.find((x) => x.target.ref.name === name);
  assert.ok(patch, `a patch for ${name}`);
  return Object.fromEntries(patch.status.conditions.map((c) => [c.type, c]));
}

describe('status/plan', () => {
  it('Accepted and Programmed True for a served MetaRouter, with observedGeneration', () => {
    const p = plan({ view: storeOf([se(), router('r')]), targets: [target('r')] });
    assert.equal(p.patches.length, 1);
    assert.equal(p.patches[0]!.status.observedGeneration, 3);
    const c = conditionsOf(p, 'r');
    assert.deepEqual(c['Accepted'], {
      type: 'Accepted',
      status: 'True',
      reason: 'Accepted',
      message: '',
      lastTransitionTime: NOW,
      observedGeneration: 3,
    });
    assert.equal(c['Programmed']!.status, 'True');
    assert.equal(c['Programmed']!.reason, 'Programmed');
    assert.deepEqual(p.events, []);
  });

  it('Accepted False (Invalid) names the field; Programmed Held while the last valid version is served', () => {
    const bad = issue(ref('r'), 'spec.routes[0].route[0].weight', 'weights add up to 90, not 100');
    const p = plan({
      view: storeOf([se(), router('r')]),
      rejected: [{ ref: ref('r'), issues: [bad] }],
      targets: [target('r')],
    });
    const c = conditionsOf(p, 'r');
    assert.equal(c['Accepted']!.status, 'False');
    assert.equal(c['Accepted']!.reason, 'Invalid');
    assert.equal(c['Accepted']!.message, 'spec.routes[0].route[0].weight: weights add up to 90, not 100');
    assert.equal(c['Programmed']!.status, 'False');
    assert.equal(c['Programmed']!.reason, 'Held');
    assert.deepEqual(
      p.events.map((e) => [e.reason, e.ref.name, e.uid, e.action]),
      [
        ['Held', 'r', 'uid-r', 'Validate'],
        ['Invalid', 'r', 'uid-r', 'Validate'],
      ],
    );
  });

  it('Programmed False without a ServiceEntry, without a MetaProtocol port, rejected without a valid version', () => {
    assert.equal(
      conditionsOf(plan({ view: storeOf([router('r')]), targets: [target('r')] }), 'r')['Programmed']!.reason,
      'NoServiceEntry',
    );
    assert.equal(
      conditionsOf(plan({ view: storeOf([se('tcp-dubbo'), router('r')]), targets: [target('r')] }), 'r')[
        'Programmed'
      ]!.reason,
      'NoMetaProtocolPort',
    );
    const rejected = [{ ref: ref('r'), issues: [issue(ref('r'), 'spec.hosts[0]', 'not a FQDN')] }];
    const c = conditionsOf(plan({ view: storeOf([se()]), rejected, targets: [target('r')] }), 'r');
    assert.equal(c['Programmed']!.reason, 'Invalid');
    assert.match(c['Programmed']!.message, /no valid version is known: none of its routes is served/);
    assert.equal(c['Accepted']!.message, 'spec.hosts[0]: not a FQDN');
  });

  it('two MetaRouters for one host: the younger one is in Conflict, both get a Conflict Event', () => {
    const view = storeOf([se(), router('old'), router('young', HOST, '2026-01-02T00:00:00Z')]);
    const issues = metaProtocolConflicts(view);
    const p = plan({ view, issues, targets: [target('old'), target('young')] });
    const young = conditionsOf(p, 'young');
    assert.equal(young['Programmed']!.reason, 'Conflict');
    assert.match(young['Programmed']!.message, /MetaRouter shop\/old is used/);
    assert.equal(young['Accepted']!.status, 'True');
    assert.equal(young['Accepted']!.reason, 'AcceptedWithWarnings');
    assert.match(young['Accepted']!.message, /^spec\.hosts\[0\]: /);
    assert.equal(conditionsOf(p, 'old')['Programmed']!.status, 'True');
    assert.deepEqual(
      p.events.map((e) => [e.ref.name, e.reason]),
      [
        ['old', 'Conflict'],
        ['young', 'Conflict'],
      ],
    );
  });

  it("the conflicts given (the generation pass's) decide which issues are Conflicts, not the view's", () => {
    const view = storeOf([se(), router('old'), router('young', HOST, '2026-01-02T00:00:00Z')]);
    const issues = metaProtocolConflicts(view);
    const targets = [target('old'), target('young')];
    const given = plan({ view, issues, conflicts: issues, targets });
    assert.deepEqual(given, plan({ view, issues, targets }));
    const none = plan({ view, issues, conflicts: [], targets });
    assert.deepEqual(none.events, []);
  });

  it('an unchanged status is not written; a new generation is; transition times stay while the status does', () => {
    const view = storeOf([se(), router('r')]);
    const first = plan({ view, targets: [target('r')] });
    const written = first.patches[0]!.status;
    assert.deepEqual(plan({ view, targets: [target('r', { status: written })] }).patches, []);

    const later = '2026-03-01T00:00:00Z';
    const next = planStatus({
      view,
      rejected: [],
      issues: [],
      now: later,
      targets: [target('r', { generation: 4, status: written })],
    });
    assert.equal(next.patches.length, 1);
    const s = next.patches[0]!.status;
    assert.equal(s.observedGeneration, 4);
    assert.ok(s.conditions.every((c) => c.lastTransitionTime === NOW && c.observedGeneration === 4));

    const rejected = [{ ref: ref('r'), issues: [issue(ref('r'), 'spec', 'bad')] }];
    const flipped = planStatus({
      view,
      rejected,
      issues: [],
      now: later,
      targets: [target('r', { status: written })],
    });
    const accepted = flipped.patches[0]!.status.conditions.find((c) => c.type === 'Accepted')!;
    assert.equal(accepted.lastTransitionTime, later);
  });

  it('keeps conditions of other types, and gives other Aeraki kinds Accepted only', () => {
    const foreign = {
      type: 'Ready',
      status: 'True' as const,
      reason: 'X',
      message: '',
      lastTransitionTime: NOW,
    };
    const ap = { ...target('ap'), ref: { kind: 'ApplicationProtocol', namespace: '', name: 'ap' } };
    const p = plan({
      view: storeOf([se(), router('r')]),
      targets: [target('r', { status: { conditions: [foreign] } }), ap],
    });
    assert.deepEqual(
      p.patches[0]!.status.conditions.map((c) => c.type),
      ['Ready', 'Accepted', 'Programmed'],
    );
    assert.deepEqual(
      p.patches[1]!.status.conditions.map((c) => c.type),
      ['Accepted'],
    );
  });

  it('Events: rejected objects of any kind, deduplicated against the reported keys', () => {
    const seRef = { kind: 'ServiceEntry', namespace: 'shop', name: 'svc' };
    const rejected = [
      { ref: seRef, issues: [issue(seRef, 'spec.ports[0].name', 'no application protocol')] },
    ];
    const p = plan({
      view: storeOf([se()]),
      rejected,
      targets: [],
      issues: [warning(seRef, 'spec', 'not a conflict')],
    });
    assert.deepEqual(
      p.events.map((e) => [e.ref.kind, e.reason, e.note]),
      [
        [
          'ServiceEntry',
          'Held',
          'the object is invalid: its last valid version stays in effect until it is fixed',
        ],
        ['ServiceEntry', 'Invalid', 'spec.ports[0].name: no application protocol'],
      ],
    );
    assert.deepEqual(newEvents(p.events, new Set([p.events[0]!.key])), [p.events[1]]);
  });

  it('held hosts: rejected ServiceEntries, the MetaRouters of rejected and held Gateways, held ServiceEntries', () => {
    const gwRouter = metaRouter('shop', 'g', { hosts: ['gw.shop.example'], gateways: ['gw'] });
    const view = storeOf([se(), gateway('shop', 'gw', {}), gwRouter]);
    const rejected = [
      { ref: { kind: 'ServiceEntry', namespace: 'shop', name: 'svc' }, issues: [] },
      { ref: { kind: 'Gateway', namespace: 'shop', name: 'gw' }, issues: [] },
      { ref: ref('r'), issues: [] },
    ];
    assert.deepEqual(heldHosts(view, rejected), ['gw.shop.example', HOST]);

    // A ServiceEntry held by an invalid VirtualService of its own namespace counts; one of another namespace, or
    // an invalid MetaRouter, holds nothing.
    const plain = storeOf([se()]);
    const held = () => heldHosts(plain, [], plain.heldHosts(), plain.heldGateways());
    plain.reject({ kind: 'VirtualService', namespace: 'other', name: 'vs' }, [], [HOST]);
    plain.reject(ref('bad'), [], [HOST]);
    assert.deepEqual(held(), []);
    plain.reject({ kind: 'VirtualService', namespace: 'shop', name: 'vs' }, [], [HOST]);
    assert.deepEqual(held(), [HOST]);

    // A Gateway held by an invalid MetaRouter of its namespace: the hosts of the MetaRouters bound to it count.
    const gw = storeOf([gateway('shop', 'gw', {}), gwRouter]);
    gw.reject(ref('bad'), [], [], ['shop/gw']);
    assert.deepEqual(heldHosts(gw, [], gw.heldHosts(), gw.heldGateways()), ['gw.shop.example']);
  });
});

describe('status/plan: Programmed from the proxies answers (RouteAcks)', () => {
  const counts = (over: Partial<RouteAckCounts> = {}): RouteAckCounts => ({
    subscribed: 0,
    acked: 0,
    pending: 0,
    rejected: 0,
    ...over,
  });
  const acks = (
    routes: Record<string, { generation: number | undefined; counts?: RouteAckCounts }>,
  ): RouteAcks => ({
    routesOf: (namespace, name) =>
      namespace === 'shop' && name === 'r'
        ? Object.entries(routes).map(([n, r]) => ({ name: n, generation: r.generation }))
        : [],
    summary: (route) => routes[route]?.counts,
  });
  const programmedOf = (routeAcks: RouteAcks, generation = 3) =>
    conditionsOf(
      plan({ view: storeOf([se(), router('r')]), targets: [target('r', { generation })], routeAcks }),
      'r',
    )['Programmed']!;

  it('no route recorded yet: True as without answers; none subscribed: True, saying so', () => {
    const none = programmedOf(acks({}));
    assert.deepEqual([none.status, none.message], ['True', `routes are served for host "${HOST}"`]);
    const idle = programmedOf(acks({ [`${HOST}_20880`]: { generation: 3 } }));
    assert.deepEqual(
      [idle.status, idle.reason, idle.message],
      ['True', 'Programmed', `routes are served for host "${HOST}"; no proxy subscribed`],
    );
  });

  it('counts over every route of the MetaRouter; the first rejection in route order', () => {
    const a = programmedOf(
      acks({
        a_1: { generation: 3, counts: counts({ subscribed: 2, acked: 2 }) },
        b_2: { generation: 3, counts: counts({ subscribed: 1, acked: 1 }) },
      }),
    );
    assert.equal(a.message, `routes are served for host "${HOST}": acknowledged by 3 proxies`);
    const p = programmedOf(
      acks({
        a_1: {
          generation: 3,
          counts: counts({
            subscribed: 2,
            acked: 1,
            pending: 1,
            oldestPendingAt: Date.parse('2026-02-03T04:05:01Z'),
          }),
        },
        b_2: {
          generation: 3,
          counts: counts({
            subscribed: 2,
            pending: 2,
            oldestPendingAt: Date.parse('2026-02-03T04:04:05.250Z'),
          }),
        },
      }),
    );
    assert.deepEqual(
      [p.status, p.reason, p.message],
      [
        'Unknown',
        'Pending',
        `3 proxies of 4 have not acknowledged the routes for host "${HOST}" yet (the oldest sent at 2026-02-03T04:04:05Z)`,
      ],
    );
    const first = { proxy: 'node-b', version: 'v9', detail: 'bad' };
    const r = programmedOf(
      acks({
        a_1: { generation: 3, counts: counts({ subscribed: 1, pending: 1 }) },
        b_2: {
          generation: 3,
          counts: counts({ subscribed: 3, acked: 1, rejected: 2, firstRejection: first }),
        },
      }),
    );
    assert.deepEqual(
      [r.status, r.reason, r.message],
      [
        'False',
        'ProxyRejected',
        `2 proxies of 4 rejected the routes for host "${HOST}"; proxy node-b rejected version v9 of route b_2: bad`,
      ],
    );
  });

  it('routes built from an older generation than the API server has: Pending', () => {
    const c = programmedOf(acks({ a_1: { generation: 2, counts: counts({ subscribed: 1, acked: 1 }) } }));
    assert.deepEqual(
      [c.status, c.reason, c.message],
      ['Unknown', 'Pending', `the routes for host "${HOST}" are built from generation 2, not yet 3`],
    );
  });

  it('a ProxyRejected Event per rejected route and version, whatever the count of proxies', () => {
    const rejecting = (n: number, version: string) =>
      acks({
        a_1: {
          generation: 3,
          counts: counts({
            subscribed: n,
            rejected: n,
            firstRejection: { proxy: 'p', version, detail: 'no' },
          }),
        },
      });
    const eventsOf = (routeAcks: RouteAcks) =>
      plan({ view: storeOf([se(), router('r')]), targets: [target('r')], routeAcks }).events;
    const [one] = eventsOf(rejecting(1, 'v1'));
    assert.deepEqual(
      [one?.reason, one?.type, one?.uid, one?.note],
      ['ProxyRejected', 'Warning', 'uid-r', 'proxy p rejected version v1 of route a_1: no'],
    );
    assert.equal(eventsOf(rejecting(2, 'v1'))[0]?.key, one?.key, 'more proxies: the same Event');
    assert.notEqual(eventsOf(rejecting(1, 'v2'))[0]?.key, one?.key, 'another version: a new Event');
    assert.deepEqual(
      eventsOf(acks({ a_1: { generation: 3, counts: counts({ subscribed: 1, acked: 1 }) } })),
      [],
    );
  });
});
