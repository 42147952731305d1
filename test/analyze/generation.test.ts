// AER0003..AER0006: what generation and the MetaRouter conflicts find, under their own codes, reported once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeText, codesOf, serviceEntry, withCode } from './support.ts';

const router = (
  name: string,
  host: string,
  created = '2026-01-01T00:00:00Z',
) => `apiVersion: metaprotocol.aeraki.io/v1alpha1
kind: MetaRouter
metadata: {name: ${name}, namespace: shop, creationTimestamp: '${created}'}
spec:
  hosts: [${host}]
  routes:
  - route: [{destination: {host: ${host}}}]
---
`;

const trpc = `apiVersion: metaprotocol.aeraki.io/v1alpha1
kind: ApplicationProtocol
metadata: {name: trpc}
spec: {protocol: trpc, codec: aeraki.meta_protocol.codec.trpc}
---
`;

describe('AER0003 MissingCodec', () => {
  it('reports a MetaProtocol port whose application protocol has no codec, once, as an error', () => {
    const messages = analyzeText(serviceEntry('orders', ['tcp-metaprotocol-trpc:8080']));
    assert.deepEqual(codesOf(messages), ['AER0003']);
    assert.equal(messages[0]?.code.severity, 'error');
    assert.equal(messages[0]?.path, 'spec.ports[0].name');
  });

  it('says nothing when an ApplicationProtocol defines it, or it is built in', () => {
    assert.deepEqual(analyzeText(trpc + serviceEntry('orders', ['tcp-metaprotocol-trpc:8080'])), []);
    assert.deepEqual(analyzeText(serviceEntry('orders', ['tcp-metaprotocol-dubbo:20880'])), []);
  });
});

describe('AER0004 NoOutboundListener', () => {
  const addressless = serviceEntry('orders', ['tcp-metaprotocol-dubbo:20880'], { addresses: [] });

  it('reports a handled port on a ServiceEntry without addresses while VIP allocation is off', () => {
    const messages = analyzeText(addressless);
    assert.deepEqual(codesOf(messages), ['AER0004']);
    assert.equal(messages[0]?.path, 'spec.addresses');
  });

  it('says nothing (not even the generation warning) with VIP allocation, or with an address', () => {
    assert.deepEqual(analyzeText(addressless, { vipAllocation: true }), []);
    assert.deepEqual(analyzeText(serviceEntry('orders', ['tcp-metaprotocol-dubbo:20880'])), []);
  });

  it('says nothing for a ServiceEntry without a handled port', () => {
    const messages = analyzeText(serviceEntry('web', ['http:8080'], { addresses: [] }));
    assert.deepEqual(withCode(messages, 'AER0004'), []);
  });
});

describe('AER0005 MetaRouterHostNotFound and AER0006 MetaRouterHostClaimedTwice', () => {
  const host = 'orders.shop.svc.cluster.local';

  it('reports a MetaRouter whose host no service has', () => {
    const messages = analyzeText(
      router('orders', 'ordres.shop.svc.cluster.local') +
        serviceEntry('orders', ['tcp-metaprotocol-dubbo:20880']),
    );
    assert.deepEqual(codesOf(messages), ['AER0005']);
    assert.deepEqual(messages[0]?.ref, { kind: 'MetaRouter', namespace: 'shop', name: 'orders' });
  });

  it('reports two MetaRouters for one host on both, naming the one used', () => {
    const messages = analyzeText(
      serviceEntry('orders', ['tcp-metaprotocol-dubbo:20880']) +
        router('old', host, '2026-01-01T00:00:00Z') +
        router('new', host, '2026-02-01T00:00:00Z'),
    );
    assert.deepEqual(codesOf(messages), ['AER0006']);
    const byName = new Map(messages.map((m) => [m.ref?.name, m.message]));
    assert.match(byName.get('new') ?? '', /MetaRouter shop\/old .* is used/);
    assert.match(byName.get('old') ?? '', /this one is used/);
  });

  it('says nothing about one MetaRouter for a host a ServiceEntry has', () => {
    assert.deepEqual(
      analyzeText(serviceEntry('orders', ['tcp-metaprotocol-dubbo:20880']) + router('orders', host)),
      [],
    );
  });
});
