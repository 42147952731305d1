// Fuzz of the ADS service over real mTLS connections (SPIFFE peer policy on): seeded random SotW and delta streams
// (random type URLs, subscriptions, nonces, NACKs, node.cluster of the peer's Gateway or not; some requests mutated
// or random bytes), sent by the Gateway's own proxy identity or another one, beside a well-behaved SotW stream.
// Every hostile stream ends with OK (served, then hung up), INVALID_ARGUMENT, PERMISSION_DENIED or
// RESOURCE_EXHAUSTED; every response decodes as a waypoint type; the good stream gets every cluster change; once
// every stream is gone the cache holds no watch and the AckTracker no stream.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { CLUSTER_TYPE, WAYPOINT_TYPES } from '../../src/model/ambient/xds.ts';
import { encodeDeltaRequest, encodeSotwRequest } from '../../src/tools/rds-codec.ts';
import { adsRawClientDefinition } from '../../src/xds-rds/ads-service.ts';
import { decodeAdsDelta, decodeAdsSotw, sotwAck, waypointNode } from '../fakes/ads-client.ts';
import { connectTestClient } from '../fakes/rds-client.ts';
import { meshClient, testCa } from '../fakes/test-ca.ts';
import { waitFor } from '../support/python.ts';
import { startAds, type AdsHarness } from '../xds-rds/ads-harness.ts';
import { gatewayServices, thrift } from '../xds-rds/ads-shapes.ts';
import { deltaRequest, GATEWAY, randomType, sotwRequest } from './ads-requests.ts';
import { fuzzSeed, iterations, mutate, rng, type Rng } from './prng.ts';

const Raw = grpc.makeGenericClientConstructor(adsRawClientDefinition, 'AggregatedDiscoveryService');
type Protocol = 'sotw' | 'delta';
const METHOD = { sotw: 'StreamAggregatedResources', delta: 'DeltaAggregatedResources' } as const;
const ENDED = [
  grpc.status.OK,
  grpc.status.INVALID_ARGUMENT,
  grpc.status.PERMISSION_DENIED,
  grpc.status.RESOURCE_EXHAUSTED,
];

function rawClient(port: number, sa: string): grpc.Client {
  const c = meshClient([`spiffe://cluster.local/ns/shop/sa/${sa}`], sa);
  return connectTestClient(Raw, port, { ca: testCa().ca, cert: c.cert, key: c.key });
}

function messages(r: Rng, h: AdsHarness, protocol: Protocol, recent: string[]): Buffer[] {
  return Array.from({ length: 1 + r.int(4) }, (_, i) => {
    const typeUrl = randomType(r);
    const bytes =
      protocol === 'sotw'
        ? encodeSotwRequest(sotwRequest(r, h.cache, typeUrl, undefined, recent, i === 0))
        : encodeDeltaRequest(deltaRequest(r, h.cache, typeUrl, undefined, recent, i === 0));
    const roll = r.int(12);
    return roll === 0 ? r.bytes(r.int(64)) : roll === 1 ? mutate(r, bytes) : bytes;
  });
}

/** Sends `msgs` on a raw call, half-closes it; its final status and the responses' type URLs and nonces. */
function hostileCall(client: grpc.Client, protocol: Protocol, msgs: readonly Buffer[]) {
  const methods = client as unknown as Record<string, () => grpc.ClientDuplexStream<Buffer, Buffer>>;
  const call = methods[METHOD[protocol]]!.call(client);
  const got: { typeUrl: string; nonce: string }[] = [];
  call.on('data', (b: Buffer) => got.push(protocol === 'sotw' ? decodeAdsSotw(b) : decodeAdsDelta(b)));
  call.on('error', () => {});
  const done = new Promise<{ status: grpc.StatusObject; got: typeof got }>((resolve) =>
    call.on('status', (status: grpc.StatusObject) => resolve({ status, got })),
  );
  for (const m of msgs) call.write(m);
  call.end();
  return done;
}

describe('fuzz: ADS server, hostile streams beside a good waypoint proxy', () => {
  let h: AdsHarness;
  before(async () => {
    h = await startAds(gatewayServices(), {
      trustDomain: 'cluster.local',
      trustDomainAliases: [],
      allowedNamespaces: [],
    });
  });
  after(() => h.stop());

  it('ends every hostile stream with a known status, keeps serving the good one, and leaves no watch', async () => {
    const seed = fuzzSeed('ads-server');
    const r = rng(seed);
    const good = h.client('shop', 'wp').sotw();
    good.send({ node: waypointNode('shop', 'wp'), typeUrl: CLUSTER_TYPE, resourceNames: [] });
    let last = await good.next();
    good.send(sotwAck(last));
    const recent: string[] = [];
    const codes = new Map<number, number>();
    const batches = Math.max(1, Math.ceil(iterations(24) / 4));
    for (let b = 0; b < batches; b++) {
      // A fresh connection per batch: the connection guard closes one after a few invalid requests.
      const client = rawClient(h.port, b === 0 || r.int(5) === 0 ? 'other' : 'wp');
      const calls = Array.from({ length: 4 }, () => {
        const protocol = r.pick(['sotw', 'delta'] as const);
        return hostileCall(client, protocol, messages(r, h, protocol, recent));
      });
      const extra =
        b % 2 === 0 ? thrift('extra.shop.svc.cluster.local', '10.96.0.20', ['10.244.0.30']) : undefined;
      h.cache.apply([{ gateway: GATEWAY, services: new Map([['Service/shop/extra', extra]]) }]);
      for (const { status, got } of await Promise.all(calls)) {
        const why = `seed ${seed}, batch ${b}: ${status.code} ${status.details}`;
        codes.set(status.code, (codes.get(status.code) ?? 0) + 1);
        assert.ok(ENDED.includes(status.code), why);
        for (const g of got) assert.ok((WAYPOINT_TYPES as readonly string[]).includes(g.typeUrl), why);
        recent.push(...got.map((g) => g.nonce));
      }
      client.close();
      const push = await good.next();
      assert.equal(push.resources.length, extra ? 6 : 5, `seed ${seed}, batch ${b}`);
      assert.notEqual(push.versionInfo, last.versionInfo, `seed ${seed}, batch ${b}`);
      good.send(sotwAck(push));
      last = push;
    }
    console.log(`# statuses ${JSON.stringify(Object.fromEntries(codes))}`);
    assert.ok((codes.get(grpc.status.PERMISSION_DENIED) ?? 0) > 0, `seed ${seed}: some streams were refused`);
    good.close();
    await waitFor(() => h.cache.watchCount === 0 && h.server.acks.streamCount === 0);
    assert.equal(h.server.acks.routeCount, 0, `seed ${seed}`);
  });
});
