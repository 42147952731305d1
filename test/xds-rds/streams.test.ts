import { describe, it, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { ROUTE_CONFIGURATION_TYPE } from '../../src/model/constants.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { RdsMetrics } from '../../src/xds-rds/metrics.ts';
import { SnapshotCache } from '../../src/xds-rds/snapshot.ts';
import { SotwStream } from '../../src/xds-rds/sotw-stream.ts';
import { DeltaStream } from '../../src/xds-rds/delta-stream.ts';
import { decodeDeltaResponse, decodeSotwResponse } from '../../src/tools/rds-codec.ts';
import type { RouteConfigurationJson } from '../../src/xds-rds/route-json.ts';
import type { StreamSink } from '../../src/xds-rds/stream-types.ts';

function rc(name: string, cluster: string): RouteConfigurationJson {
  return {
    name,
    virtualHosts: [
      {
        name: 'dummy',
        domains: ['*'],
        routes: [{ name: 'default', match: { prefix: '/' }, route: { cluster } }],
      },
    ],
  };
}

class FakeSink implements StreamSink {
  sent: Buffer[] = [];
  failed: { code: number; message: string } | undefined;
  send(bytes: Buffer): void {
    this.sent.push(bytes);
  }
  fail(code: number, message: string): void {
    this.failed = { code, message };
  }
}

const T = ROUTE_CONFIGURATION_TYPE;

describe('SnapshotCache', () => {
  it('versions by content, reuses encodings, and reports only changed names', () => {
    const cache = new SnapshotCache();
    assert.deepEqual(cache.setRoutes([rc('a_1', 'x'), rc('b_1', 'y')]), ['a_1', 'b_1']);
    const first = cache.snapshot();
    assert.deepEqual(cache.setRoutes([rc('b_1', 'y'), rc('a_1', 'x')]), []);
    assert.equal(cache.snapshot(), first);
    assert.deepEqual(cache.setRoutes([rc('a_1', 'x'), rc('b_1', 'z')]), ['b_1']);
    const second = cache.snapshot();
    assert.notEqual(second.version, first.version);
    assert.equal(
      second.resources.get('a_1'),
      first.resources.get('a_1'),
      'unchanged resource bytes are shared',
    );
    assert.equal(cache.stats.resourceEncodes, 3);
    assert.deepEqual(cache.setRoutes([rc('a_1', 'x')]), ['b_1']);
    // Same content as before -> same version as before.
    cache.setRoutes([rc('a_1', 'x'), rc('b_1', 'y')]);
    assert.equal(cache.snapshot().version, first.version);
  });

  it('notifies only the watchers of changed names, once each', () => {
    const cache = new SnapshotCache();
    const calls: string[][] = [];
    const w = { onResourcesChanged: (_s: unknown, names: readonly string[]) => calls.push([...names]) };
    const other = { onResourcesChanged: () => calls.push(['other']) };
    cache.watch('a_1', w);
    cache.watch('b_1', w);
    cache.watch('c_1', other);
    cache.setRoutes([rc('a_1', 'x'), rc('b_1', 'y')]);
    assert.deepEqual(calls, [['a_1', 'b_1']]);
    cache.unwatch('b_1', w);
    cache.setRoutes([rc('a_1', 'x'), rc('b_1', 'q')]);
    assert.equal(calls.length, 1);
  });
});

describe('SotwStream', () => {
  let cache: SnapshotCache;
  let sink: FakeSink;
  let metrics: RdsMetrics;
  let stream: SotwStream;
  const last = () => decodeSotwResponse(sink.sent.at(-1)!);
  beforeEach(() => {
    cache = new SnapshotCache();
    cache.setRoutes([rc('a_1', 'x'), rc('b_1', 'y'), rc('c_1', 'z')]);
    sink = new FakeSink();
    metrics = new RdsMetrics();
    stream = new SotwStream({ cache, sink, logger: silentLogger, metrics, peer: 'spiffe://test' });
  });

  it('answers exactly the requested names, nothing for an empty subscription', () => {
    stream.handleRequest({ versionInfo: '', nodeId: 'n', resourceNames: [], typeUrl: T, responseNonce: '' });
    assert.equal(sink.sent.length, 0);
    stream.handleRequest({
      versionInfo: '',
      nodeId: '',
      resourceNames: ['c_1', 'a_1', 'zz'],
      typeUrl: T,
      responseNonce: '',
    });
    const r = last();
    assert.deepEqual(
      r.resources.map((x) => (x.json as { name: string }).name),
      ['a_1', 'c_1'],
    );
    assert.equal(r.typeUrl, T);
    assert.equal(r.nonce, '1');
    assert.equal(r.versionInfo, cache.snapshot().version);
  });

  it('ACKs, ignores stale nonces, pushes only on change of its own resources', () => {
    stream.handleRequest({
      versionInfo: '',
      nodeId: 'n',
      resourceNames: ['a_1'],
      typeUrl: T,
      responseNonce: '',
    });
    const r1 = last();
    stream.handleRequest({
      versionInfo: r1.versionInfo,
      nodeId: '',
      resourceNames: ['a_1'],
      typeUrl: T,
      responseNonce: r1.nonce,
    });
    assert.equal(stream.acked, r1.versionInfo);
    assert.equal(sink.sent.length, 1, 'an ACK gets no response');
    cache.setRoutes([rc('a_1', 'x'), rc('b_1', 'changed'), rc('c_1', 'z')]);
    assert.equal(sink.sent.length, 1, 'a change to another route is not pushed');
    cache.setRoutes([rc('a_1', 'new'), rc('b_1', 'changed'), rc('c_1', 'z')]);
    assert.equal(sink.sent.length, 2);
    const r2 = last();
    assert.equal(r2.nonce, '2');
    assert.deepEqual((r2.resources[0]?.json as RouteConfigurationJson).virtualHosts[0].routes[0]?.route, {
      cluster: 'new',
    });
    // A late request with the old nonce is stale: ignored even if it changes names.
    stream.handleRequest({
      versionInfo: r1.versionInfo,
      nodeId: '',
      resourceNames: ['b_1'],
      typeUrl: T,
      responseNonce: r1.nonce,
    });
    assert.equal(sink.sent.length, 2);
    assert.equal(metrics.staleNonces, 1);
    assert.deepEqual(stream.subscribed, ['a_1']);
  });

  it('logs and counts a NACK with the proxy and reason, does not resend, stays up', () => {
    stream.handleRequest({
      versionInfo: '',
      nodeId: 'proxy-1',
      resourceNames: ['a_1'],
      typeUrl: T,
      responseNonce: '',
    });
    const r1 = last();
    stream.handleRequest({
      versionInfo: '',
      nodeId: '',
      resourceNames: ['a_1'],
      typeUrl: T,
      responseNonce: r1.nonce,
      errorDetail: { code: 13, message: 'bad route' },
    });
    assert.equal(sink.sent.length, 1);
    assert.equal(metrics.nacks, 1);
    assert.deepEqual(metrics.lastNacks[0], {
      proxy: 'proxy-1',
      peer: 'spiffe://test',
      version: r1.versionInfo,
      reason: 'bad route',
    });
    assert.equal(sink.failed, undefined);
    cache.setRoutes([rc('a_1', 'fixed'), rc('b_1', 'y'), rc('c_1', 'z')]);
    assert.equal(sink.sent.length, 2, 'a new version is still pushed after a NACK');
  });

  it('subscribes and unsubscribes: added names are sent, removal alone sends nothing', () => {
    stream.handleRequest({
      versionInfo: '',
      nodeId: 'n',
      resourceNames: ['a_1'],
      typeUrl: T,
      responseNonce: '',
    });
    let r = last();
    stream.handleRequest({
      versionInfo: r.versionInfo,
      nodeId: '',
      resourceNames: ['a_1', 'b_1'],
      typeUrl: T,
      responseNonce: r.nonce,
    });
    r = last();
    assert.deepEqual(
      r.resources.map((x) => (x.json as { name: string }).name),
      ['a_1', 'b_1'],
    );
    stream.handleRequest({
      versionInfo: r.versionInfo,
      nodeId: '',
      resourceNames: ['b_1'],
      typeUrl: T,
      responseNonce: r.nonce,
    });
    assert.equal(sink.sent.length, 2);
    assert.equal(cache.watcherCount('a_1'), 0);
    cache.setRoutes([rc('a_1', 'other'), rc('b_1', 'y'), rc('c_1', 'z')]);
    assert.equal(sink.sent.length, 2);
    stream.handleRequest({
      versionInfo: r.versionInfo,
      nodeId: '',
      resourceNames: ['a_1', 'b_1'],
      typeUrl: T,
      responseNonce: r.nonce,
    });
    assert.equal(sink.sent.length, 3, 're-subscribing sends the resource again');
  });

  it('answers an unknown type URL with INVALID_ARGUMENT and stops watching', () => {
    stream.handleRequest({
      versionInfo: '',
      nodeId: 'n',
      resourceNames: ['a_1'],
      typeUrl: 'type.googleapis.com/envoy.config.cluster.v3.Cluster',
      responseNonce: '',
    });
    assert.equal(sink.failed?.code, 3);
    assert.equal(cache.watcherCount('a_1'), 0);
    assert.equal(metrics.streamsActive, 0);
  });
});

describe('DeltaStream', () => {
  it('sends what the client lacks, removals, and honours unsubscribe', () => {
    const cache = new SnapshotCache();
    cache.setRoutes([rc('a_1', 'x'), rc('b_1', 'y')]);
    const sink = new FakeSink();
    const metrics = new RdsMetrics();
    const s = new DeltaStream({ cache, sink, logger: silentLogger, metrics, peer: 'p' });
    const aVersion = cache.snapshot().resources.get('a_1')!.version;
    const req = { nodeId: 'n', typeUrl: T, unsubscribe: [], responseNonce: '' };
    s.handleRequest({
      ...req,
      subscribe: ['a_1', 'b_1', 'missing'],
      initialResourceVersions: { a_1: aVersion },
    });
    let r = decodeDeltaResponse(sink.sent.at(-1)!);
    assert.deepEqual(
      r.resources.map((x) => x.name),
      ['b_1'],
      'a_1 is already at the current version',
    );
    s.handleRequest({ ...req, subscribe: [], initialResourceVersions: {}, responseNonce: r.nonce });
    assert.equal(metrics.acks, 1);
    cache.setRoutes([rc('a_1', 'x2')]);
    r = decodeDeltaResponse(sink.sent.at(-1)!);
    assert.deepEqual(
      r.resources.map((x) => [x.name, x.version]),
      [['a_1', cache.snapshot().resources.get('a_1')!.version]],
    );
    assert.deepEqual(r.removedResources, ['b_1']);
    s.handleRequest({
      ...req,
      subscribe: [],
      unsubscribe: ['a_1'],
      initialResourceVersions: {},
      responseNonce: r.nonce,
    });
    const count = sink.sent.length;
    cache.setRoutes([rc('a_1', 'x3')]);
    assert.equal(sink.sent.length, count);
    cache.setRoutes([rc('a_1', 'x3'), rc('missing', 'm')]);
    r = decodeDeltaResponse(sink.sent.at(-1)!);
    assert.deepEqual(
      r.resources.map((x) => x.name),
      ['missing'],
    );
    s.handleRequest({
      ...req,
      subscribe: [],
      initialResourceVersions: {},
      responseNonce: r.nonce,
      errorDetail: { code: 3, message: 'no' },
    });
    assert.equal(metrics.nacks, 1);
    assert.equal(sink.sent.length, count + 1);
  });
});
