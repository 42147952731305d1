// Which Gateway an ADS stream serves and whether its peer may have it (src/xds-rds/ads-identity.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CLUSTER_TYPE } from '../../src/model/ambient/xds.ts';
import { silentLogger } from '../../src/util/logger.ts';
import { AdsCache } from '../../src/xds-rds/ads-cache.ts';
import { gatewayCheck } from '../../src/xds-rds/ads-identity.ts';
import { RdsServer } from '../../src/xds-rds/server.ts';
import { SnapshotCache } from '../../src/xds-rds/snapshot.ts';
import { AdsTestClient, waypointNode } from '../fakes/ads-client.ts';
import { gatewayServices, LISTENER_TEMPLATE } from './ads-shapes.ts';

const policy = {
  trustDomain: 'cluster.local',
  trustDomainAliases: ['old.example'],
  allowedNamespaces: ['x'],
};

describe('gatewayCheck', () => {
  const check = gatewayCheck(policy);

  it('serves node.cluster W.N to spiffe://<trust domain or alias>/ns/N/sa/W', () => {
    assert.deepEqual(check('wp.shop', 'spiffe://cluster.local/ns/shop/sa/wp'), { gateway: 'shop/wp' });
    assert.deepEqual(check('wp.shop', 'spiffe://Old.Example/ns/shop/sa/wp'), { gateway: 'shop/wp' });
    assert.deepEqual(check('my.wp.shop', 'spiffe://cluster.local/ns/shop/sa/my.wp'), {
      gateway: 'shop/my.wp',
    });
  });

  it('refuses another identity, naming the cluster, the Gateway and both identities', () => {
    const v = check('wp.shop', 'spiffe://cluster.local/ns/shop/sa/other');
    assert.ok('problem' in v);
    assert.equal(
      v.problem,
      'node.cluster "wp.shop" is the waypoint Gateway shop/wp, served only to spiffe://cluster.local/ns/shop/sa/wp; ' +
        'the client certificate is spiffe://cluster.local/ns/shop/sa/other',
    );
    assert.ok('problem' in check('wp.shop', 'spiffe://evil.example/ns/shop/sa/wp'));
    assert.ok('problem' in check('wp.shop', 'spiffe://cluster.local/ns/shop/sa/wp/extra'));
  });

  it('refuses a node.cluster that is not W.N', () => {
    for (const c of ['', 'wp', '.shop', 'wp.']) {
      const v = check(c, 'spiffe://cluster.local/ns/shop/sa/wp');
      assert.ok('problem' in v && /is not <gateway>\.<namespace>/.test(v.problem), c);
    }
  });

  it('serves any Gateway without TLS (--rds-insecure)', () => {
    assert.deepEqual(gatewayCheck(undefined)('wp.shop', 'unauthenticated'), { gateway: 'shop/wp' });
  });
});

describe('ADS without TLS (--rds-insecure)', () => {
  it('serves whichever Gateway node.cluster names', async () => {
    const rds = new SnapshotCache();
    const ads = new AdsCache(rds);
    ads.apply([{ gateway: 'shop/wp', listener: LISTENER_TEMPLATE, services: gatewayServices() }]);
    const server = new RdsServer(
      { host: '127.0.0.1', port: 0, logger: silentLogger, tls: { insecure: true } },
      rds,
      ads,
    );
    const client = new AdsTestClient(await server.start(), 'insecure', '127.0.0.1');
    try {
      const s = client.sotw();
      s.send({ node: waypointNode('shop', 'wp'), typeUrl: CLUSTER_TYPE });
      assert.equal((await s.next()).resources.length, 5);
      s.close();
    } finally {
      client.close();
      await server.stop();
    }
  });
});
