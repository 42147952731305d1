// Fuzz of the waypoints' ADS streams (no network): seeded random sequences of SotW and delta requests, decoded by
// the server's own deserialisers, interleaved with AdsCache changes. Nothing throws; a refused stream ends with one
// gRPC status and sends nothing after; every response decodes, its type is one the stream subscribed to and its
// nonce is above the type's previous one; a SotW response carries exactly what the cache serves the subscription
// now; delta never resends a version the client has and leaves it no stale version of a subscribed resource; the
// stream's own record of what the client has equals the client's view (mirrored from the rules the stream classes
// document); after close the cache holds no watch and the AckTracker nothing of the stream.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isWildcardType } from '../../src/model/ambient/xds.ts';
import { encodeDeltaRequest, encodeSotwRequest } from '../../src/tools/rds-codec.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { AckTracker } from '../../src/xds-rds/acks.ts';
import { AdsCache } from '../../src/xds-rds/ads-cache.ts';
import { AdsDeltaStream } from '../../src/xds-rds/ads-delta.ts';
import { foldVersion, type AdsResource } from '../../src/xds-rds/ads-encode.ts';
import { gatewayCheck } from '../../src/xds-rds/ads-identity.ts';
import { AdsSotwStream } from '../../src/xds-rds/ads-sotw.ts';
import type { TypeSubscription } from '../../src/xds-rds/ads-stream-base.ts';
import { RdsMetrics } from '../../src/xds-rds/metrics.ts';
import { decodeDeltaRequest, decodeSotwRequest } from '../../src/xds-rds/service.ts';
import { SnapshotCache } from '../../src/xds-rds/snapshot.ts';
import type { StreamSink } from '../../src/xds-rds/stream-types.ts';
import { decodeAdsDelta, decodeAdsSotw } from '../fakes/ads-client.ts';
import { metaRoute } from '../xds-rds/ads-harness.ts';
import { gatewayServices, LISTENER_TEMPLATE } from '../xds-rds/ads-shapes.ts';
import { deltaRequest, GATEWAY, PEER, randomChange, randomType, sotwRequest } from './ads-requests.ts';
import { fuzzSeed, iterations, rng, type Rng } from './prng.ts';

/** A sink recording what a stream sent and how (often) it ended. */
class Recorder implements StreamSink {
  readonly sent: Buffer[] = [];
  fails: { code: number; message: string }[] = [];
  sentAfterFail = 0;
  send(bytes: Buffer): void {
    if (this.fails.length > 0) this.sentAfterFail++;
    this.sent.push(bytes);
  }
  fail(code: number, message: string): void {
    this.fails.push({ code, message });
  }
}

/** The client's view of one type: its subscription as the stream applies it, nonces, and (delta) what it has. */
interface TypeModel {
  wildcard: boolean;
  names: Set<string>;
  lastNonce: string;
  nonces: string[];
  has: Map<string, string>;
  /** SotW: the last response's version and resource names. */
  last?: { version: string; names: string[]; step: number; versions: Map<string, string> };
}

const model = (): TypeModel => ({
  wildcard: false,
  names: new Set(),
  lastNonce: '',
  nonces: [],
  has: new Map(),
});

function expectedSotw(ads: AdsCache, typeUrl: string, m: TypeModel): AdsResource[] {
  if (m.wildcard) return [...ads.resources(GATEWAY, typeUrl).values()];
  return [...m.names].flatMap((n) => ads.resource(GATEWAY, typeUrl, n) ?? []);
}

/** Mirrors the documented SotW rules (ads-sotw.ts): a stale nonce leaves the type's subscription alone. */
function sotwSubscribe(m: TypeModel, typeUrl: string, req: Record<string, unknown>): void {
  const nonce = req['responseNonce'] as string;
  if (nonce !== '' && m.lastNonce !== '' && nonce !== m.lastNonce) return;
  const names = req['resourceNames'] as string[];
  m.wildcard = isWildcardType(typeUrl) && (names.length === 0 || names.includes('*'));
  m.names = new Set(m.wildcard ? [] : names);
  // The client forgets what it no longer names (xds_protocol "Unsubscribing From Resources").
  if (!m.wildcard)
    for (const n of m.last?.versions.keys() ?? []) if (!m.names.has(n)) m.last!.versions.delete(n);
}

