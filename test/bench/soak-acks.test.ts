import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AerakiMetrics } from '../../src/ops/metrics.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { RdsServer } from '../../src/xds-rds/server.ts';
import { SnapshotCache } from '../../src/xds-rds/snapshot.ts';
import type { RouteConfigurationJson } from '../../src/xds-rds/route-json.ts';
import { ACK_MARGIN_MS, ackFigures, describeAcks, recordObservations } from '../../bench/soak-acks.ts';
import {
  openStreams,
  protocolOf,
  routeOf,
  watchedServices,
  type SoakStreams,
} from '../../bench/soak-streams.ts';
import { waitFor } from '../support/python.ts';

const route = (name: string, cluster: string): RouteConfigurationJson => ({
  name,
  virtualHosts: [{ name: 'dummy', domains: ['*'], routes: [{ match: { prefix: '/' }, route: { cluster } }] }],
});

describe('soak: change to every acknowledgement', () => {
  it('takes p50, p99 and max of the observations and holds the p99 against the debounce maximum plus 250 ms', () => {
    const ms = Array.from({ length: 200 }, (_, i) => 200 - i); // 1 to 200, unsorted
    const f = ackFigures(ms, 150);
    assert.deepEqual(f, {
      count: 200,
      p50Ms: 101,
      p99Ms: 199,
      maxMs: 200,
      debounceMaxMs: 150,
      targetMs: 150 + ACK_MARGIN_MS,
      met: true,
    });
    assert.equal(ackFigures(ms, 100).targetMs, 350);
    assert.equal(ackFigures([...ms, 5000, 5000, 5000], 100).met, false, 'three in 203 above the target');
    assert.equal(ackFigures([...ms, 5000], 100).met, true, 'one in 201 is the last per cent');
    assert.equal(ackFigures([], 1000).met, false, 'nothing measured meets nothing');
    assert.match(describeAcks(ackFigures([], 1000)), /nothing measured/);
    assert.match(describeAcks(ackFigures([1300, 1300], 1000)), /p99 1300 ms.*NOT met/);
  });

  it('records what the histogram observes, in ms, and leaves the histogram counting', async () => {
    const metrics = new AerakiMetrics({ defaultMetrics: false });
    const h = metrics.configToAck;
    h.observe(9); // before: not recorded
    const rec = recordObservations(h);
    h.observe(0.25);
    h.observe({}, 1.5);
    rec.stop();
    h.observe(3); // after: not recorded
    assert.deepEqual(rec.ms, [250, 1500]);
    const count = (await h.get()).values.find((v) => v.metricName?.endsWith('_count'))?.value;
    assert.equal(count, 4, 'every observation still reaches the histogram');
  });

  it('lays the streams out by connection and route', () => {
    assert.deepEqual(
      [0, 1, 2, 3].map((c) => protocolOf(c, 'mixed')),
      ['sotw', 'delta', 'sotw', 'delta'],
    );
    assert.equal(protocolOf(1, 'sotw'), 'sotw');
    assert.equal(protocolOf(0, 'delta'), 'delta');
    assert.equal(watchedServices({ count: 1000, rds: 'sotw', subscribers: 1 }), 1000);
    assert.equal(watchedServices({ count: 1000, rds: 'sotw', subscribers: 3 }), 334);
  });

  describe("the soak's streams acknowledge every response, SotW and delta", () => {
    const A = routeOf(0);
    const B = routeOf(1);
    let cache: SnapshotCache;
    let server: RdsServer;
    let streams: SoakStreams | undefined;
    const allAcked: number[] = [];
    const pushes: string[] = [];

    before(async () => {
      cache = new SnapshotCache();
      cache.setRoutes([route(A, 'a1'), route(B, 'b1')]);
      server = new RdsServer(
        { host: '127.0.0.1', port: 0, logger: silentLogger, tls: { insecure: true } },
        cache,
      );
      server.acks.onAllAcked = (ms) => allAcked.push(ms);
      const port = await server.start();
      // Connection 0 (SotW) holds streams 0-9 on A, connection 1 (delta) streams 10-19 on B.
      streams = await openStreams(port, { count: 20, rds: 'mixed', subscribers: 10 }, (name) =>
        pushes.push(name),
      );
    });

    after(async () => {
      streams?.close();
      await server.stop();
    });

    it('ACKs the first answer and every push, so a change is acknowledged by every subscriber', async () => {
      await waitFor(() => server.acks.summary(A)?.acked === 10 && server.acks.summary(B)?.acked === 10);
      const protocols = server.acks.proxies().map((p) => p.protocol);
      assert.equal(protocols.filter((p) => p === 'sotw').length, 10);
      assert.equal(protocols.filter((p) => p === 'delta').length, 10);
      assert.deepEqual(pushes, [], 'first answers are not pushes');

      const at = server.acks.clock.now();
      cache.setRoutes([route(A, 'a2'), route(B, 'b2')]);
      server.acks.noteChange([A, B], at);
      await waitFor(() => allAcked.length === 2);
      assert.equal(pushes.filter((n) => n === A).length, 10);
      assert.equal(pushes.filter((n) => n === B).length, 10);
      for (const name of [A, B]) {
        const s = server.acks.summary(name);
        assert.equal(s?.acked, 10);
        assert.equal(s?.pending, 0);
      }
      assert.equal(streams?.errors(), 0);
    });
  });
});
