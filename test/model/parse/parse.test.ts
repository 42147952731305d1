import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import type { ConfigObject } from '../../../src/model/objects.ts';
import { parseConfigObject } from '../../../src/model/parse/parse.ts';
import { formatIssue } from '../../../src/model/result.ts';

function parse(yaml: string): ConfigObject {
  const r = parseConfigObject(parseYaml(yaml));
  assert.ok(r, 'recognised');
  assert.ok(r.ok, `valid: ${r.issues.map(formatIssue).join('; ')}`);
  assert.deepEqual(r.issues, []);
  return r.value;
}

/** The formatted issues of an invalid object. */
function problems(raw: unknown): string[] {
  const r = parseConfigObject(raw);
  assert.ok(r, 'recognised');
  assert.equal(r.ok, false);
  return r.issues.map(formatIssue);
}

const SE = `
apiVersion: networking.istio.io/v1alpha3
kind: ServiceEntry
metadata:
  name: dubbo-demo
  namespace: meta
  creationTimestamp: "2024-01-01T00:00:00Z"
  annotations: {interface: org.apache.Demo}
  labels: {app: demo}
spec:
  hosts: [demo.meta.svc.cluster.local]
  addresses: [240.240.0.1]
  ports:
  - {number: 20880, name: tcp-metaprotocol-dubbo, protocol: TCP, targetPort: 20881}
  workloadSelector: {labels: {app: demo}}
  resolution: STATIC
  location: MESH_INTERNAL
  unknownField: ignored
`;

