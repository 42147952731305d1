// Istio's rules for the VirtualService, DestinationRule and ServiceEntry fields the controller reads, through the
// parse path: an error rejects the object (ok: false) naming object and field path; a warning leaves it usable;
// `admission` (a rule of admission hygiene) is an error for admission and a warning that leaves it usable here.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { parseConfigObject } from '../../../src/model/parse/parse.ts';
import { admissionSeverityOf, formatIssue, severityOf, type Severity } from '../../../src/model/result.ts';

const HOST = 'demo.shop.svc.cluster.local';
type Kind = 'VirtualService' | 'DestinationRule' | 'ServiceEntry';

/** A valid spec of each kind; each case merges YAML into it. */
const VALID: Readonly<Record<Kind, string>> = {
  VirtualService: `
hosts: [${HOST}]
http:
- match: [{method: {exact: sayHello}, headers: {x-user: {regex: "^a.*"}}}]
  route: [{destination: {host: ${HOST}, subset: v1, port: {number: 20880}}}]
  timeout: 1.5s
  retries: {attempts: 3, perTryTimeout: 100ms}
tcp: [{route: [{destination: {host: ${HOST}}}]}]
`,
  DestinationRule: `
host: ${HOST}
trafficPolicy:
  loadBalancer: {consistentHash: {httpHeaderName: x-user}}
  connectionPool: {tcp: {maxConnections: 10, connectTimeout: 30ms}, http: {http1MaxPendingRequests: 1}}
  outlierDetection: {consecutive5xxErrors: 5, interval: 10s, baseEjectionTime: 30s, maxEjectionPercent: 50}
subsets:
- {name: v1, labels: {version: v1, app.kubernetes.io/name: demo}}
- {name: v2, labels: {version: v2}}
`,
  ServiceEntry: `
hosts: [${HOST}, "*.example.com", Upper.Example.COM]
addresses: [10.0.0.1, 10.1.0.0/16, "2001:db8::/32"]
ports: [{number: 20880, name: tcp-metaprotocol-dubbo, protocol: TCP, targetPort: 20881}, {number: 9000, name: tcp-other}]
resolution: STATIC
location: MESH_INTERNAL
workloadSelector: {labels: {app: demo}}
exportTo: [".", other]
`,
};

function parse(kind: Kind, patch: string) {
  const spec = { ...(parseYaml(VALID[kind]) as object), ...((parseYaml(patch) as object | null) ?? {}) };
  const r = parseConfigObject({
    apiVersion: 'networking.istio.io/v1',
    kind,
    metadata: { name: 'obj', namespace: 'shop' },
    spec,
  });
  assert.ok(r, 'recognised');
  return r;
}

/** Severity both ways, or `admission`: an error for admission, a warning for the controller. */
type Expected = Severity | 'admission';

/** Asserts exactly one issue besides none, at `path`, of `expected`, whose message has `fragment`. */
function assertIssue(kind: Kind, patch: string, expected: Expected, path: string, fragment: string): void {
  const severity: Severity = expected === 'admission' ? 'warning' : expected;
  const r = parse(kind, patch);
  const lines = r.issues.map(formatIssue).join('\n');
  assert.equal(r.issues.length, 1, lines);
  const [i] = r.issues;
  assert.ok(i);
  assert.deepEqual(i.ref, { kind, namespace: 'shop', name: 'obj' });
  assert.equal(i.path, path, lines);
  assert.equal(severityOf(i), severity, lines);
  assert.equal(admissionSeverityOf(i), expected === 'admission' ? 'error' : severity, lines);
  assert.ok(i.message.includes(fragment), `${lines} has ${fragment}`);
  assert.equal(r.ok, severity === 'warning', 'an error rejects the object, a warning does not');
}

const VS_ROUTE = (extra: string) => `
http:
- route: [{destination: {host: ${HOST}}}]
  ${extra}
`;

