// MCP benchmark: one DiscoveryResponse with 10,000 ServiceEntries (as istiod's api generator encodes them).
// Compares decode + apply to a ConfigStore (the client's whole receive path: envelope decode, body decode,
// proto3 JSON, validation, store replaceKind with events) with protobufjs alone decoding the same bytes
// (outer response, every MCP Resource and every body). Target ratio <= 2. Also a repeated push of the same
// answer (the common case: istiod re-sends every watched type on each full push), the same answer with one
// resource changed (one config change in a mesh of 10,000: the cost should be that of the change) and the heap held.
import { performance } from 'node:perf_hooks';
import { loadMcpProtos, type McpProtos } from '/work/wt-mcpinc22/src/controller/mcp/protos.ts';
import { McpState } from '/work/wt-mcpinc22/src/controller/mcp/state.ts';
import type { DiscoveryResponseMessage } from '/work/wt-mcpinc22/src/controller/mcp/transport.ts';
import { subscribedTypeUrls, typeUrlFor } from '/work/wt-mcpinc22/src/controller/mcp/type-urls.ts';
import { ConfigStore } from '/work/wt-mcpinc22/src/controller/store.ts';
import { parseConfigObject } from '/work/wt-mcpinc22/src/model/parse.ts';
import { encodeResource } from '/work/wt-mcpinc22/test/fakes/istiod/encode.ts';

const COUNT = 10_000;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** The answer; `changed` gives its first ServiceEntry a new version and port (one config change). */
function buildResponse(protos: McpProtos, changed = false): Uint8Array {
  const resources = [];
  for (let i = 0; i < COUNT; i++) {
    const ns = `ns-${i % 50}`;
    const name = `svc-${i}`;
    const change = changed && i === 0;
    resources.push(
      encodeResource(protos, {
        kind: 'ServiceEntry',
        namespace: ns,
        name,
        version: String((change ? 200_000 : 100_000) + i),
        createTime: 1_767_225_600 + i,
        labels: { app: name, 'app.kubernetes.io/part-of': 'bench' },
        annotations: { interface: `org.apache.dubbo.samples.Service${i}` },
        spec: {
          hosts: [`${name}.${ns}.svc.cluster.local`],
          addresses: [`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`],
          ports: [
            { number: 20880, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP', targetPort: 20880 },
            { number: change ? 8081 : 8080, name: 'http-web', protocol: 'HTTP' },
          ],
          location: 'MESH_INTERNAL',
          resolution: 'STATIC',
          workloadSelector: { labels: { app: name } },
        },
      }),
    );
  }
  const msg = protos.DiscoveryResponse.fromObject({
    versionInfo: 'v1',
    typeUrl: 'networking.istio.io/v1/ServiceEntry',
    nonce: 'n1',
  });
  (msg as unknown as { resources: unknown[] }).resources = resources.map((r) => protos.Any.create(r));
  return protos.DiscoveryResponse.encode(msg).finish();
}

/** Runs every case once per round, interleaved, so load changes on a shared machine hit all cases alike. */
function interleaved(cases: Record<string, () => void>, rounds: number): Record<string, number> {
  const times: Record<string, number[]> = {};
  for (let i = 0; i < rounds; i++) {
    for (const [name, fn] of Object.entries(cases)) {
      gc();
      const t0 = performance.now();
      fn();
      (times[name] ??= []).push(performance.now() - t0);
    }
  }
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
}

function responseResources(
  protos: McpProtos,
  bytes: Uint8Array,
): NonNullable<DiscoveryResponseMessage['resources']> {
  return (protos.DiscoveryResponse.decode(bytes) as DiscoveryResponseMessage).resources ?? [];
}


const protos = loadMcpProtos();
const bytes = buildResponse(protos);
const type = typeUrlFor('ServiceEntry', 'v1');
const urls = subscribedTypeUrls('v1');
const store = new ConfigStore({ rootNamespace: 'istio-system' });
const state = new McpState(protos, store, parseConfigObject, '', urls);
state.applyResponse(type, responseResources(protos, bytes));
const r = responseResources(protos, bytes);
const T = (name: string, fn: () => void) => { const xs=[]; for (let i=0;i<11;i++){ gc(); const t=performance.now(); fn(); xs.push(performance.now()-t);} xs.sort((a,b)=>a-b); console.log(name, xs[5].toFixed(1)); };
T('response', () => responseResources(protos, bytes));
T('apply pre-decoded', () => state.applyResponse(type, r));
T('both', () => state.applyResponse(type, responseResources(protos, bytes)));
if (process.env.PROF) for (let i=0;i<200;i++) state.applyResponse(type, r);
const held = r.map((a) => Buffer.from(a.value ?? new Uint8Array()));
T('equals only', () => { let n = 0; r.forEach((a, i) => { if (held[i]!.equals(a.value!)) n++; }); if (n !== r.length) throw new Error(); });
T('Buffer.compare', () => { let n = 0; r.forEach((a, i) => { if (Buffer.compare(held[i]!, a.value!) === 0) n++; }); });
const m = new Map(held.map((h, i) => [String(i) + 'key/ns', h]));
const keys = [...m.keys()];
T('map build', () => { const x = new Map(); for (const k of keys) x.set(k, m.get(k)); });
T('type_url', () => { let n = 0; for (const a of r) if (a.type_url === 'type.googleapis.com/istio.mcp.v1alpha1.Resource') n++; });
{
  const t = performance.now();
  for (let i = 0; i < 50; i++) state.applyResponse(type, r);
  console.log('apply x50 avg', ((performance.now() - t) / 50).toFixed(1));
  const t2 = performance.now();
  for (let i = 0; i < 50; i++) { const a = new Map(); const o = []; r.forEach((x, j) => { const e = held[j]!; if (e.equals(x.value!)) { a.set(keys[j], e); o.push(e); } }); }
  console.log('skeleton x50 avg', ((performance.now() - t2) / 50).toFixed(1));
}
