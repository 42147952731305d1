// Our own waypoint's translation, incrementally: a change to one service's routing translates that service only and
// yields one change touching it only; an endpoint change only that service's ClusterLoadAssignments; a generator
// failure keeps the last good contribution; Namespace and Gateway changes move services and listeners.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ENDPOINT_TYPE, type ServiceContribution } from '../../src/model/ambient/xds.ts';
import { formatIssue } from '../../src/model/result.ts';
import { stableStringify } from '../../src/util/json.ts';
import { metaRouter, virtualService } from '../support/builders.ts';
import {
  changeOf,
  contributionOf,
  kubeService,
  ORDERS,
  ownGateway,
  problemsOf,
  USE,
  world,
} from './translate-support.ts';

const BILLING = 'billing.other.svc.cluster.local';

/** The resources of `b` that differ from `a`'s, `<type> <name>`. */
function differing(a: ServiceContribution, b: ServiceContribution): string[] {
  const text = (c: ServiceContribution) =>
    new Map(
      c.resources.map((r) => [
        `${r.typeUrl.slice(r.typeUrl.lastIndexOf('.') + 1)} ${r.name}`,
        stableStringify(r.json),
      ]),
    );
  const [ta, tb] = [text(a), text(b)];
  const keys = new Set([...ta.keys(), ...tb.keys()]);
  return [...keys].filter((k) => ta.get(k) !== tb.get(k)).sort();
}

const toSubset = (subset: string) =>
  virtualService('shop', 'orders', {
    hosts: [ORDERS],
    tcp: [{ match: [], route: [{ destination: { host: ORDERS, subset } }] }],
  });