describe('parseConfigObject', () => {
  it('parses a ServiceEntry with every field the generators use', () => {
    const se = parse(SE);
    assert.equal(se.kind, 'ServiceEntry');
    assert.deepEqual(se.metadata, {
      name: 'dubbo-demo',
      namespace: 'meta',
      labels: { app: 'demo' },
      annotations: { interface: 'org.apache.Demo' },
      creationTimestamp: '2024-01-01T00:00:00Z',
      resourceVersion: '',
    });
    assert.deepEqual(se.spec, {
      hosts: ['demo.meta.svc.cluster.local'],
      addresses: ['240.240.0.1'],
      ports: [{ number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP', targetPort: 20881 }],
      workloadSelector: { labels: { app: 'demo' } },
      resolution: 'STATIC',
      location: 'MESH_INTERNAL',
    });
    assert.ok(Object.isFrozen(se) && Object.isFrozen(se.spec.ports[0]), 'deeply frozen');
  });

  it('accepts v1alpha3, v1beta1 and v1 of networking.istio.io', () => {
    for (const v of ['v1alpha3', 'v1beta1', 'v1']) {
      assert.equal(parse(SE.replace('v1alpha3', v)).apiVersion, `networking.istio.io/${v}`);
    }
  });

  it('ignores kinds and versions it does not read', () => {
    assert.equal(
      parseConfigObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }),
      undefined,
    );
    assert.equal(parseConfigObject({ apiVersion: 'apps/v1', kind: 'Deployment' }), undefined);
    assert.equal(
      parseConfigObject({ apiVersion: 'networking.istio.io/v2', kind: 'ServiceEntry' }),
      undefined,
    );
    assert.equal(parseConfigObject('text'), undefined);
    assert.equal(parseConfigObject(null), undefined);
  });

  it('defaults the namespace; ApplicationProtocol is cluster scoped', () => {
    const se = parse(SE.replace('  namespace: meta\n', ''));
    assert.equal(se.metadata.namespace, 'default');
    const ap = parse(`
apiVersion: metaprotocol.aeraki.io/v1alpha1
kind: ApplicationProtocol
metadata: {name: trpc, namespace: anything}
spec: {protocol: trpc, codec: aeraki.meta_protocol.codec.trpc}
`);
    assert.equal(ap.metadata.namespace, '');
    assert.deepEqual(ap.spec, { protocol: 'trpc', codec: 'aeraki.meta_protocol.codec.trpc' });
  });

  it('reports wrong types with field paths, never throws', () => {
    const raw = parseYaml(SE) as Record<string, any>;
    raw['spec'].ports.push({ number: '80', name: 7 });
    raw['spec'].hosts = 'not-a-list';
    raw['metadata'].annotations.count = 3;
    assert.deepEqual(problems(raw), [
      'ServiceEntry meta/dubbo-demo: metadata.annotations.count: expected a string, got number 3',
      'ServiceEntry meta/dubbo-demo: spec.hosts: expected a list, got string "not-a-list"',
      'ServiceEntry meta/dubbo-demo: spec.ports[1].number: expected a number, got string "80"',
      'ServiceEntry meta/dubbo-demo: spec.ports[1].name: expected a string, got number 7',
    ]);
  });

  it('requires metadata.name, spec and port names', () => {
    assert.deepEqual(problems({ apiVersion: 'networking.istio.io/v1', kind: 'Gateway', metadata: {} }), [
      'Gateway default/: metadata.name: required field is missing',
      'Gateway default/: spec: required field is missing',
    ]);
    const raw = parseYaml(SE) as Record<string, any>;
    raw['spec'].ports = [{ number: 70000 }];
    assert.deepEqual(problems(raw), [
      'ServiceEntry meta/dubbo-demo: spec.ports[0].number: expected an integer between 0 and 65535, got 70000',
      'ServiceEntry meta/dubbo-demo: spec.ports[0].name: required field is missing',
    ]);
  });

  it('parses a VirtualService (http with method and header matches, tcp)', () => {
    const vs = parse(`
apiVersion: networking.istio.io/v1beta1
kind: VirtualService
metadata: {name: vs, namespace: ns}
spec:
  hosts: [svc]
  gateways: [gw]
  http:
  - name: r1
    match:
    - method: {exact: sayHello}
      headers: {zeta: {prefix: z}, alpha: {regex: "a.*"}}
    route:
    - destination: {host: svc, subset: v1, port: {number: 8080}}
      weight: 30
  tcp:
  - match: [{port: 9000}]
    route: [{destination: {host: svc}}]
`);
    assert.equal(vs.kind, 'VirtualService');
    if (vs.kind !== 'VirtualService') return;
    assert.deepEqual(vs.spec.http[0], {
      name: 'r1',
      match: [{ method: { exact: 'sayHello' }, headers: { alpha: { regex: 'a.*' }, zeta: { prefix: 'z' } } }],
      route: [{ destination: { host: 'svc', subset: 'v1', port: { number: 8080 } }, weight: 30 }],
    });
    assert.deepEqual(Object.keys(vs.spec.http[0].match[0]!.headers), ['alpha', 'zeta'], 'sorted keys (D5)');
    assert.deepEqual(vs.spec.tcp, [{ match: [{ port: 9000 }], route: [{ destination: { host: 'svc' } }] }]);
  });

  it('rejects a StringMatch with two kinds and a destination without host', () => {
    const raw = {
      apiVersion: 'networking.istio.io/v1',
      kind: 'VirtualService',
      metadata: { name: 'vs', namespace: 'ns' },
      spec: { http: [{ match: [{ method: { exact: 'a', prefix: 'b' } }], route: [{ destination: {} }] }] },
    };
    assert.deepEqual(problems(raw), [
      'VirtualService ns/vs: spec.http[0].match[0].method: only one of exact, prefix, regex may be set, got exact, prefix',
      'VirtualService ns/vs: spec.http[0].route[0].destination.host: required field is missing',
    ]);
  });

  it('parses a DestinationRule with top-level and subset load balancers', () => {
    const dr = parse(`
apiVersion: networking.istio.io/v1alpha3
kind: DestinationRule
metadata: {name: dr, namespace: ns}
spec:
  host: svc
  trafficPolicy: {loadBalancer: {consistentHash: {httpHeaderName: user}}}
  subsets:
  - name: v1
    labels: {version: v1}
    trafficPolicy: {loadBalancer: {simple: ROUND_ROBIN}}
`);
    assert.deepEqual(dr.spec, {
      host: 'svc',
      trafficPolicy: { loadBalancer: { consistentHash: { httpHeaderName: 'user' } } },
      subsets: [
        { name: 'v1', labels: { version: 'v1' }, trafficPolicy: { loadBalancer: { simple: 'ROUND_ROBIN' } } },
      ],
    });
    assert.deepEqual(
      problems({
        apiVersion: 'networking.istio.io/v1',
        kind: 'DestinationRule',
        metadata: { name: 'd' },
        spec: {},
      }),
      ['DestinationRule default/d: spec.host: required field is missing'],
    );
  });

  it('parses a Gateway', () => {
    const gw = parse(`
apiVersion: networking.istio.io/v1alpha3
kind: Gateway
metadata: {name: gw, namespace: istio-system}
spec:
  selector: {istio: ingressgateway}
  servers:
  - port: {number: 9090, name: tcp-metaprotocol-thrift, protocol: TCP}
    hosts: ["*"]
`);
    assert.deepEqual(gw.spec, {
      selector: { istio: 'ingressgateway' },
      servers: [{ port: { number: 9090, name: 'tcp-metaprotocol-thrift', protocol: 'TCP' }, hosts: ['*'] }],
    });
  });
});
