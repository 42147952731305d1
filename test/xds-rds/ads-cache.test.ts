// The waypoints' ADS cache (src/xds-rds/ads-cache.ts): per-Gateway snapshot assembled from service contributions,
// versions by content, duplicates, watches reached once per apply, and RDS routes for the MetaProtocol proxy.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  CLUSTER_TYPE,
  DUBBO_ROUTE_TYPE,
  ENDPOINT_TYPE,
  LISTENER_TYPE,
  META_ROUTE_TYPE,
  type ServiceContribution,
} from '../../src/model/ambient/xds.ts';
import { AdsCache, type AdsWatcher } from '../../src/xds-rds/ads-cache.ts';
import { decodeJson } from '../../src/xds-rds/proto-json.ts';
import { SnapshotCache } from '../../src/xds-rds/snapshot.ts';
import type { RouteConfigurationJson } from '../../src/xds-rds/route-json.ts';
import {
  clusterName,
  dubbo,
  gatewayServices,
  LISTENER_TEMPLATE,
  META_ROUTE_NAME,
  redis,
} from './ads-shapes.ts';

const GW = 'shop/wp';

class Recorder implements AdsWatcher {
  readonly calls: Record<string, string[]>[] = [];
  onAdsChanged(changed: ReadonlyMap<string, readonly string[]>): void {
    this.calls.push(Object.fromEntries([...changed].map(([t, n]) => [t, [...n]])));
  }
}

function filled(): { cache: AdsCache; rds: SnapshotCache } {
  const rds = new SnapshotCache();
  const cache = new AdsCache(rds);
  cache.apply([{ gateway: GW, listener: LISTENER_TEMPLATE, services: gatewayServices() }]);
  return { cache, rds };
}

function listenerJson(cache: AdsCache): { filterChains: { name: string }[] } {
  const r = cache.resource(GW, LISTENER_TYPE, 'proxy_protocol_inbound')!;
  // DiscoveryResponse.resources entry: field 2 (Any), whose field 2 is the Listener's bytes.
  const p = parse(r.sotwEntry);
  const any = parse(p[2]!);
  return decodeJson(LISTENER_TYPE, any[2]!) as { filterChains: { name: string }[] };
}

/** A message's length-delimited fields (last of each number) — enough to open the entries. */
function parse(b: Uint8Array): Record<number, Uint8Array> {
  const out: Record<number, Uint8Array> = {};
  let i = 0;
  const varint = () => {
    let n = 0;
    let shift = 0;
    for (;;) {
      const byte = b[i++]!;
      n += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return n;
      shift += 7;
    }
  };
  while (i < b.length) {
    const tag = varint();
    const len = varint();
    out[tag >>> 3] = b.subarray(i, i + len);
    i += len;
  }
  return out;
}