const CASES: readonly [Kind, string, string, Expected, string, string][] = [
  // VirtualService
  ['VirtualService', 'no hosts', 'hosts: []', 'admission', 'spec.hosts', 'at least one host'],
  ['VirtualService', 'host not a domain', 'hosts: [bad_host]', 'error', 'spec.hosts[0]', 'DNS-1123'],
  ['VirtualService', '"*" bound to the mesh', 'hosts: ["*"]', 'error', 'spec.hosts[0]', 'bound to the mesh'],
  ['VirtualService', 'wildcard in the middle', 'hosts: ["a.*.com"]', 'error', 'spec.hosts[0]', 'first label'],
  [
    'VirtualService',
    'destination host "*"',
    'http: [{route: [{destination: {host: "*"}}]}]',
    'admission',
    'spec.http[0].route[0].destination.host',
    'invalid destination host',
  ],
  [
    'VirtualService',
    'subset not a label',
    'http: [{route: [{destination: {host: demo, subset: Bad_Subset}}]}]',
    'admission',
    'spec.http[0].route[0].destination.subset',
    'DNS-1123 label',
  ],
  [
    'VirtualService',
    'destination port 0',
    'tcp: [{route: [{destination: {host: demo, port: {number: 0}}}]}]',
    'admission',
    'spec.tcp[0].route[0].destination.port.number',
    'between 1 and 65535',
  ],
  [
    'VirtualService',
    'weights add up to 0',
    'http: [{route: [{destination: {host: demo, subset: a}, weight: 0}, {destination: {host: demo, subset: b}}]}]',
    'error',
    'spec.http[0].route',
    'add up to 0',
  ],
  [
    'VirtualService',
    'weights 90 + 60',
    'http: [{route: [{destination: {host: demo, subset: a}, weight: 90}, {destination: {host: demo, subset: b}, weight: 60}]}]',
    'warning',
    'spec.http[0].route',
    'add up to 150, not 100',
  ],
  [
    'VirtualService',
    'invalid RE2 header regex',
    `http: [{match: [{headers: {x-user: {regex: "([a-"}}}], route: [{destination: {host: demo}}]}]`,
    'error',
    'spec.http[0].match[0].headers.x-user.regex',
    'not a valid RE2 regex',
  ],
  [
    'VirtualService',
    'RE2 rejects a lookahead',
    `http: [{match: [{method: {regex: "(?=a)b"}}], route: [{destination: {host: demo}}]}]`,
    'error',
    'spec.http[0].match[0].method.regex',
    'not a valid RE2 regex',
  ],
  [
    'VirtualService',
    'empty regex',
    `http: [{match: [{method: {regex: ""}}], route: [{destination: {host: demo}}]}]`,
    'error',
    'spec.http[0].match[0].method.regex',
    'must not be empty',
  ],
  [
    'VirtualService',
    'empty header name',
    `http: [{match: [{headers: {"": {exact: a}}}], route: [{destination: {host: demo}}]}]`,
    'error',
    'spec.http[0].match[0].headers[""]',
    'header name must not be empty',
  ],
  [
    'VirtualService',
    'mirror percentage above 100',
    VS_ROUTE(`mirror: {host: ${HOST}}\n  mirrorPercentage: {value: 120}`),
    'admission',
    'spec.http[0].mirrorPercentage.value',
    'between 0 and 100',
  ],
  [
    'VirtualService',
    'mirror percentage without mirror',
    VS_ROUTE('mirrorPercentage: {value: 20}'),
    'warning',
    'spec.http[0].mirrorPercentage',
    'nothing is mirrored',
  ],
  [
    'VirtualService',
    'mirror subset',
    VS_ROUTE('mirror: {host: demo, subset: V1}'),
    'admission',
    'spec.http[0].mirror.subset',
    'DNS-1123 label',
  ],
  [
    'VirtualService',
    'timeout below 1ms precision',
    VS_ROUTE('timeout: 1500us'),
    'admission',
    'spec.http[0].timeout',
    'whole milliseconds',
  ],
  [
    'VirtualService',
    'timeout not a duration',
    VS_ROUTE('timeout: soon'),
    'error',
    'spec.http[0].timeout',
    'invalid duration',
  ],
  [
    'VirtualService',
    'negative retry attempts',
    VS_ROUTE('retries: {attempts: -1}'),
    'admission',
    'spec.http[0].retries.attempts',
    'must not be negative',
  ],
  [
    'VirtualService',
    'zero per-try timeout',
    VS_ROUTE('retries: {attempts: 2, perTryTimeout: 0s}'),
    'admission',
    'spec.http[0].retries.perTryTimeout',
    'at least 1ms',
  ],
  [
    'VirtualService',
    'TCP route without destinations',
    'tcp: [{route: []}]',
    'admission',
    'spec.tcp[0].route',
    'at least one destination',
  ],
  [
    'VirtualService',
    'TLS match without SNI hosts',
    `tls: [{match: [{port: 443}], route: [{destination: {host: demo}}]}]`,
    'admission',
    'spec.tls[0].match[0].sniHosts',
    'SNI host',
  ],
  [
    'VirtualService',
    'TLS destination subset',
    `tls: [{match: [{sniHosts: [demo.example.com]}], route: [{destination: {host: demo, subset: Bad}}]}]`,
    'admission',
    'spec.tls[0].route[0].destination.subset',
    'DNS-1123 label',
  ],
  [
    'VirtualService',
    '"~" outside a ServiceEntry',
    'exportTo: ["~"]',
    'admission',
    'spec.exportTo[0]',
    'only allowed in a ServiceEntry',
  ],
  [
    'VirtualService',
    '"." and its namespace',
    'exportTo: [".", shop]',
    'admission',
    'spec.exportTo[1]',
    'duplicate entry',
  ],
  // DestinationRule
  ['DestinationRule', 'host not a domain', 'host: "a..b"', 'error', 'spec.host', 'DNS-1123'],
  [
    'DestinationRule',
    'subset name not a label',
    'subsets: [{name: Bad_Subset}]',
    'admission',
    'spec.subsets[0].name',
    'DNS-1123 label',
  ],
  [
    'DestinationRule',
    'duplicate subset',
    'subsets: [{name: v1}, {name: v1}]',
    'error',
    'spec.subsets[1].name',
    'duplicate subset name',
  ],
  [
    'DestinationRule',
    'label key',
    'subsets: [{name: v1, labels: {"-bad": x}}]',
    'admission',
    'spec.subsets[0].labels.-bad',
    'not a label key',
  ],
  [
    'DestinationRule',
    'label value',
    'subsets: [{name: v1, labels: {version: "v 1"}}]',
    'admission',
    'spec.subsets[0].labels.version',
    'not a label value',
  ],
  [
    'DestinationRule',
    'two hash keys',
    'trafficPolicy: {loadBalancer: {consistentHash: {httpHeaderName: x, useSourceIp: true}}}',
    'admission',
    'spec.trafficPolicy.loadBalancer.consistentHash',
    'only one hash key',
  ],
  [
    'DestinationRule',
    'no hash key',
    'trafficPolicy: {loadBalancer: {consistentHash: {}}}',
    'warning',
    'spec.trafficPolicy.loadBalancer.consistentHash',
    'no hash key',
  ],
  [
    'DestinationRule',
    'simple and consistentHash',
    'trafficPolicy: {loadBalancer: {simple: RANDOM, consistentHash: {useSourceIp: true}}}',
    'admission',
    'spec.trafficPolicy.loadBalancer',
    'only one of simple and consistentHash',
  ],
  [
    'DestinationRule',
    'unknown simple policy',
    'trafficPolicy: {loadBalancer: {simple: FASTEST}}',
    'admission',
    'spec.trafficPolicy.loadBalancer.simple',
    'unknown value "FASTEST"',
  ],
  [
    'DestinationRule',
    'cookie without a name',
    'trafficPolicy: {loadBalancer: {consistentHash: {httpCookie: {name: "", ttl: 10s}}}}',
    'admission',
    'spec.trafficPolicy.loadBalancer.consistentHash.httpCookie.name',
    'must not be empty',
  ],
  [
    'DestinationRule',
    'negative connection pool number',
    'trafficPolicy: {connectionPool: {http: {maxRetries: -1}}}',
    'admission',
    'spec.trafficPolicy.connectionPool.http.maxRetries',
    'must not be negative',
  ],
  [
    'DestinationRule',
    'connect timeout 0',
    'trafficPolicy: {connectionPool: {tcp: {connectTimeout: 0s}}}',
    'admission',
    'spec.trafficPolicy.connectionPool.tcp.connectTimeout',
    'at least 1ms',
  ],
  [
    'DestinationRule',
    'outlier interval not a duration',
    'trafficPolicy: {outlierDetection: {interval: often}}',
    'error',
    'spec.trafficPolicy.outlierDetection.interval',
    'invalid duration',
  ],
  [
    'DestinationRule',
    'ejection percentage above 100',
    'trafficPolicy: {outlierDetection: {maxEjectionPercent: 150}}',
    'admission',
    'spec.trafficPolicy.outlierDetection.maxEjectionPercent',
    'at most 100',
  ],
  [
    'DestinationRule',
    'a subset traffic policy',
    'subsets: [{name: v1, trafficPolicy: {outlierDetection: {baseEjectionTime: 0.0005s}}}]',
    'admission',
    'spec.subsets[0].trafficPolicy.outlierDetection.baseEjectionTime',
    'whole milliseconds',
  ],
  [
    'DestinationRule',
    '"*" with others',
    'exportTo: ["*", other]',
    'admission',
    'spec.exportTo',
    'cannot be combined',
  ],
  // ServiceEntry
  ['ServiceEntry', 'no hosts', 'hosts: []', 'error', 'spec.hosts', 'at least one host'],
  ['ServiceEntry', 'host "*"', 'hosts: ["*"]', 'error', 'spec.hosts[0]', 'not allowed in a ServiceEntry'],
  ['ServiceEntry', 'host an IP', 'hosts: [10.0.0.1]', 'error', 'spec.hosts[0]', 'all-numeric'],
  [
    'ServiceEntry',
    'address',
    'addresses: [10.0.0.256]',
    'admission',
    'spec.addresses[0]',
    'neither an IP address nor a CIDR',
  ],
  [
    'ServiceEntry',
    'CIDR prefix',
    'addresses: [10.0.0.0/33]',
    'admission',
    'spec.addresses[0]',
    'between 0 and 32',
  ],
  [
    'ServiceEntry',
    'duplicate port number',
    'ports: [{number: 80, name: http-a}, {number: 80, name: http-b}]',
    'error',
    'spec.ports[1].number',
    'already defined by spec.ports[0]',
  ],
  [
    'ServiceEntry',
    'duplicate port name',
    'ports: [{number: 80, name: http}, {number: 81, name: http}]',
    'admission',
    'spec.ports[1].name',
    'already used by spec.ports[0]',
  ],
  [
    'ServiceEntry',
    'port 0',
    'ports: [{number: 0, name: http}]',
    'error',
    'spec.ports[0].number',
    'between 1 and 65535',
  ],
  [
    'ServiceEntry',
    'target port 0',
    'ports: [{number: 80, name: http, targetPort: 0}]',
    'admission',
    'spec.ports[0].targetPort',
    'between 1 and 65535',
  ],
  ['ServiceEntry', 'resolution', 'resolution: DNS_FIRST', 'error', 'spec.resolution', 'unknown value'],
  ['ServiceEntry', 'location', 'location: INTERNAL', 'admission', 'spec.location', 'unknown value'],
  [
    'ServiceEntry',
    'workloadSelector and endpoints',
    'endpoints: [{address: 10.0.0.2}]',
    'admission',
    'spec.workloadSelector',
    'only one of workloadSelector and endpoints',
  ],
  [
    'ServiceEntry',
    'selector label',
    'workloadSelector: {labels: {app: "a/b"}}',
    'error',
    'spec.workloadSelector.labels.app',
    'not a label value',
  ],
  [
    'ServiceEntry',
    'STATIC endpoint not an IP',
    'workloadSelector: null\nendpoints: [{address: db.example.com}]',
    'admission',
    'spec.endpoints[0].address',
    'STATIC resolution needs IP endpoints',
  ],
  [
    'ServiceEntry',
    '"~" with others',
    'exportTo: ["~", "."]',
    'admission',
    'spec.exportTo',
    'cannot be combined',
  ],
];

describe('Istio rules: VirtualService, DestinationRule, ServiceEntry', () => {
  for (const kind of ['VirtualService', 'DestinationRule', 'ServiceEntry'] as const) {
    it(`a valid ${kind} has no issue`, () => {
      const r = parse(kind, '');
      assert.deepEqual(r.issues.map(formatIssue), []);
      assert.equal(r.ok, true);
    });
  }

  for (const [kind, name, patch, severity, path, fragment] of CASES) {
    it(`${kind}: ${name} is ${severity === 'error' ? 'an error' : 'a warning'} at ${path}`, () => {
      assertIssue(kind, patch, severity, path, fragment);
    });
  }

  it('a DNS endpoint may be a domain name; a ServiceEntry may export to "~" alone', () => {
    const r = parse(
      'ServiceEntry',
      'workloadSelector: null\nresolution: DNS\nendpoints: [{address: db.example.com}]',
    );
    assert.deepEqual(r.issues.map(formatIssue), []);
    assert.deepEqual(parse('ServiceEntry', 'exportTo: ["~"]').issues, []);
  });
});
