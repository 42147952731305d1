// AER0009..AER0012: analyze reports at least what validate reports, each problem once, plus the info code.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateObjects } from '../../src/model/validate/validate.ts';
import { generationCheck } from '../../src/app/validate.ts';
import { createPluginKinds } from '../../src/plugins/registry.ts';
import yaml from 'js-yaml';
import { analyzeText, codesOf, serviceEntry, withCode } from './support.ts';

const se = serviceEntry('orders', ['tcp-metaprotocol-dubbo:20880']);
const host = 'orders.shop.svc.cluster.local';
const router = (extra: string) => `apiVersion: metaprotocol.aeraki.io/v1alpha1
kind: MetaRouter
metadata: {name: orders, namespace: shop}
spec:
  hosts: [${host}]
  routes:
  - route: [{destination: {host: ${host}}}]
${extra}---
`;

function validateText(text: string) {
  const raws = yaml.loadAll(text).filter((d) => d !== null && d !== undefined);
  return validateObjects(raws, {
    rootNamespace: 'istio-system',
    parseOptions: { clusterDomain: 'cluster.local', kinds: createPluginKinds() },
    check: generationCheck({ rootNamespace: 'istio-system', namespaceScope: false }),
  }).issues;
}

describe('AER0009 AdmissionWouldRefuse', () => {
  it('reports a rule admission refuses and the controller tolerates, with the rule message', () => {
    const messages = analyzeText(se + router('    mirrorPercentage: {value: 50}\n'));
    assert.deepEqual(codesOf(messages), ['AER0009']);
    assert.equal(messages[0]?.code.severity, 'warning');
    assert.equal(messages[0]?.path, 'spec.routes[0].mirrorPercentage');
  });

  it('says nothing about a MetaRouter admission accepts', () => {
    assert.deepEqual(analyzeText(se + router('')), []);
  });
});

describe('AER0010 InvalidConfig', () => {
  it('reports what the controller refuses as an error', () => {
    const messages = analyzeText(serviceEntry('orders', ['tcp-metaprotocol:20880']));
    assert.deepEqual(codesOf(messages), ['AER0010']);
    assert.equal(messages[0]?.code.severity, 'error');
  });

  it('reports an object the controller refuses; a MetaRouter holds nothing (its host gets the default route)', () => {
    const messages = analyzeText(se + router('    localRateLimit: {}\n'));
    assert.deepEqual(codesOf(messages), ['AER0010']);
    assert.equal(withCode(messages, 'AER0010')[0]?.ref?.kind, 'MetaRouter');
  });

  it("a DestinationRule it refuses holds its namespace's ServiceEntry: the hold is a warning", () => {
    const rule = (namespace: string) => `apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: orders, namespace: ${namespace}}
spec:
  host: ${host}
  subsets: [{labels: {version: v1}}]
---
`;
    const messages = analyzeText(se + rule('shop'));
    assert.deepEqual(codesOf(messages), ['AER0010', 'AER0011']);
    assert.match(
      withCode(messages, 'AER0011')[0]?.message ?? '',
      /held: DestinationRule shop\/orders is invalid/,
    );
    assert.deepEqual(
      codesOf(analyzeText(se + rule('other'))),
      ['AER0010'],
      'another namespace holds nothing',
    );
  });

  it('says nothing about valid objects', () => {
    assert.deepEqual(withCode(analyzeText(se), 'AER0010'), []);
  });
});

describe('AER0011 ConfigWarning', () => {
  it('reports the remaining warnings', () => {
    const messages = analyzeText(serviceEntry('orders', ['tcp-metaprotocol-dubbo:20880', 'tcp-mongo:27017']));
    assert.deepEqual(codesOf(messages), ['AER0011']);
  });

  it('says nothing when there is no warning', () => {
    assert.deepEqual(withCode(analyzeText(se), 'AER0011'), []);
  });
});

describe('at least what validate reports, each problem once', () => {
  const text =
    serviceEntry('orders', [
      'tcp-metaprotocol-dubbo:20880',
      'tcp-mongo:27017',
      'tcp-thirft:9090',
      'tcp-metaprotocol-trpc:8080',
    ]) +
    serviceEntry('bare', ['tcp-dubbo:20880'], { addresses: [] }) +
    router('    mirrorPercentage: {value: 50}\n') +
    `apiVersion: metaprotocol.aeraki.io/v1alpha1
kind: MetaRouter
metadata: {name: ghost, namespace: shop}
spec:
  hosts: [ghost.shop.svc.cluster.local]
  routes:
  - route: [{destination: {host: ghost.shop.svc.cluster.local}}]
`;

  it('every issue of validate is a message at the same object and field, and no spot is reported twice', () => {
    const issues = validateText(text);
    const messages = analyzeText(text);
    assert.ok(issues.length >= 6, JSON.stringify(issues));
    for (const i of issues) {
      const found = messages.some(
        (m) =>
          m.ref?.kind === i.ref.kind &&
          m.ref.name === i.ref.name &&
          m.ref.namespace === i.ref.namespace &&
          m.path === i.path,
      );
      assert.ok(found, `not reported: ${JSON.stringify(i)}`);
    }
    const spots = messages.map((m) => `${m.ref?.kind}/${m.ref?.name}/${m.path}`);
    assert.deepEqual(spots, [...new Set(spots)]);
    assert.deepEqual(codesOf(messages), ['AER0001', 'AER0003', 'AER0004', 'AER0005', 'AER0009', 'AER0011']);
  });

  it('an error of validate is an error of analyze', () => {
    const errors = validateText(serviceEntry('orders', ['tcp-metaprotocol:20880']));
    assert.equal(errors[0]?.severity ?? 'error', 'error');
    assert.equal(analyzeText(serviceEntry('orders', ['tcp-metaprotocol:20880']))[0]?.code.severity, 'error');
  });
});

describe('AER0012 NoHandledPorts', () => {
  it('reports services none of whose ports this controller handles, as info', () => {
    const messages = analyzeText(serviceEntry('web', ['http:8080', 'grpc:9000']));
    assert.deepEqual(codesOf(messages), ['AER0012']);
    assert.equal(messages[0]?.code.severity, 'info');
    assert.equal(messages[0]?.ref, undefined);
  });

  it('says nothing with one handled port, or with no service at all', () => {
    assert.deepEqual(analyzeText(serviceEntry('web', ['http:8080']) + se), []);
    assert.deepEqual(
      analyzeText(router('')).filter((m) => m.code.code === 'AER0012'),
      [],
    );
  });
});
