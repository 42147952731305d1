// MCP benchmark: one DiscoveryResponse with 10,000 ServiceEntries (as istiod's api generator encodes them).
// Compares decode + apply to a ConfigStore (the client's whole receive path: envelope decode, body decode,
// proto3 JSON, validation, store replaceKind with events) with protobufjs alone decoding the same bytes
// (outer response, every MCP Resource and every body). Target ratio <= 2. Also a repeated push of the same
// answer (the common case: istiod re-sends every watched type on each full push) and the heap held.
import { performance } from 'node:perf_hooks';
import { loadMcpProtos, type McpProtos } from '../src/controller/mcp/protos.ts';
import { McpState } from '../src/controller/mcp/state.ts';
import type { DiscoveryResponseMessage } from '../src/controller/mcp/transport.ts';
import { subscribedTypeUrls, typeUrlFor } from '../src/controller/mcp/type-urls.ts';
import { ConfigStore } from '../src/controller/store.ts';
import { parseConfigObject } from '../src/model/parse.ts';
import { encodeResource } from '../test/fakes/istiod/encode.ts';

const COUNT = 10_000;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function time(fn: () => void, runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    gc();
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  return median(times);
}

function buildResponse(protos: McpProtos): Uint8Array {
  const resources = [];
  for (let i = 0; i < COUNT; i++) {
    const ns = `ns-${i % 50}`;
    const name = `svc-${i}`;
    resources.push(
      encodeResource(protos, {
        kind: 'ServiceEntry',
        namespace: ns,
        name,
        version: String(100_000 + i),
        createTime: 1_767_225_600 + i,
        labels: { app: name, 'app.kubernetes.io/part-of': 'bench' },
        annotations: { interface: `org.apache.dubbo.samples.Service${i}` },
        spec: {
          hosts: [`${name}.${ns}.svc.cluster.local`],
          addresses: [`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`],
          ports: [
            { number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP', targetPort: 20880 },
            { number: 8080, name: 'http-web', protocol: 'HTTP' },
          ],
          location: 'MESH_INTERNAL',
          resolution: 'STATIC',
          workloadSelector: { labels: { app: name } },
        },
      }),
    );
  }
  const msg = protos.DiscoveryResponse.fromObject({ versionInfo: 'v1', typeUrl: 'networking.istio.io/v1/ServiceEntry', nonce: 'n1' });
  (msg as unknown as { resources: unknown[] }).resources = resources.map((r) => protos.Any.create(r));
  return protos.DiscoveryResponse.encode(msg).finish();
}

export async function benchMcp(): Promise<Record<string, unknown>> {
  const protos = loadMcpProtos();
  const bytes = buildResponse(protos);
  const bodyType = protos.bodies.get('type.googleapis.com/istio.networking.v1alpha3.ServiceEntry');
  if (!bodyType) throw new Error('no ServiceEntry type');
  const type = typeUrlFor('ServiceEntry', 'v1');
  const urls = subscribedTypeUrls('v1');
  const runs = 7;

  const protobufOnly = time(() => {
    const resp = protos.DiscoveryResponse.decode(bytes) as DiscoveryResponseMessage;
    for (const any of resp.resources ?? []) {
      const r = protos.Resource.decode(any.value ?? new Uint8Array()) as { body?: { value?: Uint8Array } };
      bodyType.decode(r.body?.value ?? new Uint8Array());
    }
  }, runs);

  let applied = 0;
  const cold = time(() => {
    const store = new ConfigStore({ rootNamespace: 'istio-system' });
    const state = new McpState(protos, store, parseConfigObject, '', urls);
    const resp = protos.DiscoveryResponse.decode(bytes) as DiscoveryResponseMessage;
    state.applyResponse(type, resp.resources ?? []);
    applied = store.list('ServiceEntry').length;
  }, runs);
  if (applied !== COUNT) throw new Error(`applied ${applied} of ${COUNT}`);

  const store = new ConfigStore({ rootNamespace: 'istio-system' });
  const state = new McpState(protos, store, parseConfigObject, '', urls);
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  state.applyResponse(type, (protos.DiscoveryResponse.decode(bytes) as DiscoveryResponseMessage).resources ?? []);
  gc();
  const heapHeldMb = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
  const repeat = time(() => {
    state.applyResponse(type, (protos.DiscoveryResponse.decode(bytes) as DiscoveryResponseMessage).resources ?? []);
  }, runs);

  const figures = {
    serviceEntries: COUNT,
    responseBytes: bytes.length,
    protobufOnlyDecodeMs: round(protobufOnly),
    decodeAndApplyMs: round(cold),
    ratio: round(cold / protobufOnly),
    repeatedPushMs: round(repeat),
    repeatedPushRatio: round(repeat / protobufOnly),
    heapHeldMb: round(heapHeldMb),
    rssMb: round(process.memoryUsage().rss / 2 ** 20),
  };
  console.log(JSON.stringify(figures, null, 2));
  return figures;
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

if (import.meta.url === `file://${process.argv[1]}`) await benchMcp();