describe('AdsCache', () => {
  it('assembles the Listener from the template and every chain in chain-name order', () => {
    const { cache } = filled();
    const names = listenerJson(cache).filterChains.map((c) => c.name);
    assert.deepEqual(names, [...names].sort());
    assert.equal(names.length, 5);
    assert.equal(cache.resources(GW, CLUSTER_TYPE).size, 5);
    assert.equal(cache.resources(GW, ENDPOINT_TYPE).size, 5);
    assert.ok(cache.resource(GW, DUBBO_ROUTE_TYPE, 'dubbo.shop.svc.cluster.local_20880'));
  });

  it('re-encodes only what one service changed, and versions follow content', () => {
    const { cache } = filled();
    const before = { ...cache.stats };
    const listener = cache.resource(GW, LISTENER_TYPE, 'proxy_protocol_inbound')!.version;
    const clusters = cache.version(GW, CLUSTER_TYPE);
    const services = new Map([
      ['Service/shop/redis', redis('redis.shop.svc.cluster.local', '10.96.0.12', ['10.244.0.99'])],
    ]);
    cache.apply([{ gateway: GW, services }]);
    assert.deepEqual(
      cache.stats,
      { chains: before.chains, resources: before.resources + 1 },
      'only the endpoints',
    );
    assert.equal(cache.resource(GW, LISTENER_TYPE, 'proxy_protocol_inbound')!.version, listener);
    assert.equal(cache.version(GW, CLUSTER_TYPE), clusters);
    // The same content again changes nothing.
    const again = new Recorder();
    cache.watch(GW, ENDPOINT_TYPE, clusterName('redis.shop.svc.cluster.local', 6379), again);
    cache.apply([{ gateway: GW, services }]);
    assert.deepEqual(again.calls, []);
  });

  it("re-encodes one chain when one service's chain changes, and reassembles the Listener from the others", () => {
    const { cache } = filled();
    const before = { ...cache.stats };
    const listener = cache.resource(GW, LISTENER_TYPE, 'proxy_protocol_inbound')!.version;
    const lds = new Recorder();
    cache.watch(GW, LISTENER_TYPE, undefined, lds);
    const moved = redis('redis.shop.svc.cluster.local', '10.96.0.99', ['10.244.0.13']);
    cache.apply([{ gateway: GW, services: new Map([['Service/shop/redis', moved]]) }]);
    assert.deepEqual(cache.stats, { chains: before.chains + 1, resources: before.resources });
    assert.notEqual(cache.resource(GW, LISTENER_TYPE, 'proxy_protocol_inbound')!.version, listener);
    assert.deepEqual(lds.calls, [{ [LISTENER_TYPE]: ['proxy_protocol_inbound'] }]);
    const chains = listenerJson(cache).filterChains as { name: string; filterChainMatch: unknown }[];
    assert.equal(chains.length, 5);
    const redisChain = chains.find((c) => c.name === 'redis.shop.svc.cluster.local_6379')!;
    assert.deepEqual(redisChain.filterChainMatch, {
      destinationPort: 6379,
      prefixRanges: [{ addressPrefix: '10.96.0.99', prefixLen: 32 }],
    });
    cache.unwatch(GW, LISTENER_TYPE, undefined, lds);
  });

  it('reaches each watcher once per apply, with only what changed', () => {
    const { cache } = filled();
    const cds = new Recorder();
    const lds = new Recorder();
    const edsDubbo = new Recorder();
    const edsRedis = new Recorder();
    cache.watch(GW, CLUSTER_TYPE, undefined, cds);
    cache.watch(GW, LISTENER_TYPE, undefined, lds);
    cache.watch(GW, ENDPOINT_TYPE, clusterName('dubbo.shop.svc.cluster.local', 20880, 'v2'), edsDubbo);
    cache.watch(GW, ENDPOINT_TYPE, clusterName('redis.shop.svc.cluster.local', 6379), edsRedis);
    const v2 = dubbo('dubbo.shop.svc.cluster.local', '10.96.0.10', ['10.244.0.10'], 'v2');
    cache.apply([{ gateway: GW, services: new Map([['Service/shop/dubbo', v2]]) }]);
    const v1 = clusterName('dubbo.shop.svc.cluster.local', 20880, 'v1');
    const v2Name = clusterName('dubbo.shop.svc.cluster.local', 20880, 'v2');
    assert.deepEqual(cds.calls, [{ [CLUSTER_TYPE]: [v1, v2Name] }]);
    assert.deepEqual(edsDubbo.calls, [{ [ENDPOINT_TYPE]: [v2Name] }]);
    assert.deepEqual(edsRedis.calls, []);
    assert.deepEqual(lds.calls, [], 'the chain did not change');
    cache.unwatch(GW, CLUSTER_TYPE, undefined, cds);
    cache.unwatch(GW, LISTENER_TYPE, undefined, lds);
    cache.unwatch(GW, ENDPOINT_TYPE, v2Name, edsDubbo);
    cache.unwatch(GW, ENDPOINT_TYPE, clusterName('redis.shop.svc.cluster.local', 6379), edsRedis);
    assert.equal(cache.watchCount, 0);
  });

  it('serves a (type, name) two services contribute from the first service key in string order', () => {
    const rds = new SnapshotCache();
    const cache = new AdsCache(rds);
    const name = clusterName('shared', 1);
    const contribution = (timeout: string): ServiceContribution => ({
      chains: [],
      resources: [{ typeUrl: CLUSTER_TYPE, name, json: { name, type: 'EDS', connect_timeout: timeout } }],
    });
    cache.apply([
      {
        gateway: GW,
        listener: LISTENER_TEMPLATE,
        services: new Map([
          ['Service/b/x', contribution('2s')],
          ['Service/a/x', contribution('1s')],
        ]),
      },
    ]);
    const first = cache.resource(GW, CLUSTER_TYPE, name)!.version;
    cache.apply([{ gateway: GW, services: new Map([['Service/b/x', contribution('3s')]]) }]);
    assert.equal(cache.resource(GW, CLUSTER_TYPE, name)!.version, first, 'b does not win');
    cache.apply([{ gateway: GW, services: new Map([['Service/a/x', undefined]]) }]);
    assert.notEqual(cache.resource(GW, CLUSTER_TYPE, name)!.version, first, 'b serves once a left');
  });

  it('serves nothing for a Gateway without a listener, and everything once it has one; null removes it', () => {
    const rds = new SnapshotCache();
    const cache = new AdsCache(rds);
    const w = new Recorder();
    cache.watch(GW, CLUSTER_TYPE, undefined, w);
    cache.apply([{ gateway: GW, services: gatewayServices() }]);
    assert.equal(cache.resources(GW, CLUSTER_TYPE).size, 0);
    assert.deepEqual(w.calls, []);
    cache.apply([{ gateway: GW, listener: LISTENER_TEMPLATE, services: new Map() }]);
    assert.equal(cache.resources(GW, CLUSTER_TYPE).size, 5);
    assert.equal(w.calls.length, 1);
    cache.apply([{ gateway: GW, listener: null, services: new Map() }]);
    assert.equal(cache.resources(GW, CLUSTER_TYPE).size, 0);
    const calls: Record<string, string[]>[] = w.calls;
    assert.deepEqual(
      calls.map((c) => c[CLUSTER_TYPE]?.length),
      [5, 5],
    );
  });

  it('leaves out (and counts) a resource that does not encode, naming its path', () => {
    const { cache } = filled();
    const bad: ServiceContribution = {
      chains: [
        { name: 'bad_1', filters: [{ name: 'f', typed_config: { '@type': 'type.googleapis.com/no.Such' } }] },
      ],
      resources: [],
    };
    cache.apply([{ gateway: GW, services: new Map([['Service/shop/bad', bad]]) }]);
    assert.equal(cache.problems, 1);
    assert.equal(listenerJson(cache).filterChains.length, 5);
  });

  it('answers MetaProtocol route names from the RDS cache and tells watchers of their changes', () => {
    const { cache, rds } = filled();
    const route = (cluster: string): RouteConfigurationJson =>
      ({
        name: META_ROUTE_NAME,
        virtualHosts: [
          { name: 'v', domains: ['*'], routes: [{ name: 'r', match: { prefix: '/' }, route: { cluster } }] },
        ],
      }) as unknown as RouteConfigurationJson;
    rds.setRoutes([route('a')]);
    const w = new Recorder();
    cache.watch(GW, META_ROUTE_TYPE, META_ROUTE_NAME, w);
    assert.equal(
      cache.resource(GW, META_ROUTE_TYPE, META_ROUTE_NAME),
      rds.snapshot().resources.get(META_ROUTE_NAME),
    );
    rds.setRoutes([route('b')]);
    assert.deepEqual(w.calls, [{ [META_ROUTE_TYPE]: [META_ROUTE_NAME] }]);
    assert.equal(cache.resource('other/gw', META_ROUTE_TYPE, META_ROUTE_NAME), undefined, 'unknown Gateway');
    cache.unwatch(GW, META_ROUTE_TYPE, META_ROUTE_NAME, w);
    assert.equal(rds.watchedNameCount, 0);
  });
});
