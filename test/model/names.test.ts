import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isDns1123Subdomain, sanitizeObjectName } from '../../src/util/names.ts';
import { normalizeHost, outboundClusterName, routeConfigName } from '../../src/model/names.ts';
import { applicationProtocolOf } from '../../src/model/protocol.ts';
import { createProtocolNames } from '../../src/plugins/registry.ts';
import { issue, ok } from '../../src/model/result.ts';

const { names: PROTOCOLS, detect: detectProtocol } = createProtocolNames();

describe('names', () => {
  it('keeps valid names exactly', () => {
    const n = 'aeraki-outbound-org.apache.dubbo.samples.basic.api.demoservice-240.240.0.1-20880';
    assert.equal(sanitizeObjectName(n), n);
  });
  it('sanitises invalid names (D7)', () => {
    assert.equal(
      sanitizeObjectName('aeraki-outbound-Foo.Bar-10.0.0.0/8-9090'),
      'aeraki-outbound-foo.bar-10.0.0.0-8-9090',
    );
    assert.equal(sanitizeObjectName('aeraki-inbound-*.example.com-80'), 'aeraki-inbound.example.com-80');
    assert.equal(sanitizeObjectName('-a-.-b-'), 'a.b');
    const long = `aeraki-outbound-${'x'.repeat(300)}-1.2.3.4-80`;
    const s = sanitizeObjectName(long);
    assert.equal(s.length, 253);
    assert.ok(isDns1123Subdomain(s));
    assert.match(s, /-[0-9a-f]{12}$/);
  });
  it('accepts exactly the DNS-1123 subdomains (agrees with the Kubernetes regular expression)', () => {
    const k8s = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
    const oracle = (n: string): boolean => n.length > 0 && n.length <= 253 && k8s.test(n);
    const fixed = [
      'a',
      '0',
      'a.b',
      'a-b',
      'a--b.c',
      '-a',
      'a-',
      '.a',
      'a.',
      'a..b',
      'a.-b',
      'a-.b',
      'A',
      'a_b',
      '',
    ];
    const alphabet = 'ab09-.A_';
    let seed = 7;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const generated = Array.from({ length: 20000 }, () => {
      const len = Math.floor(random() * 8);
      return Array.from({ length: len }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
    });
    for (const n of [...fixed, ...generated, 'a'.repeat(253), 'a'.repeat(254)]) {
      assert.equal(isDns1123Subdomain(n), oracle(n), JSON.stringify(n));
    }
    assert.equal(isDns1123Subdomain('a-b.c'), true);
    assert.equal(isDns1123Subdomain('a.-b'), false);
  });
  it('builds cluster and route names', () => {
    assert.equal(outboundClusterName(20880, 'v1', 'h'), 'outbound|20880|v1|h');
    assert.equal(outboundClusterName(20880, undefined, 'h'), 'outbound|20880||h');
    assert.equal(routeConfigName('h.ns', 80), 'h.ns_80');
  });
  it('normalises hosts (D6)', () => {
    assert.equal(normalizeHost('foo', 'ns'), 'foo.ns.svc.cluster.local');
    assert.equal(normalizeHost('foo.bar', 'ns'), 'foo.bar');
  });
});

describe('protocol detection', () => {
  const cases: [string, string | undefined][] = [
    ['tcp-dubbo', 'dubbo'],
    ['tcp-Dubbo', 'dubbo'],
    ['tcp-Dubbo-28001', 'dubbo'],
    ['Dubbo', undefined],
    ['tcp-unknown', undefined],
    ['tcp-metaprotocol', 'metaprotocol'],
    ['tcp', undefined],
    ['http', undefined],
    ['metaprotocol-thrift', 'thrift'],
    ['udp-thrift', 'thrift'],
    ['tcp--dubbo', undefined],
    ['', undefined],
    ['grpc-metaprotocol-thrift', 'metaprotocol'],
    ['tcp-MetaProtocol-Dubbo', 'metaprotocol'],
  ];
  for (const [name, want] of cases) {
    it(`"${name}" -> ${want ?? 'none'}`, () => assert.equal(detectProtocol(name), want));
  }
  it('reads the application protocol, case kept (D1 errors)', () => {
    const ref = { kind: 'ServiceEntry', namespace: 'ns', name: 'se' };
    const path = 'spec.ports[0].name';
    assert.deepEqual(applicationProtocolOf('tcp-metaprotocol-Dubbo-v2', ref, path), ok('Dubbo'));
    assert.deepEqual(applicationProtocolOf('tcp-metaprotocol', ref, path), {
      ok: false,
      issues: [
        issue(
          ref,
          path,
          'port name "tcp-metaprotocol" has no application protocol segment (tcp-metaprotocol-<protocol>)',
        ),
      ],
    });
    assert.deepEqual(applicationProtocolOf('tcp-metaprotocol-', ref, path), {
      ok: false,
      issues: [issue(ref, path, 'port name "tcp-metaprotocol-" has an empty application protocol segment')],
    });
  });
  it('reads the `-` segments exactly as split("-") does', () => {
    const parts = ['tcp', 'metaprotocol', 'Dubbo', 'thrift', '', 'x', 'MetaProtocol', 'redis'];
    let seed = 11;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n < 5000; n++) {
      const count = Math.floor(random() * 5);
      const name = Array.from({ length: count }, () => parts[Math.floor(random() * parts.length)]).join('-');
      const segments = name.split('-');
      const second = segments.length < 2 ? undefined : (segments[1] ?? '').toLowerCase();
      const wantProtocol = second !== undefined && PROTOCOLS.some((p) => p === second) ? second : undefined;
      assert.equal(detectProtocol(name), wantProtocol, JSON.stringify(name));
      const third = segments[2];
      const app = applicationProtocolOf(name, { kind: 'ServiceEntry', namespace: 'ns', name: 'se' }, 'p');
      assert.equal(app.ok ? app.value : undefined, third ? third : undefined, JSON.stringify(name));
    }
  });
});
