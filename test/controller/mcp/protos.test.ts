import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decodeBody,
  decodeEnvelope,
  formatTimestamp,
  RESOURCE_NAME_PATH,
} from '../../../src/controller/mcp/decode.ts';
import { loadMcpProtos } from '../../../src/controller/mcp/protos.ts';
import { typeUrlFor } from '../../../src/controller/mcp/type-urls.ts';
import type { IstioConfig } from '../../../src/model/objects.ts';
import { parseConfigObject } from '../../../src/model/parse/parse.ts';
import { encodeResource, encodeResourceWithBody, fromConfig, GARBAGE } from '../../fakes/istiod/encode.ts';
import { destinationRule, gateway, serviceEntry, virtualService } from '../../support/builders.ts';

const protos = loadMcpProtos();

/** Field numbers from spec/wire-formats.md §1.5 and §2 (the wire format). */
const FIELD_NUMBERS: Record<string, Record<string, number>> = {
  'istio.mcp.v1alpha1.Resource': { metadata: 1, body: 2 },
  'istio.mcp.v1alpha1.Metadata': { name: 1, createTime: 2, version: 3, labels: 4, annotations: 5 },
  'istio.networking.v1alpha3.ServiceEntry': {
    hosts: 1,
    addresses: 2,
    ports: 3,
    location: 4,
    resolution: 5,
    endpoints: 6,
    exportTo: 7,
    subjectAltNames: 8,
    workloadSelector: 9,
  },
  'istio.networking.v1alpha3.ServicePort': { number: 1, protocol: 2, name: 3, targetPort: 4 },
  'istio.networking.v1alpha3.WorkloadEntry': {
    address: 1,
    ports: 2,
    labels: 3,
    network: 4,
    locality: 5,
    weight: 6,
    serviceAccount: 7,
  },
  'istio.networking.v1alpha3.WorkloadSelector': { labels: 1 },
  'istio.networking.v1alpha3.VirtualService': { hosts: 1, gateways: 2, http: 3, tcp: 4, exportTo: 6 },
  'istio.networking.v1alpha3.HTTPRoute': {
    match: 1,
    route: 2,
    timeout: 6,
    mirror: 9,
    headers: 16,
    name: 17,
    mirrorPercent: 18,
    mirrorPercentage: 19,
    mirrors: 22,
  },
  'istio.networking.v1alpha3.HTTPMatchRequest': {
    uri: 1,
    scheme: 2,
    method: 3,
    authority: 4,
    headers: 5,
    port: 6,
    sourceLabels: 7,
    gateways: 8,
    queryParams: 9,
    ignoreUriCase: 10,
    name: 11,
    withoutHeaders: 12,
    sourceNamespace: 13,
    statPrefix: 14,
  },
  'istio.networking.v1alpha3.StringMatch': { exact: 1, prefix: 2, regex: 3 },
  'istio.networking.v1alpha3.HTTPRouteDestination': { destination: 1, weight: 2, headers: 7 },
  'istio.networking.v1alpha3.Destination': { host: 1, subset: 2, port: 3 },
  'istio.networking.v1alpha3.PortSelector': { number: 1 },
  'istio.networking.v1alpha3.TCPRoute': { match: 1, route: 2 },
  'istio.networking.v1alpha3.RouteDestination': { destination: 1, weight: 2 },
  'istio.networking.v1alpha3.DestinationRule': {
    host: 1,
    trafficPolicy: 2,
    subsets: 3,
    exportTo: 4,
    workloadSelector: 5,
  },
  'istio.networking.v1alpha3.Subset': { name: 1, labels: 2, trafficPolicy: 3 },
  'istio.networking.v1alpha3.TrafficPolicy': {
    loadBalancer: 1,
    connectionPool: 2,
    outlierDetection: 3,
    portLevelSettings: 5,
  },
  'istio.networking.v1alpha3.LoadBalancerSettings': { simple: 1, consistentHash: 2 },
  'istio.networking.v1alpha3.LoadBalancerSettings.ConsistentHashLB': {
    httpHeaderName: 1,
    httpCookie: 2,
    useSourceIp: 3,
    minimumRingSize: 4,
    httpQueryParameterName: 5,
    ringHash: 6,
    maglev: 7,
  },
  'istio.networking.v1alpha3.Gateway': { servers: 1, selector: 2 },
  'istio.networking.v1alpha3.Server': { port: 1, hosts: 2, bind: 4, defaultEndpoint: 5, name: 6 },
  'istio.networking.v1alpha3.Port': { number: 1, protocol: 2, name: 3, targetPort: 4 },
  'istio.type.v1beta1.WorkloadSelector': { matchLabels: 1 },
};

const meta = {
  resourceVersion: '812',
  labels: { app: 'demo' },
  annotations: { interface: 'org.apache.dubbo.samples.DemoService' },
};

