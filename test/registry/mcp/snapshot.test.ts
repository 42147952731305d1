// The ServiceEntry set as encoded once per update.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadMcpProtos } from '../../../src/kit/mcp-protos.ts';
import { buildSnapshot, EMPTY_SNAPSHOT, type EncodingCache } from '../../../src/registry/mcp/snapshot.ts';
import { endpoint, registryEntry } from './entries.ts';

const protos = loadMcpProtos();

describe('MCP ServiceEntry snapshot', () => {
  const a = registryEntry('org.a.A', [endpoint('10.0.0.1')]);
  const b = registryEntry('org.a.B', [endpoint('10.0.0.2')], 'shop');

  it('gives the same bytes and version whatever the input order, and the empty snapshot for none', () => {
    const one = buildSnapshot(protos, [a, b]);
    const two = buildSnapshot(protos, [b, a]);
    assert.equal(one.version, two.version);
    assert.deepEqual(Buffer.from(one.resources), Buffer.from(two.resources));
    assert.equal(one.count, 2);
    assert.equal(buildSnapshot(protos, []), EMPTY_SNAPSHOT);
  });

  it('changes the version when one endpoint changes, and reuses cached encodings byte for byte', () => {
    const cache: EncodingCache = new WeakMap();
    const first = buildSnapshot(protos, [a, b], cache);
    assert.ok(cache.has(a) && cache.has(b));
    const b2 = registryEntry('org.a.B', [endpoint('10.0.0.3')], 'shop');
    const cached = buildSnapshot(protos, [a, b2], cache);
    const fresh = buildSnapshot(protos, [a, b2]);
    assert.notEqual(cached.version, first.version);
    assert.equal(cached.version, fresh.version);
    assert.deepEqual(Buffer.from(cached.resources), Buffer.from(fresh.resources));
  });
});