describe('own waypoint translation, incremental', () => {
  it('a VirtualService change of one service translates it alone and changes it alone', () => {
    const { store, gens, translator } = world();
    translator.full();
    gens.calls.length = 0;
    assert.deepEqual(translator.update(), []);
    store.upsert(toSubset('v1'));
    const changes = translator.update();
    assert.deepEqual(gens.calls, ['shop/orders']);
    assert.equal(changes.length, 1);
    const change = changeOf(changes, 'shop/wp');
    assert.equal(change.listener, undefined);
    assert.deepEqual([...change.services.keys()], ['Service/shop/orders']);
    const names = contributionOf(change, 'Service/shop/orders').resources.map((r) => r.name);
    assert.ok(names.includes(`outbound|20880|v1|${ORDERS}`));
    assert.deepEqual(problemsOf(changes), []);
    // The same content again is no change at all.
    store.upsert(toSubset('v1'));
    assert.deepEqual(translator.update(), []);
  });

  it('a MetaRouter change of one service translates that service alone', () => {
    const { store, gens, translator } = world();
    translator.full();
    gens.calls.length = 0;
    const route = { destination: { host: ORDERS, subset: 'v1' } };
    store.upsert(
      metaRouter('shop', 'orders', {
        hosts: [ORDERS],
        routes: [{ name: 'r', route: [route], requestMutation: [], responseMutation: [] }],
      }),
    );
    // The fake generator does not read MetaRouters: the service is translated again, its content is unchanged.
    assert.deepEqual(translator.update(), []);
    assert.deepEqual(gens.calls, ['shop/orders']);
  });

  it("an endpoint change of one service changes that service's ClusterLoadAssignments only", () => {
    const { endpoints, gens, translator } = world();
    const before = contributionOf(changeOf(translator.full(), 'shop/wp'), 'Service/other/billing');
    gens.calls.length = 0;
    endpoints.set({ kind: 'Service', namespace: 'other', name: 'billing' }, 20880, [
      { address: '10.2.0.1', port: 20880, labels: {} },
    ]);
    const changes = translator.update();
    assert.deepEqual(
      changes.map((c) => [c.gateway, [...c.services.keys()]]),
      [['shop/wp', ['Service/other/billing']]],
    );
    const after = contributionOf(changeOf(changes, 'shop/wp'), 'Service/other/billing');
    assert.deepEqual(differing(before, after), [`ClusterLoadAssignment outbound|20880||${BILLING}`]);
    assert.deepEqual(after.chains, before.chains);
    assert.ok(
      after.resources.every(
        (r) => r.typeUrl === ENDPOINT_TYPE || before.resources.some((b) => b.name === r.name),
      ),
    );
    assert.deepEqual(problemsOf(changes), []);
  });

  it("a cluster on another service's host follows that service's endpoints", () => {
    const { store, endpoints, translator } = world();
    store.upsert(
      virtualService('shop', 'orders', {
        hosts: [ORDERS],
        tcp: [{ match: [], route: [{ destination: { host: BILLING, port: { number: 20880 } } }] }],
      }),
    );
    translator.full();
    endpoints.set({ kind: 'Service', namespace: 'other', name: 'billing' }, 20880, [
      { address: '10.2.0.9', port: 20880, labels: {} },
    ]);
    const change = changeOf(translator.update(), 'shop/wp');
    assert.deepEqual([...change.services.keys()], ['Service/other/billing', 'Service/shop/orders']);
    const orders = contributionOf(change, 'Service/shop/orders');
    const cla = orders.resources.find(
      (r) => r.typeUrl === ENDPOINT_TYPE && r.name === `outbound|20880||${BILLING}`,
    );
    assert.match(stableStringify(cla?.json), /10\.2\.0\.9/);
  });

  it("a generator failure keeps the service's last good contribution and reports the issue", () => {
    const { store, gens, translator } = world();
    translator.full();
    gens.failing.add('shop/orders');
    store.upsert(toSubset('v2'));
    assert.deepEqual(translator.update(), []);
    assert.deepEqual(translator.issues().map(formatIssue), [
      'Service shop/orders: spec.ports[0]: fake failure',
    ]);
    gens.failing.clear();
    store.upsert(toSubset('v3'));
    const change = changeOf(translator.update(), 'shop/wp');
    assert.deepEqual([...change.services.keys()], ['Service/shop/orders']);
    assert.deepEqual(translator.issues().map(formatIssue), [
      `Service shop/orders: spec.ports[0]: cluster outbound|20880|v3|${ORDERS}: no DestinationRule of ${ORDERS} has subset v3: it has no endpoints`,
    ]);
  });

  it('follows Namespace labels and Gateways: services move, listeners come and go', () => {
    const { store, ambient, translator } = world();
    translator.full();
    ambient.set({ kind: 'Namespace', value: { name: 'shop', labels: {} } });
    const unbound = changeOf(translator.update(), 'shop/wp');
    assert.deepEqual([...unbound.services.entries()], [['Service/shop/orders', undefined]]);

    ambient.set({ kind: 'KubernetesGateway', value: ownGateway('shop', 'wp2') });
    store.upsert(
      kubeService('shop', 'orders', [{ number: 20880, name: 'tcp-fake' }], { labels: { [USE]: 'wp2' } }),
    );
    const moved = translator.update();
    assert.deepEqual(
      moved.map((c) => [c.gateway, c.listener?.['name'], [...c.services.keys()]]),
      [['shop/wp2', 'proxy_protocol_inbound', ['Service/shop/orders']]],
    );
    assert.deepEqual(problemsOf(moved), []);

    ambient.remove('KubernetesGateway', 'shop', 'wp2');
    assert.deepEqual(
      translator.update().map((c) => [c.gateway, c.listener, c.services.size]),
      [['shop/wp2', null, 0]],
    );
    // Back again: everything it had is sent again.
    ambient.set({ kind: 'KubernetesGateway', value: ownGateway('shop', 'wp2') });
    const back = changeOf(translator.update(), 'shop/wp2');
    assert.ok(back.listener);
    assert.deepEqual([...back.services.keys()], ['Service/shop/orders']);
  });

  it('a full build after updates resends everything and removes what went', () => {
    const { store, translator } = world();
    translator.full();
    store.delete('Service', 'other', 'billing');
    const again = changeOf(translator.full(), 'shop/wp');
    assert.ok(again.listener);
    assert.deepEqual(
      [...again.services.entries()].map(([k, v]) => [k, v !== undefined]),
      [
        ['Service/other/billing', false],
        ['Service/shop/orders', true],
        ['ServiceEntry/ext/pay', true],
      ],
    );
  });
});
