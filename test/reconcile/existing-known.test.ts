// A list by the existing-objects reader offers the sink what the managed cache already holds, so the sink can take
// the spec hash of an object listed at an unchanged resourceVersion instead of hashing its spec again (issue 40:
// a periodic resync of 30,000 EnvoyFilters stringified and hashed every spec on the loop).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ExistingObject } from '../../src/reconcile/diff.ts';
import { ExistingReader } from '../../src/reconcile/existing.ts';
import { ManagedCache } from '../../src/reconcile/managed-cache.ts';
import type { EnvoyFilterSink, KnownObjects } from '../../src/reconcile/sink.ts';

const cached: ExistingObject = {
  kind: 'EnvoyFilter',
  namespace: 'istio-system',
  name: 'f',
  resourceVersion: '7',
  labels: {},
  annotations: {},
  specHash: 'h7',
};

function sinkRecording(calls: (KnownObjects | undefined)[]): EnvoyFilterSink {
  return {
    name: 'recording',
    list: (known) => {
      calls.push(known);
      return Promise.resolve([cached]);
    },
    create: () => Promise.resolve(),
    update: () => Promise.resolve(),
    delete: () => Promise.resolve(),
  };
}

describe('the existing-objects reader and what it knows', () => {
  it('offers the cached objects to every list, inline and in the background', async () => {
    const cache = new ManagedCache();
    const calls: (KnownObjects | undefined)[] = [];
    const reader = new ExistingReader(sinkRecording(calls), cache);
    await reader.read();
    assert.equal(cache.get('EnvoyFilter', 'istio-system', 'f')?.specHash, 'h7');
    cache.markSynced();
    let listed!: () => void;
    const done = new Promise<void>((resolve) => (listed = resolve));
    const background = new ExistingReader(sinkRecording(calls), cache, { onListed: () => listed() });
    await background.read(); // its first read lists inline; a resync then lists in the background
    background.resyncNext();
    await done;
    assert.equal(calls.length, 3);
    for (const known of calls) {
      assert.equal(typeof known, 'function');
      assert.equal(known?.('EnvoyFilter', 'istio-system', 'f')?.resourceVersion, '7');
      assert.equal(known?.('EnvoyFilter', 'istio-system', 'other'), undefined);
    }
  });

  it('offers nothing without a cache', async () => {
    const calls: (KnownObjects | undefined)[] = [];
    await new ExistingReader(sinkRecording(calls), undefined).read();
    assert.deepEqual(calls, [undefined]);
  });
});