const SAMPLES: IstioConfig[] = [
  serviceEntry(
    'meta-dubbo',
    'dubbo-demoservice',
    {
      hosts: ['org.apache.dubbo.samples.basic.api.demoservice'],
      addresses: ['192.168.1.1', '192.168.1.2'],
      ports: [
        { number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP', targetPort: 20881 },
        { number: 9090, name: 'tcp-thrift' },
      ],
      location: 'MESH_INTERNAL',
      resolution: 'STATIC',
      exportTo: ['.'],
      workloadSelector: { labels: { app: 'dubbo-sample-provider', version: 'v1' } },
    },
    meta,
  ),
  virtualService(
    'meta-dubbo',
    'test-dubbo-route',
    {
      hosts: ['org.apache.dubbo.samples.basic.api.demoservice'],
      gateways: ['istio-system/ingress'],
      http: [
        {
          name: 'v1-routes',
          match: [
            {
              name: 'm',
              method: { exact: 'sayHello' },
              headers: { foo: { prefix: 'bar' }, baz: { regex: 'q.*' } },
              port: 20880,
            },
          ],
          route: [
            {
              destination: {
                host: 'org.apache.dubbo.samples.basic.api.demoservice',
                subset: 'v1',
                port: { number: 20880 },
              },
              weight: 20,
            },
            {
              destination: { host: 'org.apache.dubbo.samples.basic.api.demoservice', subset: 'v2' },
              weight: 80,
            },
          ],
        },
      ],
      tcp: [{ match: [{ port: 9000 }], route: [{ destination: { host: 'x.y', subset: 'a' }, weight: 100 }] }],
      exportTo: ['*'],
    },
    meta,
  ),
  destinationRule(
    'meta-thrift',
    'thrift-sample-server',
    {
      host: 'thrift-sample-server.meta-thrift.svc.cluster.local',
      trafficPolicy: { loadBalancer: { consistentHash: { httpHeaderName: 'x-user' } } },
      subsets: [
        { name: 'v1', labels: { version: 'v1' }, trafficPolicy: { loadBalancer: { simple: 'ROUND_ROBIN' } } },
        {
          name: 'v2',
          labels: { version: 'v2' },
          trafficPolicy: { loadBalancer: { consistentHash: { useSourceIp: true } } },
        },
      ],
      exportTo: ['.'],
    },
    meta,
  ),
  gateway(
    'istio-system',
    'istio-ingressgateway',
    {
      servers: [
        {
          port: { number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP', targetPort: 20881 },
          hosts: ['*'],
          name: 's1',
        },
      ],
      selector: { istio: 'ingressgateway' },
    },
    meta,
  ),
];

describe('MCP protos', () => {
  it('use the field numbers of the wire format', () => {
    for (const [message, fields] of Object.entries(FIELD_NUMBERS)) {
      const type = protos.root.lookupType(message);
      const actual = Object.fromEntries(Object.keys(fields).map((f) => [f, type.fields[f]?.id]));
      assert.deepEqual(actual, fields, message);
    }
  });

  for (const sample of SAMPLES) {
    it(`round-trips a ${sample.kind} through encode/decode into the typed model`, () => {
      for (const version of ['v1', 'v1alpha3'] as const) {
        const any = encodeResource(protos, fromConfig(sample));
        const env = decodeEnvelope(protos, any);
        assert.ok(env.ok);
        const decoded = decodeBody(protos, typeUrlFor(sample.kind, version), env.value, parseConfigObject);
        assert.equal(decoded.status, 'ok', JSON.stringify(decoded));
        if (decoded.status !== 'ok') return;
        assert.deepEqual(decoded.object, { ...sample, apiVersion: `networking.istio.io/${version}` });
      }
    });
  }

  it('decodes the envelope: name split, version, timestamp at second precision', () => {
    const any = encodeResource(protos, { ...fromConfig(SAMPLES[0]!), createTime: 1_747_030_000 });
    const env = decodeEnvelope(protos, any);
    assert.ok(env.ok);
    assert.equal(env.value.key, 'meta-dubbo/dubbo-demoservice');
    assert.equal(env.value.version, '812');
    assert.equal(env.value.createTime, '2025-05-12T06:06:40Z');
    assert.equal(formatTimestamp(undefined), '');
    assert.equal(formatTimestamp({ seconds: -62_135_596_800 }), '', "Go's zero time (synthetic entries)");
    assert.equal(formatTimestamp({ seconds: 0, nanos: 5 }), '1970-01-01T00:00:00Z');
  });

  it('reports names that are not <namespace>/<name>, foreign types and garbage without throwing', () => {
    const noSlash = encodeResourceWithBody(
      protos,
      { kind: 'ServiceEntry', namespace: 'x', name: 'y' },
      { type_url: 'a', value: GARBAGE },
    );
    const r = protos.Resource.decode(noSlash.value) as unknown as { metadata: { name: string } };
    r.metadata.name = 'dubbo-demoservice';
    const bad = { type_url: noSlash.type_url, value: protos.Resource.encode(r).finish() };
    const e1 = decodeEnvelope(protos, bad);
    assert.ok(!e1.ok && /not <namespace>\/<name>/.test(e1.issues[0]?.message ?? ''));
    assert.equal(e1.issues[0]?.path, RESOURCE_NAME_PATH);
    const e2 = decodeEnvelope(protos, {
      type_url: 'type.googleapis.com/istio.networking.v1alpha3.ServiceEntry',
      value: new Uint8Array(),
    });
    assert.ok(!e2.ok && /unexpected resource type/.test(e2.issues[0]?.message ?? ''));
    assert.notEqual(e2.issues[0]?.path, RESOURCE_NAME_PATH);
    const e3 = decodeEnvelope(protos, { type_url: noSlash.type_url, value: GARBAGE });
    assert.ok(!e3.ok && /cannot decode/.test(e3.issues[0]?.message ?? ''));
    assert.notEqual(e3.issues[0]?.path, RESOURCE_NAME_PATH);
    const env = decodeEnvelope(protos, noSlash);
    assert.ok(env.ok);
    const d = decodeBody(protos, typeUrlFor('ServiceEntry', 'v1'), env.value, parseConfigObject);
    assert.equal(d.status, 'undecodable');
    assert.equal(d.key, 'x/y');
  });
});
