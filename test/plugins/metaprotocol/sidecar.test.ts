import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ServiceEntry } from '../../../src/model/objects.ts';
import { formatIssue } from '../../../src/model/result.ts';
import { createMetaProtocolGenerator } from '../../../src/plugins/metaprotocol/index.ts';
import { metaRouter, serviceEntry } from '../../support/builders.ts';
import { DEMO_HOST, demoServiceEntry, draftNamed, proxyConfig, sidecarContext, unwrap } from './support.ts';

const gen = createMetaProtocolGenerator();
const INBOUND = `aeraki-inbound-${DEMO_HOST}-20880`;
const OUTBOUND = `aeraki-outbound-${DEMO_HOST}-240.240.0.1-20880`;

function seWithPorts(ports: ServiceEntry['spec']['ports'], extra: Partial<ServiceEntry['spec']> = {}) {
  return serviceEntry('ns', 'svc', {
    hosts: ['svc.ns.svc.cluster.local'],
    addresses: ['240.240.0.5'],
    ports,
    workloadSelector: { labels: { app: 'svc' } },
    ...extra,
  });
}

describe('metaprotocol sidecar', () => {
  it('declares its protocol', () => {
    assert.deepEqual(gen.protocols, ['metaprotocol']);
    assert.equal(typeof gen.generateGateway, 'function');
  });

  it('handles ctx.port with its own number, not ports[0] (D4)', () => {
    const se = seWithPorts([
      { number: 8080, name: 'http-web' },
      { number: 9090, name: 'tcp-metaprotocol-thrift-x' },
      { number: 9091, name: 'tcp-MetaProtocol-dubbo' },
    ]);
    const second = unwrap(gen.generateSidecar(sidecarContext(se, 1)));
    assert.deepEqual(
      second.map((d) => d.name),
      [
        'aeraki-outbound-svc.ns.svc.cluster.local-240.240.0.5-9090',
        'aeraki-inbound-svc.ns.svc.cluster.local-9090',
      ],
    );
    assert.equal(proxyConfig(second[0]!)['applicationProtocol'], 'thrift');
    const third = unwrap(gen.generateSidecar(sidecarContext(se, 2)));
    assert.equal(proxyConfig(third[1]!)['statPrefix'], 'inbound|9091||');
    assert.equal(proxyConfig(third[0]!)['applicationProtocol'], 'dubbo');
  });

  it('D1: a port without an application protocol is an issue on the ServiceEntry at the port path', () => {
    for (const name of ['tcp-metaprotocol', 'tcp-metaprotocol-']) {
      const se = seWithPorts([
        { number: 80, name: 'http' },
        { number: 20880, name },
      ]);
      const r = gen.generateSidecar(sidecarContext(se, 1));
      assert.equal(r.ok, false);
      assert.equal(r.issues.length, 1);
      assert.match(formatIssue(r.issues[0]!), /^ServiceEntry ns\/svc: spec\.ports\[1\]\.name: /);
    }
  });

  it('a missing codec is an issue naming the protocol; a custom codec is used', () => {
    const se = seWithPorts([{ number: 8000, name: 'tcp-metaprotocol-trpc' }]);
    const r = gen.generateSidecar(sidecarContext(se, 0));
    assert.equal(r.ok, false);
    assert.equal(r.issues[0]!.path, 'spec.ports[0].name');
    assert.match(r.issues[0]!.message, /"trpc"/);
    const withCodec = unwrap(gen.generateSidecar(sidecarContext(se, 0, { codecs: { trpc: 'c.trpc' } })));
    assert.deepEqual(proxyConfig(withCodec[0]!)['codec'], { name: 'c.trpc' });
    // exact case: `Dubbo` is not `dubbo`
    const upper = seWithPorts([{ number: 1, name: 'tcp-metaprotocol-Dubbo' }]);
    assert.equal(gen.generateSidecar(sidecarContext(upper, 0)).ok, false);
  });

  it('D2: a workloadSelector annotation with two colons is an issue; no selector means no inbound', () => {
    const bad = serviceEntry(
      'shop',
      'three-colons',
      { hosts: ['h'], addresses: ['1.2.3.4'], ports: [{ number: 1, name: 'tcp-metaprotocol-dubbo' }] },
      { annotations: { workloadSelector: 'a:b:c' } },
    );
    const r = gen.generateSidecar(sidecarContext(bad, 0));
    assert.equal(r.ok, false);
    assert.match(
      formatIssue(r.issues[0]!),
      /^ServiceEntry shop\/three-colons: metadata\.annotations\.workloadSelector/,
    );
    const none = seWithPorts([{ number: 1, name: 'tcp-metaprotocol-dubbo' }], {
      workloadSelector: undefined,
    });
    assert.deepEqual(
      unwrap(gen.generateSidecar(sidecarContext(none, 0))).map((d) => d.name),
      ['aeraki-outbound-svc.ns.svc.cluster.local-240.240.0.5-1'],
    );
  });

  it('a ServiceEntry without hosts is an issue, never a throw', () => {
    const se = seWithPorts([{ number: 1, name: 'tcp-metaprotocol-dubbo' }], { hosts: [] });
    const r = gen.generateSidecar(sidecarContext(se, 0));
    assert.equal(r.ok, false);
    assert.equal(formatIssue(r.issues[0]!), 'ServiceEntry ns/svc: spec.hosts: no hosts');
  });

  it('outbound uses RDS via aeraki-xds; the MetaRouter changes only the inbound filters', () => {
    const mr = metaRouter('metaprotocol', 'mr', {
      hosts: [DEMO_HOST],
      localRateLimit: { tokenBucket: { maxTokens: 1, tokensPerFill: 1, fillInterval: '1s' }, conditions: [] },
    });
    const plain = unwrap(gen.generateSidecar(sidecarContext(demoServiceEntry(), 0)));
    const limited = unwrap(gen.generateSidecar(sidecarContext(demoServiceEntry(), 0, { metaRouter: mr })));
    assert.deepEqual(draftNamed(limited, OUTBOUND), draftNamed(plain, OUTBOUND));
    assert.notDeepEqual(draftNamed(limited, INBOUND), draftNamed(plain, INBOUND));
    const rds = proxyConfig(draftNamed(plain, OUTBOUND))['rds'] as Record<string, unknown>;
    assert.equal(rds['routeConfigName'], `${DEMO_HOST}_20880`);
    assert.deepEqual(
      (rds['configSource'] as { apiConfigSource: { grpcServices: unknown } }).apiConfigSource.grpcServices,
      [{ envoyGrpc: { clusterName: 'aeraki-xds' } }],
    );
  });

  it('is deterministic: same context, identical JSON, whatever the attribute insertion order', () => {
    const mk = (attrs: Record<string, { exact: string }>) =>
      JSON.stringify(
        gen.generateSidecar(
          sidecarContext(demoServiceEntry(), 0, {
            metaRouter: metaRouter('metaprotocol', 'mr', {
              hosts: [DEMO_HOST],
              localRateLimit: {
                conditions: [
                  {
                    match: { attributes: attrs },
                    tokenBucket: { maxTokens: 1, tokensPerFill: 1, fillInterval: '1s' },
                  },
                ],
              },
            }),
          }),
        ),
      );
    const a = mk({ b: { exact: '2' }, a: { exact: '1' } });
    assert.equal(a, mk({ b: { exact: '2' }, a: { exact: '1' } }));
    assert.equal(a, mk({ a: { exact: '1' }, b: { exact: '2' } }));
  });
});
