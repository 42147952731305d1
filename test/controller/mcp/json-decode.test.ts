import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import protobuf from 'protobufjs';
import { decodeToJson } from '../../../src/controller/mcp/json-decode.ts';
import { loadMcpProtos } from '../../../src/controller/mcp/protos.ts';

const protos = loadMcpProtos();

/** Specs touching every field shape: repeated, packed, maps of scalars and messages, enums, oneofs, int64, wrappers. */
const SAMPLES: Record<string, Record<string, unknown>> = {
  ServiceEntry: {
    hosts: ['a.example.com', 'b'],
    addresses: ['1.1.1.1'],
    ports: [
      { number: 1, name: 'x', targetPort: 0 },
      { number: 2, name: 'y', protocol: 'TCP' },
    ],
    location: 'MESH_INTERNAL',
    resolution: 'DNS_ROUND_ROBIN',
    endpoints: [{ address: 'e', ports: { a: 1, b: 2 }, labels: { k: 'v' }, weight: 3 }],
    workloadSelector: { labels: { app: 'z' } },
    exportTo: ['.'],
  },
  VirtualService: {
    hosts: ['h'],
    http: [
      {
        name: 'r',
        match: [
          { method: { exact: 'm' }, headers: { a: { prefix: 'p' }, b: {} }, port: 8, ignoreUriCase: true },
        ],
        route: [{ destination: { host: 'h', subset: 's', port: { number: 9 } }, weight: 5 }],
        timeout: { seconds: 3, nanos: 5 },
        mirrorPercent: { value: 7 },
        mirrorPercentage: { value: 1.5 },
      },
    ],
    tcp: [{ match: [{ port: 1, destinationSubnets: ['x'] }], route: [{ destination: { host: 'q' } }] }],
  },
  DestinationRule: {
    host: 'h',
    trafficPolicy: {
      loadBalancer: {
        consistentHash: { httpHeaderName: 'x', minimumRingSize: 1024, ringHash: { minimumRingSize: 2048 } },
      },
      connectionPool: {
        tcp: { maxConnections: 5, connectTimeout: { seconds: 1 } },
        http: { h2UpgradePolicy: 'UPGRADE' },
      },
      outlierDetection: {
        interval: { seconds: 10 },
        maxEjectionPercent: -1,
        outlierDetectionHttpErrorCodes: [502, 503],
      },
    },
    subsets: [
      { name: 'v1', labels: { v: '1' }, trafficPolicy: { loadBalancer: { simple: 'LEAST_REQUEST' } } },
    ],
    workloadSelector: { matchLabels: { a: 'b' } },
  },
  Gateway: {
    servers: [
      { port: { number: 80, name: 'http', protocol: 'HTTP' }, hosts: ['*'], bind: '0.0.0.0', name: 's' },
    ],
    selector: { istio: 'ingress' },
  },
};

describe('decodeToJson', () => {
  for (const [kind, spec] of Object.entries(SAMPLES)) {
    it(`gives what protobufjs decode + toObject gives for a ${kind}`, () => {
      const type = protos.root.lookupType(`istio.networking.v1alpha3.${kind}`);
      const bytes = type.encode(type.fromObject(spec)).finish();
      const expected = type.toObject(type.decode(bytes), { enums: String, longs: Number, bytes: String });
      assert.deepEqual(decodeToJson(type, bytes), JSON.parse(JSON.stringify(expected)));
    });
  }

  it('reads packed and unpacked repeated scalars, keeps unknown enum numbers, skips unknown fields', () => {
    const type = protos.root.lookupType('istio.networking.v1alpha3.ServiceEntry');
    const w = protobuf.Writer.create();
    w.uint32((4 << 3) | 0).int32(7); // location = 7 (not a known enum value)
    w.uint32((99 << 3) | 2).string('unknown field');
    w.uint32((1 << 3) | 0).uint32(5); // hosts with the wrong wire type: skipped
    w.uint32((1 << 3) | 2).string('h');
    assert.deepEqual(decodeToJson(type, w.finish()), { location: 7, hosts: ['h'] });
    const od = protos.root.lookupType('istio.networking.v1alpha3.OutlierDetection');
    const codes = protobuf.Writer.create();
    codes
      .uint32((10 << 3) | 2)
      .fork()
      .uint32(500)
      .uint32(503)
      .ldelim(); // packed
    codes.uint32((10 << 3) | 0).uint32(504); // unpacked
    assert.deepEqual(decodeToJson(od, codes.finish()), { outlierDetectionHttpErrorCodes: [500, 503, 504] });
  });

  it('throws on truncated input (reported by the caller as undecodable)', () => {
    const type = protos.root.lookupType('istio.networking.v1alpha3.ServiceEntry');
    assert.throws(() => decodeToJson(type, Uint8Array.from([0x0a, 0xff, 0xff, 0x01, 0x02])));
    assert.throws(() => decodeToJson(type, Uint8Array.from([0x1a, 0x05, 0x08])));
  });
});
