// Fuzz of the MCP decoders (wire.ts cursor, resource-decode.ts, decode.ts) and the per-type-URL state (state.ts):
// mutated and random Resource bytes and bodies, in responses beside a valid resource, never throw, and never
// touch the valid resource nor the objects of another kind; what cannot be decoded is reported, not applied.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadMcpProtos, MCP_RESOURCE_TYPE_URL } from '../../src/controller/mcp/protos.ts';
import { McpState } from '../../src/controller/mcp/state.ts';
import { subscribedTypeUrls, typeUrlFor } from '../../src/controller/mcp/type-urls.ts';
import { ConfigStore } from '../../src/controller/store.ts';
import { parseConfigObject } from '../../src/model/parse/parse.ts';
import { encodeResource, type AnyBytes } from '../fakes/istiod/encode.ts';
import { fuzzSeed, iterations, mutate, rng, type Rng } from './prng.ts';

const protos = loadMcpProtos();
const SE = typeUrlFor('ServiceEntry', 'v1');
const VS = typeUrlFor('VirtualService', 'v1');

const serviceEntry = (namespace: string, name: string, version: string): AnyBytes =>
  encodeResource(protos, {
    kind: 'ServiceEntry',
    namespace,
    name,
    version,
    labels: { app: name },
    createTime: 1_700_000_000,
    spec: { hosts: [`${name}.${namespace}.example`], ports: [{ number: 9000, name: 'tcp-metaprotocol-x' }] },
  });

const virtualService = encodeResource(protos, {
  kind: 'VirtualService',
  namespace: 'keep',
  name: 'vs',
  version: '1',
  spec: { hosts: ['vs.keep.example'], tcp: [{ route: [{ destination: { host: 'vs.keep.example' } }] }] },
});

/** A hostile resource: a mutated valid one, a valid envelope around a mutated body, random bytes, a wrong Any. */
function hostile(r: Rng, i: number): AnyBytes {
  const base = serviceEntry('fuzz', `se-${i % 7}`, String(i));
  switch (r.int(5)) {
    case 0:
      return { type_url: MCP_RESOURCE_TYPE_URL, value: r.bytes(r.int(200)) };
    case 1:
      return { type_url: r.pick(['', 'type.googleapis.com/x', MCP_RESOURCE_TYPE_URL]), value: base.value };
    case 2: {
      const msg = protos.Resource.decode(base.value) as unknown as { body: { value: Uint8Array } };
      msg.body.value = mutate(r, msg.body.value);
      return { type_url: MCP_RESOURCE_TYPE_URL, value: protos.Resource.encode(msg).finish() };
    }
    default:
      return { type_url: MCP_RESOURCE_TYPE_URL, value: mutate(r, base.value) };
  }
}

describe('fuzz: MCP decoders and state', () => {
  it('mutated and random resources never throw nor disturb valid ones or other kinds', () => {
    const seed = fuzzSeed('mcp');
    const r = rng(seed);
    const store = new ConfigStore({ rootNamespace: 'istio-system' });
    const state = new McpState(protos, store, parseConfigObject, '', subscribedTypeUrls('v1'));
    state.applyResponse(VS, [virtualService]);
    const good = serviceEntry('keep', 'good', '1');
    let undecodable = 0;
    for (let i = 0, n = iterations(1000); i < n; i++) {
      const resources = Array.from({ length: 1 + r.int(5) }, (_, k) => hostile(r, i * 5 + k));
      resources.splice(r.int(resources.length + 1), 0, good);
      const outcome = state.applyResponse(SE, resources);
      undecodable += outcome.undecodable;
      const why = `seed ${seed}, iteration ${i}`;
      assert.ok(store.get('ServiceEntry', 'keep', 'good'), why);
      assert.ok(store.get('VirtualService', 'keep', 'vs'), why);
      assert.ok(outcome.reasons.length <= 10, why);
    }
    assert.ok(undecodable > 0, `seed ${seed}: some resources were undecodable`);
  });
});
