// AER0007 SubsetNotDefined and AER0008 HostProducedTwice.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeText, codesOf, serviceEntry, withCode } from './support.ts';

const host = 'orders.shop.svc.cluster.local';

const router = (dest: string, mirror = '') => `apiVersion: metaprotocol.aeraki.io/v1alpha1
kind: MetaRouter
metadata: {name: orders, namespace: shop}
spec:
  hosts: [${host}]
  routes:
  - route: [${dest}]${mirror ? `\n    mirror: ${mirror}` : ''}
---
`;

const rule = (drHost: string, subsets: string[], namespace = 'shop') => `apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: orders, namespace: ${namespace}}
spec:
  host: ${drHost}
  subsets: [${subsets.map((s) => `{name: ${s}, labels: {version: ${s}}}`).join(', ')}]
---
`;

const se = serviceEntry('orders', ['tcp-metaprotocol-dubbo:20880']);

describe('AER0007 SubsetNotDefined', () => {
  it('reports destination and mirror subsets no DestinationRule of the host defines', () => {
    const messages = analyzeText(
      se +
        rule(host, ['v1']) +
        router(
          `{destination: {host: ${host}, subset: v1}, weight: 50}, {destination: {host: ${host}, subset: v2}, weight: 50}`,
          `{host: ${host}, subset: v3}`,
        ),
    );
    assert.deepEqual(codesOf(messages), ['AER0007']);
    assert.deepEqual(
      messages.map((m) => m.path),
      ['spec.routes[0].mirror.subset', 'spec.routes[0].route[1].destination.subset'],
    );
  });

  it('reports a subset when no DestinationRule is for the host at all', () => {
    const messages = analyzeText(se + router(`{destination: {host: ${host}, subset: v1}}`));
    assert.match(withCode(messages, 'AER0007')[0]?.message ?? '', /no DestinationRule is for host/);
  });

  it('says nothing when a DestinationRule defines it, written short in its namespace', () => {
    assert.deepEqual(
      analyzeText(se + rule('orders', ['v1']) + router(`{destination: {host: ${host}, subset: v1}}`)),
      [],
    );
    assert.deepEqual(
      analyzeText(
        se +
          rule("'*.shop.svc.cluster.local'", ['v1']) +
          router(`{destination: {host: ${host}, subset: v1}}`),
      ),
      [],
    );
  });

  it('a short host is completed in the DestinationRule namespace, not another', () => {
    const messages = analyzeText(
      se + rule('orders', ['v1'], 'other') + router(`{destination: {host: ${host}, subset: v1}}`),
    );
    assert.deepEqual(codesOf(messages), ['AER0007']);
  });
});

describe('AER0008 HostProducedTwice', () => {
  const zk = serviceEntry('zk-orders', ['tcp-metaprotocol-dubbo:20880'], {
    labels: { registry: 'zk' },
    host,
  });
  const zk2 = serviceEntry('zk-orders-2', ['tcp-metaprotocol-dubbo:20880'], {
    labels: { registry: 'zk' },
    host,
    addresses: ['240.240.0.12'],
  });
  const nacos = serviceEntry('nacos-orders', ['tcp-metaprotocol-dubbo:20880'], {
    labels: { registry: 'nacos' },
    host,
    addresses: ['240.240.0.11'],
  });
  const service = `apiVersion: v1
kind: Service
metadata: {name: orders, namespace: shop}
spec:
  clusterIP: 10.96.0.10
  ports: [{name: tcp-metaprotocol-dubbo, port: 20880}]
---
`;

  it('reports two registries producing one host, on each registry entry', () => {
    const messages = analyzeText(zk + nacos);
    assert.deepEqual(codesOf(messages), ['AER0008']);
    assert.deepEqual(
      messages.map((m) => [m.ref?.name, /produced by (.*):/.exec(m.message)?.[1]]),
      [
        ['nacos-orders', 'registry "zk"'],
        ['zk-orders', 'registry "nacos"'],
      ],
    );
  });

  it('reports a registry and a Kubernetes Service producing one host', () => {
    const messages = withCode(analyzeText(zk + service), 'AER0008');
    assert.equal(messages.length, 1);
    assert.match(messages[0]?.message ?? '', /also produced by Service shop\/orders/);
  });

  it('says nothing about one registry, or a ServiceEntry of no registry beside a Service', () => {
    assert.deepEqual(withCode(analyzeText(zk + zk2), 'AER0008'), []);
    assert.deepEqual(withCode(analyzeText(se + service), 'AER0008'), []);
  });
});
