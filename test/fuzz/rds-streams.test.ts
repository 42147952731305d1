// Fuzz of the RDS decoders and stream state machines (no network): hostile SotW and delta requests, decoded by the
// server's own deserialisers, never throw, are either served (only names they subscribed) or refused with
// INVALID_ARGUMENT or RESOURCE_EXHAUSTED (a route-name budget) naming the problem (nothing sent after that), and never disturb a well-behaved stream on the
// same snapshot cache, which keeps getting exactly the pushes it should.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ROUTE_CONFIGURATION_TYPE } from '../../src/model/constants.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { decodeDeltaResponse, decodeSotwResponse, encodeSotwRequest } from '../../src/tools/rds-codec.ts';
import { DeltaStream } from '../../src/xds-rds/delta-stream.ts';
import { RdsMetrics } from '../../src/xds-rds/metrics.ts';
import { buildRouteConfigurations } from '../../src/xds-rds/routes.ts';
import { decodeDeltaRequest, decodeSotwRequest } from '../../src/xds-rds/service.ts';
import { SnapshotCache } from '../../src/xds-rds/snapshot.ts';
import { SotwStream } from '../../src/xds-rds/sotw-stream.ts';
import type { StreamSink } from '../../src/xds-rds/stream-types.ts';
import { metaRouter, serviceEntry, storeOf } from '../support/builders.ts';
import { fuzzSeed, iterations, rng } from './prng.ts';
import { hostileRequest, REFUSAL, type Protocol } from './rds-requests.ts';

const HOSTS = ['a.fuzz', 'b.fuzz', 'c.fuzz'];
const NAMES = HOSTS.map((h) => `${h}_9000`);

function routes(subset: string) {
  return buildRouteConfigurations(
    storeOf([
      ...HOSTS.map((h) =>
        serviceEntry('fuzz', h.split('.')[0]!, {
          hosts: [h],
          ports: [{ number: 9000, name: 'tcp-metaprotocol-x' }],
        }),
      ),
      metaRouter('fuzz', 'mr', {
        hosts: ['a.fuzz'],
        routes: [
          {
            name: 'r',
            route: [{ destination: { host: 'a.fuzz', subset } }],
            requestMutation: [],
            responseMutation: [],
          },
        ],
      }),
    ]),
  ).routes;
}

/** A sink recording what a stream sent and how it ended. */
class Recorder implements StreamSink {
  readonly sent: Buffer[] = [];
  failed: { code: number; message: string } | undefined;
  sentAfterFail = 0;
  send(bytes: Buffer): void {
    if (this.failed) this.sentAfterFail++;
    this.sent.push(bytes);
  }
  fail(code: number, message: string): void {
    this.failed ??= { code, message };
  }
}

function open(protocol: Protocol, cache: SnapshotCache, metrics: RdsMetrics) {
  const sink = new Recorder();
  const deps = { cache, sink, logger: silentLogger, metrics, peer: 'spiffe://cluster.local/ns/fuzz/sa/x' };
  const stream = protocol === 'sotw' ? new SotwStream(deps) : new DeltaStream(deps);
  const handle = (bytes: Buffer) =>
    protocol === 'sotw'
      ? (stream as SotwStream).handleRequest(decodeSotwRequest(bytes))
      : (stream as DeltaStream).handleRequest(decodeDeltaRequest(bytes));
  return { sink, stream, handle, protocol };
}

/** Names of the resources in a response. */
function responseNames(protocol: Protocol, bytes: Buffer): string[] {
  const resources =
    protocol === 'sotw' ? decodeSotwResponse(bytes).resources : decodeDeltaResponse(bytes).resources;
  return resources.map((r) => (r.json as { name: string }).name);
}

describe('fuzz: RDS decoders and stream state machines', () => {
  it('hostile requests never throw, are refused by name or served as subscribed, and leave a good stream alone', () => {
    const seed = fuzzSeed('rds-streams');
    const r = rng(seed);
    const cache = new SnapshotCache();
    cache.setRoutes(routes('v0'));
    const metrics = new RdsMetrics();
    const good = open('sotw', cache, metrics);
    // A well-behaved proxy: subscribes to a.fuzz and ACKs what it gets (below).
    good.handle(
      encodeSotwRequest({
        node: { id: 'good' },
        typeUrl: ROUTE_CONFIGURATION_TYPE,
        resourceNames: [NAMES[0]],
      }),
    );
    assert.equal(good.sink.sent.length, 1, `seed ${seed}`);
    const recent: string[] = [];
    const rounds = iterations(120);
    let refused = 0;
    for (let i = 0; i < rounds; i++) {
      const hostile = open(r.pick(['sotw', 'delta'] as const), cache, metrics);
      for (let k = 0, n = 1 + r.int(4); k < n && !hostile.sink.failed; k++) {
        const bytes = hostileRequest(r, hostile.protocol, NAMES, recent);
        assert.doesNotThrow(() => hostile.handle(bytes), `seed ${seed}, iteration ${i}`);
      }
      if (hostile.sink.failed) {
        refused++;
        assert.ok([3, 8].includes(hostile.sink.failed.code), `seed ${seed}, iteration ${i}`);
        assert.match(hostile.sink.failed.message, REFUSAL, `seed ${seed}, iteration ${i}`);
      }
      for (const b of hostile.sink.sent) {
        for (const name of responseNames(hostile.protocol, b)) assert.ok(NAMES.includes(name), name);
      }
      assert.equal(hostile.sink.sentAfterFail, 0, `seed ${seed}, iteration ${i}`);
      const last = hostile.sink.sent.at(-1);
      if (last) recent.push(decodeNonce(hostile.protocol, last));
      if (r.int(3) > 0) hostile.stream.close();
      if (r.int(20) === 0) {
        // A route change: the good stream gets exactly one push with the new version.
        const sentBefore: number = good.sink.sent.length;
        cache.setRoutes(routes(`v${i + 1}`));
        assert.equal(good.sink.sent.length, sentBefore + 1, `seed ${seed}, iteration ${i}`);
        const push = decodeSotwResponse(good.sink.sent.at(-1)!);
        assert.equal(push.versionInfo, cache.snapshot().version);
        assert.deepEqual(responseNames('sotw', good.sink.sent.at(-1)!), [NAMES[0]]);
        good.handle(
          encodeSotwRequest({
            typeUrl: ROUTE_CONFIGURATION_TYPE,
            resourceNames: [NAMES[0]],
            versionInfo: push.versionInfo,
            responseNonce: push.nonce,
          }),
        );
      }
    }
    assert.equal(good.sink.failed, undefined, `seed ${seed}`);
    assert.ok(refused > 0, `seed ${seed}: some requests were refused`);
  });
});

function decodeNonce(protocol: Protocol, bytes: Buffer): string {
  return protocol === 'sotw' ? decodeSotwResponse(bytes).nonce : decodeDeltaResponse(bytes).nonce;
}
