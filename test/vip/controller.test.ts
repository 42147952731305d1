// The VIP allocator against the fake kube-apiserver over real HTTP with client-node.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Protocol } from '../../src/model/protocol.ts';
import { applyWrites } from '../../src/kit/apply.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { leaderLoopPart, Runtime } from '../../src/kit/runtime.ts';
import { FakeElector } from '../support/fake-elector.ts';
import { VipAllocator, type VipAllocatorOptions } from '../../src/vip/controller.ts';
import { createKubeServiceEntryPort } from '../../src/vip/kube.ts';
import { fakeKubeConfig } from '../fakes/kube-apiserver/client.ts';
import { startFakeKubeApiServer, type FakeKubeApiServer } from '../fakes/kube-apiserver/index.ts';

const SE = 'serviceentries.networking.istio.io';
const PROTOCOLS: readonly Protocol[] = ['metaprotocol', 'dubbo', 'thrift'];
const QUIET = 500;

let api: FakeKubeApiServer;
let clock: ManualClock;
/** The fake's clock: every seed is one second younger than the one before (creationTimestamp order). */
let serverTime = Date.parse('2024-01-01T00:00:00Z');
before(async () => {
  api = await startFakeKubeApiServer({ now: () => new Date(serverTime) });
});
after(async () => {
  await api.close();
});
beforeEach(() => {
  clock = new ManualClock(0);
  for (const o of api.list(SE)) api.delete(SE, o.metadata.namespace ?? '', o.metadata.name ?? '');
  api.clearRequests();
});

function allocator(o: Partial<VipAllocatorOptions> = {}): VipAllocator {
  return new VipAllocator({
    port: createKubeServiceEntryPort(fakeKubeConfig(api)),
    apply: applyWrites,
    protocols: PROTOCOLS,
    logger: silentLogger,
    quietMs: QUIET,
    maxWaitMs: 2000,
    resyncMs: 0,
    clock,
    ...o,
  });
}

/** Seeds a ServiceEntry in `shop`, created one second after the previous one. */
function seed(
  name: string,
  spec: { addresses?: string[]; resolution?: string; ports?: string[] } = {},
): void {
  serverTime += 1000;
  api.seed({
    apiVersion: 'networking.istio.io/v1alpha3',
    kind: 'ServiceEntry',
    metadata: { name, namespace: 'shop' },
    spec: {
      hosts: [`${name}.shop.example`],
      ...(spec.addresses ? { addresses: spec.addresses } : {}),
      ports: (spec.ports ?? ['tcp-dubbo']).map((p, i) => ({ name: p, number: 20880 + i, protocol: 'TCP' })),
      resolution: spec.resolution ?? 'STATIC',
    },
  });
}

function addressesOf(name: string): unknown {
  return (api.get(SE, 'shop', name) as any)?.spec.addresses;
}
const seWrites = () => api.writes({ resource: 'serviceentries' });

/** Fires the debounce timer and awaits the run it starts (and anything that run caused). */
async function settle(c: VipAllocator): Promise<void> {
  clock.advance(QUIET);
  await c.idle();
}

/** Every 240.240 address held as addresses[0], with its holders. */
function holders(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const o of api.list(SE) as any[]) {
    const first = o.spec.addresses?.[0];
    if (first) out.set(first, [...(out.get(first) ?? []), o.metadata.name]);
  }
  return out;
}

