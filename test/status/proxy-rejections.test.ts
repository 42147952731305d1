// Listener rejections reported by istiod's proxies: Events on the source object and the MetaRouter's Programmed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ListenerRejection } from '../../src/model/listener-rejections.ts';
import { newEvents, planStatus } from '../../src/status/plan.ts';
import type { StatusTarget } from '../../src/status/types.ts';
import { metaRouter, serviceEntry, storeOf } from '../support/builders.ts';

const NOW = '2026-02-03T04:05:06Z';
const HOST = 'svc.shop.example';
const PROXY = 'sidecar~10.244.1.1~web-1.web~web.svc.cluster.local';
const ERROR = 'Error adding/updating listener(s) 10.96.10.20_20880: proto constraint validation failed';
const view = () =>
  storeOf([
    serviceEntry('shop', 'svc', {
      hosts: [HOST],
      ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo' }],
    }),
    metaRouter('shop', 'r', {
      hosts: [HOST],
      routes: [{ route: [{ destination: { host: HOST } }], requestMutation: [], responseMutation: [] }],
    }),
  ]);
const target: StatusTarget = {
  ref: { kind: 'MetaRouter', namespace: 'shop', name: 'r' },
  generation: 1,
  uid: 'uid-r',
  status: undefined,
};
const rejection = (over: Partial<ListenerRejection> = {}): ListenerRejection => ({
  source: 'ServiceEntry/shop/svc',
  reason: 'ProxyRejected',
  proxies: 2,
  namespaces: ['shop', 'web'],
  firstProxy: PROXY,
  firstError: ERROR,
  ...over,
});

function plan(listenerRejections: readonly ListenerRejection[]) {
  return planStatus({
    view: view(),
    rejected: [],
    issues: [],
    now: NOW,
    targets: [target],
    listenerRejections,
  });
}

describe('status: listener rejections', () => {
  it('a Warning Event ProxyRejected on the ServiceEntry naming the proxies, namespaces, proxy and error', () => {
    const p = plan([rejection()]);
    assert.equal(p.events.length, 1);
    const e = p.events[0]!;
    assert.deepEqual(
      [e.ref, e.type, e.reason, e.action],
      [{ kind: 'ServiceEntry', namespace: 'shop', name: 'svc' }, 'Warning', 'ProxyRejected', 'Program'],
    );
    assert.match(e.note, /^2 proxies in namespaces shop, web reject/);
    assert.ok(e.note.includes(PROXY) && e.note.includes(ERROR));
    const programmed = p.patches[0]!.status.conditions.find((c) => c.type === 'Programmed')!;
    assert.deepEqual([programmed.status, programmed.reason], ['False', 'ProxyRejected']);
  });

  it('ProxyLacksExtension carries the advice; a growing count is the same Event', () => {
    const lacks = rejection({
      reason: 'ProxyLacksExtension',
      filter: 'envoy.filters.network.meta_protocol_proxy',
    });
    const first = plan([lacks]).events;
    assert.equal(first[0]!.reason, 'ProxyLacksExtension');
    assert.match(first[0]!.note, /MetaProtocol proxy image.*contrib extensions for Kafka.*namespace scope/);
    const reported = new Set(first.map((e) => e.key));
    assert.deepEqual(newEvents(plan([{ ...lacks, proxies: 5 }]).events, reported), []);
  });

  it('no rejection: no Event, Programmed True (a proxy that took the filter later clears it)', () => {
    const p = plan([]);
    assert.deepEqual(p.events, []);
    assert.equal(p.patches[0]!.status.conditions.find((c) => c.type === 'Programmed')!.status, 'True');
  });
});