/** Mirrors the documented delta rules (ads-delta.ts): subscribe/unsubscribe, `*`, initial versions. */
function deltaSubscribe(m: TypeModel, typeUrl: string, req: Record<string, unknown>, first: boolean): void {
  const sub = req['resourceNamesSubscribe'] as string[];
  const unsub = req['resourceNamesUnsubscribe'] as string[];
  const on = isWildcardType(typeUrl) && (sub.includes('*') || (first && sub.length === 0));
  const off = unsub.includes('*');
  if (on) m.wildcard = true;
  else if (off) m.wildcard = false;
  const removed = unsub.filter((n) => n !== '*' && m.names.has(n));
  const added = sub.filter((n) => n !== '*' && !m.names.has(n));
  for (const n of removed) {
    m.names.delete(n);
    m.has.delete(n);
  }
  for (const n of added) m.names.add(n);
  if (off && !m.wildcard) for (const n of [...m.has.keys()]) if (!m.names.has(n)) m.has.delete(n);
  if (!first) return;
  const initial = req['initialResourceVersions'] as Record<string, string>;
  for (const [n, v] of Object.entries(initial))
    if (m.wildcard || m.names.has(n)) m.has.set(n, v.length <= 64 ? v : '');
}

/** What the runs covered: each must be non-zero, so the fuzz cannot go vacuous unnoticed. */
const covered = { refusals: new Map<number, number>(), pushes: 0, removals: 0 };

function run(
  r: Rng,
  protocol: 'sotw' | 'delta',
  ads: AdsCache,
  rds: SnapshotCache,
  tracker: AckTracker,
  tag: string,
) {
  const sink = new Recorder();
  const deps = { ads, sink, logger: silentLogger, metrics: new RdsMetrics(), peer: PEER, acks: tracker };
  const check = gatewayCheck({ trustDomain: 'cluster.local', trustDomainAliases: [], allowedNamespaces: [] });
  const stream =
    protocol === 'sotw' ? new AdsSotwStream({ ...deps, check }) : new AdsDeltaStream({ ...deps, check });
  const types = new Map<string, TypeModel>();
  const allNonces: string[] = [];
  let seen = 0;
  for (let step = 0, n = 1 + r.int(14); step < n; step++) {
    const where = `${tag}, step ${step}`;
    let change: string | undefined;
    if (step > 0 && r.int(3) === 0) {
      change = randomChange(r, ads, rds);
    } else {
      const typeUrl = randomType(r);
      const m = types.get(typeUrl);
      const first = m === undefined;
      const req = (protocol === 'sotw' ? sotwRequest : deltaRequest)(
        r,
        ads,
        typeUrl,
        m,
        allNonces,
        step === 0,
      );
      const before = sink.fails.length;
      assert.doesNotThrow(() => {
        if (stream instanceof AdsSotwStream) stream.handleRequest(decodeSotwRequest(encodeSotwRequest(req)));
        else stream.handleRequest(decodeDeltaRequest(encodeDeltaRequest(req)));
      }, where);
      if (sink.fails.length === before && before === 0) {
        const tm = m ?? model();
        types.set(typeUrl, tm);
        if (protocol === 'sotw') sotwSubscribe(tm, typeUrl, req);
        else deltaSubscribe(tm, typeUrl, req, first);
      }
    }
    const fresh = sink.sent.slice(seen);
    seen = sink.sent.length;
    if (change !== undefined) covered.pushes += fresh.length;
    if (change?.startsWith('shop/other')) assert.equal(fresh.length, 0, `${where}: another Gateway's change`);
    for (const bytes of fresh) checkResponse(protocol, bytes, types, step, where, allNonces);
    if (protocol === 'sotw' && sink.fails.length === 0) checkSotwState(types, ads, where, step, stream);
    if (protocol === 'delta' && sink.fails.length === 0) checkDeltaState(types, ads, where, stream);
  }
  if (r.int(4) === 0) randomChange(r, ads, rds);
  stream.close();
  assert.ok(sink.fails.length <= 1, `${tag}: one status at most`);
  assert.equal(sink.sentAfterFail, 0, `${tag}: nothing after the status`);
  const code = sink.fails[0]?.code;
  if (code !== undefined) {
    assert.ok([3, 7, 8].includes(code), `${tag}: status ${code}`);
    covered.refusals.set(code, (covered.refusals.get(code) ?? 0) + 1);
  }
  assert.equal(ads.watchCount, 0, `${tag}: watches left after close`);
  assert.equal(tracker.streamCount, 0, `${tag}: tracker streams left after close`);
  assert.equal(tracker.routeCount, 0, `${tag}: tracker routes left after close`);
}