describe('vip/controller: against the API server', () => {
  it('gives address-less ServiceEntries a VIP each, one Update by field manager Aeraki, then writes nothing', async () => {
    seed('a', {});
    seed('b', { resolution: 'DNS', ports: ['http-web', 'tcp-metaprotocol-trpc'] });
    seed('none', { resolution: 'NONE' });
    seed('redis', { ports: ['tcp-redis'] });
    seed('outside', { addresses: ['10.0.0.1'] });
    api.clearRequests();
    const c = allocator();
    const r = await c.reconcile();
    assert.deepEqual(r.failures, []);
    assert.equal(r.allocated, 2);
    assert.deepEqual(addressesOf('a'), ['240.240.0.1']);
    assert.deepEqual(addressesOf('b'), ['240.240.0.2']);
    assert.equal(addressesOf('none'), undefined);
    assert.equal(addressesOf('redis'), undefined);
    assert.deepEqual(addressesOf('outside'), ['10.0.0.1']);
    assert.deepEqual(
      seWrites().map((w) => [w.verb, w.name, w.fieldManager]),
      [
        ['update', 'a', 'Aeraki'],
        ['update', 'b', 'Aeraki'],
      ],
    );
    const b = api.get(SE, 'shop', 'b') as any;
    assert.deepEqual(
      b.spec.ports.map((p: any) => p.name),
      ['http-web', 'tcp-metaprotocol-trpc'],
      'the rest of the object is kept',
    );
    assert.equal(b.spec.resolution, 'DNS');

    const again = await c.reconcile();
    assert.equal(again.allocated + again.reassigned, 0);
    assert.equal(again.kept, 2);
    assert.equal(seWrites().length, 2);
  });

  it('keeps VIPs across restarts: a new allocator over the same server writes nothing, new ones skip held VIPs', async () => {
    seed('a');
    seed('b');
    seed('c');
    await allocator().reconcile();
    api.delete(SE, 'shop', 'a'); // frees 240.240.0.1
    api.clearRequests();

    const restarted = allocator();
    const r = await restarted.reconcile();
    assert.equal(r.kept, 2);
    assert.equal(seWrites().length, 0);
    seed('d');
    restarted.trigger();
    await settle(restarted);
    assert.deepEqual(addressesOf('d'), ['240.240.0.1'], 'the lowest free value');
    assert.deepEqual(addressesOf('b'), ['240.240.0.2']);
    assert.deepEqual(addressesOf('c'), ['240.240.0.3']);
    assert.equal(seWrites().length, 1);
  });

  it('two ServiceEntries never share a VIP: the older keeps it, the other gets a new one', async () => {
    // `copy` sorts before `old` by name: only age decides
    seed('old', { addresses: ['240.240.0.1'] });
    seed('fresh');
    seed('copy', { addresses: ['240.240.0.1', '10.9.9.9'] });
    const r = await allocator().reconcile();
    assert.equal(r.reassigned, 1);
    assert.equal(r.allocated, 1);
    assert.deepEqual(addressesOf('old'), ['240.240.0.1']);
    assert.deepEqual(addressesOf('fresh'), ['240.240.0.2']);
    assert.deepEqual(addressesOf('copy'), ['240.240.0.3', '10.9.9.9']);
    for (const [vip, names] of holders()) assert.equal(names.length, 1, `${vip} held by ${names.join(', ')}`);
  });

  it('event mode: a burst of new ServiceEntries is one debounced run, every VIP distinct', async () => {
    const c = allocator();
    c.start();
    for (let i = 0; i < 10; i++) {
      seed(`s${i}`);
      c.trigger();
    }
    clock.advance(QUIET - 1);
    assert.equal(seWrites().length, 0, 'debounced');
    await settle(c);
    assert.equal(seWrites().length, 10);
    assert.equal(api.requests.filter((q) => q.verb === 'list').length, 1, 'one run');
    const vips = [...holders().keys()];
    assert.equal(new Set(vips).size, 10);
    assert.ok(vips.every((v) => v.startsWith('240.240.0.')));
    await c.stop();
  });

  it('never writes when not the leader, and stops writing when leadership is lost', async () => {
    seed('a');
    seed('b');
    api.clearRequests();
    const follower = allocator();
    const runtime = new Runtime({ logger: silentLogger, elector: new FakeElector() });
    await runtime.start(leaderLoopPart('vips', follower));
    follower.trigger();
    clock.advance(QUIET);
    await follower.idle();
    assert.deepEqual(clock.pendingDelays(), [], 'a standby has no timer');
    assert.equal(api.requests.filter((q) => q.resource === 'serviceentries').length, 0);
    await runtime.stop();

    // Leadership lost as the first write is issued: the stop closes the write gate before the next one.
    let stopped: Promise<void> | undefined;
    const port = createKubeServiceEntryPort(fakeKubeConfig(api));
    const losing = allocator({
      port: {
        list: () => port.list(),
        updateAddresses: (se, addresses) => {
          stopped ??= losing.stop();
          return port.updateAddresses(se, addresses);
        },
      },
    });
    const partial = await losing.reconcile();
    await stopped;
    assert.equal(partial.interrupted, true);
    assert.equal(partial.allocated, 1);
    assert.equal(seWrites().length, 1);
    assert.equal(addressesOf('b'), undefined);
  });

  it('does nothing before synced', async () => {
    seed('a');
    let synced = false;
    const c = allocator({ isSynced: () => synced });
    assert.equal((await c.reconcile()).skipped, 'not-synced');
    assert.equal(seWrites().length, 0);
    synced = true;
    c.trigger();
    await settle(c);
    assert.deepEqual(addressesOf('a'), ['240.240.0.1']);
  });

  it("a deleted ServiceEntry's VIP is not reused while another still holds it, and is reusable after", async () => {
    // `dns-only` holds the same VIP but is never written (resolution NONE): the older `a` keeps it.
    seed('a', { addresses: ['240.240.0.1'] });
    seed('dns-only', { addresses: ['240.240.0.1'], resolution: 'NONE' });
    const c = allocator();
    await c.reconcile();
    assert.equal(seWrites().length, 0);

    api.delete(SE, 'shop', 'a');
    seed('b');
    await c.reconcile();
    assert.deepEqual(addressesOf('b'), ['240.240.0.2'], '240.240.0.1 is still held by dns-only');

    api.delete(SE, 'shop', 'dns-only');
    seed('c');
    await c.reconcile();
    assert.deepEqual(addressesOf('c'), ['240.240.0.1'], 'free once nobody holds it');
  });

  it('retries a conflicting Update (409) after backoff, re-listing first', async () => {
    seed('a');
    const fault = api.faults.inject({ verb: 'update', resource: 'serviceentries', status: 409, times: 1 });
    const conflicts: boolean[] = [];
    const c = allocator({
      retry: { initialMs: 5, maxMs: 20, jitter: 0 },
      onWrite: (_reason, error) => conflicts.push(error?.code === 409),
    });
    const r = await c.reconcile();
    assert.equal(fault.hits, 1);
    assert.equal(r.failures[0]!.error.transient, true);
    assert.deepEqual(clock.pendingDelays(), [5]);
    clock.advance(5);
    await c.idle();
    assert.deepEqual(addressesOf('a'), ['240.240.0.1']);
    assert.deepEqual(conflicts, [true, false]);
    assert.equal(api.requests.filter((q) => q.verb === 'list').length, 2);
    assert.equal(clock.pending(), 0, 'no retry after a successful run');
  });

  it('writes nothing and reports an issue when the range is exhausted', async () => {
    const full = [];
    for (let n = 1; n < 255 * 255; n++) {
      if (n % 255 !== 0) full.push(`240.240.${Math.floor(n / 255)}.${n % 255}`);
    }
    seed('hog', { addresses: ['10.0.0.1', ...full] });
    seed('late');
    api.clearRequests();
    const r = await allocator().reconcile();
    assert.equal(seWrites().length, 0);
    assert.deepEqual(
      r.issues.map((i) => `${i.ref.name} ${i.path}`),
      ['late spec.addresses'],
    );
  });
});