function checkResponse(
  protocol: 'sotw' | 'delta',
  bytes: Buffer,
  types: Map<string, TypeModel>,
  step: number,
  where: string,
  allNonces: string[],
): void {
  const resp = protocol === 'sotw' ? decodeAdsSotw(bytes) : decodeAdsDelta(bytes);
  const m = types.get(resp.typeUrl);
  assert.ok(m, `${where}: a response of ${resp.typeUrl}, never subscribed`);
  assert.ok(
    m.lastNonce === '' || Number(resp.nonce) > Number(m.lastNonce),
    `${where}: nonce ${resp.nonce} after ${m.lastNonce}`,
  );
  for (const res of resp.resources) assert.equal(res.typeUrl, resp.typeUrl, where);
  m.lastNonce = resp.nonce;
  m.nonces.push(resp.nonce);
  allNonces.push(resp.nonce);
  if (protocol === 'sotw') {
    const v = (resp as ReturnType<typeof decodeAdsSotw>).versionInfo;
    m.last = { version: v, names: resp.resources.map((x) => x.name).sort(), step, versions: new Map() };
    return;
  }
  const d = resp as ReturnType<typeof decodeAdsDelta>;
  const subscribed = (n: string) => m.wildcard || m.names.has(n);
  for (const res of d.resources) {
    assert.ok(subscribed(res.name), `${where}: ${res.name} not subscribed`);
    assert.notEqual(m.has.get(res.name), res.version, `${where}: ${res.name}@${res.version} resent`);
    m.has.set(res.name, res.version!);
  }
  covered.removals += d.removedResources.length;
  for (const n of d.removedResources) {
    assert.ok(m.has.has(n), `${where}: removal of ${n}, which the client does not have`);
    m.has.delete(n);
  }
}

/**
 * A SotW response sent in this step carries exactly what the subscription should have now (names, and the version
 * folding their digests); otherwise what the client still has of the last one (sotwSubscribe) is still current.
 */
/** The stream's per-type records (protected: read here to compare with the client's view). */
const subsOf = (stream: object) => (stream as unknown as { subs: Map<string, TypeSubscription> }).subs;

function checkSotwState(
  types: Map<string, TypeModel>,
  ads: AdsCache,
  where: string,
  step: number,
  stream: object,
): void {
  for (const [typeUrl, m] of types) {
    const want = expectedSotw(ads, typeUrl, m);
    const last = m.last;
    assert.ok(last, `${where}: ${typeUrl} started and never answered`);
    if (last.step === step) {
      assert.deepEqual(last.names, want.map((x) => x.name).sort(), `${where}: ${typeUrl} names`);
      const fold = want.reduce((f, x) => f ^ x.digest, 0n);
      assert.equal(last.version, foldVersion(fold), `${where}: ${typeUrl} version`);
      last.versions = new Map(want.map((x) => [x.name, x.version]));
    }
    assert.deepEqual(
      subsOf(stream).get(typeUrl)?.versions,
      last.versions,
      `${where}: ${typeUrl} bookkeeping`,
    );
    if (last.step === step) continue;
    for (const x of want)
      assert.equal(last.versions.get(x.name), x.version, `${where}: ${typeUrl} ${x.name} stale`);
    const current = new Set(want.map((x) => x.name));
    for (const n of last.versions.keys())
      assert.ok(current.has(n), `${where}: ${typeUrl} ${n} gone, not removed`);
  }
}

function checkDeltaState(types: Map<string, TypeModel>, ads: AdsCache, where: string, stream: object): void {
  const subs = subsOf(stream);
  for (const [typeUrl, m] of types) {
    // The stream's own record of what the client has is the client's.
    assert.deepEqual(subs.get(typeUrl)?.versions, m.has, `${where}: ${typeUrl} bookkeeping`);
    for (const [n, v] of m.has) {
      if (n === '*' || !(m.wildcard || m.names.has(n))) continue; // `*` is no resource name
      assert.equal(v, ads.resource(GATEWAY, typeUrl, n)?.version, `${where}: ${typeUrl} ${n} stale`);
    }
    for (const n of m.names) {
      const current = ads.resource(GATEWAY, typeUrl, n)?.version;
      if (current !== undefined) assert.equal(m.has.get(n), current, `${where}: ${typeUrl} ${n} never sent`);
    }
  }
}

describe('fuzz: ADS stream state machines', () => {
  it('random SotW and delta sequences keep every invariant and leave nothing behind', () => {
    const seed = fuzzSeed('ads-streams');
    const r = rng(seed);
    const rds = new SnapshotCache();
    rds.setRoutes([metaRoute('outbound|8000||trpc.shop.svc.cluster.local')]);
    const ads = new AdsCache(rds);
    ads.apply([{ gateway: GATEWAY, listener: LISTENER_TEMPLATE, services: gatewayServices() }]);
    const tracker = new AckTracker();
    const rounds = iterations(300);
    for (let i = 0; i < rounds; i++) {
      const protocol = r.pick(['sotw', 'delta'] as const);
      run(r, protocol, ads, rds, tracker, `seed ${seed}, sequence ${i} (${protocol})`);
    }
    const refused = [...covered.refusals.values()].reduce((a, b) => a + b, 0);
    assert.ok(refused > 0 && refused < rounds, `seed ${seed}: ${refused} of ${rounds} refused`);
    assert.ok(
      covered.refusals.has(3) && covered.refusals.has(7),
      `seed ${seed}: INVALID_ARGUMENT, PERMISSION_DENIED`,
    );
    assert.ok(covered.pushes > 0 && covered.removals > 0, `seed ${seed}: ${JSON.stringify(covered)}`);
    console.log(`# ${JSON.stringify({ ...covered, refusals: Object.fromEntries(covered.refusals) })}`);
  });
});
