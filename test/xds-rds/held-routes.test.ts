// Last known good through RDS: the route on an open stream does not change when its MetaRouter (or
// DestinationRule) turns invalid, a held route keeps its previous version, and a fresh start withholds it when a
// DestinationRule of the ServiceEntry's namespace holds it. A MetaRouter with no valid version holds nothing: its
// host gets the default route (xds-rds/routes.ts says why).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigStore } from '../../src/controller/store.ts';
import { silentLogger } from '../../src/util/logger.ts';
import type { RouteConfigurationJson } from '../../src/xds-rds/route-json.ts';
import { RouteSource } from '../../src/xds-rds/route-source.ts';
import { RdsServer } from '../../src/xds-rds/server.ts';
import { SnapshotCache } from '../../src/xds-rds/snapshot.ts';
import { ackOf, RdsTestClient, sotwRequest } from '../fakes/rds-client.ts';
import { testCa, writeCertDir, type CertDir } from '../fakes/test-ca.ts';
import {
  destinationRuleRaw,
  fill,
  gatewayRaw,
  gatewayRouterRaw,
  META_HOST,
  META_ROUTE,
  metaEntry,
  metaRouterRaw,
  ROOT,
  world,
  type Raw,
} from '../support/lkg-objects.ts';

const OTHER_ROUTE = 'other.shop.svc.cluster.local_20882';
const otherEntry: Raw = {
  apiVersion: 'networking.istio.io/v1',
  kind: 'ServiceEntry',
  metadata: { namespace: 'shop', name: 'other' },
  spec: {
    hosts: ['other.shop.svc.cluster.local'],
    ports: [{ number: 20882, name: 'tcp-metaprotocol-dubbo', protocol: 'TCP' }],
  },
};
const V1 = `outbound|20880|v1|${META_HOST}`;
const DEFAULT = `outbound|20880||${META_HOST}`;

const routeOf = (resources: readonly { json: unknown }[], name: string) =>
  resources.map((r) => r.json as RouteConfigurationJson).find((j) => j.name === name)?.virtualHosts[0]
    ?.routes[0]?.route;

describe('RDS: last known good', () => {
  let certs: CertDir;
  let cache: SnapshotCache;
  let store: ConfigStore;
  let source: RouteSource | undefined;

  /** The live wiring of app/serve.ts: store events feed the route source. */
  const serve = (raws: readonly Raw[]) => {
    source?.stop();
    store = new ConfigStore({ rootNamespace: ROOT });
    fill(store, raws);
    cache = new SnapshotCache();
    const routes = new RouteSource(store, cache, { logger: silentLogger });
    store.subscribe((e) => routes.onEvent(e));
    routes.rebuild();
    source = routes;
    return routes;
  };
  const change = (raws: readonly Raw[]) => {
    fill(store, raws);
    source?.flush();
  };
  /** An RDS server over the current cache and one client's SotW stream; both closed after the test. */
  const stream = async (t: { after(fn: () => Promise<void>): void }) => {
    const server = new RdsServer(
      { host: '127.0.0.1', port: 0, logger: silentLogger, tls: { ...certs, pollIntervalMs: 60_000 } },
      cache,
    );
    const port = await server.start();
    const ca = testCa();
    const client = new RdsTestClient(port, { ca: ca.ca, cert: ca.clientCert, key: ca.clientKey });
    t.after(async () => {
      client.close();
      await server.stop();
    });
    return client.sotw();
  };

  before(() => {
    certs = writeCertDir();
  });
  after(() => {
    source?.stop();
    certs.remove();
  });

  it('an open stream keeps its route when its MetaRouter and DestinationRule turn invalid', async (t) => {
    const routes = serve([...world({ mr: true, vs: true, dr: true }), otherEntry]);
    const s = await stream(t);
    s.send(sotwRequest([META_ROUTE, OTHER_ROUTE]));
    const r1 = await s.next();
    assert.equal(routeOf(r1.resources, META_ROUTE)?.cluster, V1);
    assert.ok(routeOf(r1.resources, META_ROUTE)?.hashPolicy);
    s.send(ackOf(r1, [META_ROUTE, OTHER_ROUTE]));

    // Invalid versions arrive together with a real change (the other service leaves), which forces a push.
    change(world({ mr: false, vs: false, dr: false }));
    const r2 = await s.next();
    assert.deepEqual(
      r2.resources.map((r) => (r.json as RouteConfigurationJson).name),
      [META_ROUTE],
    );
    assert.deepEqual(routeOf(r2.resources, META_ROUTE), routeOf(r1.resources, META_ROUTE));
    s.send(ackOf(r2, [META_ROUTE, OTHER_ROUTE]));

    // Deleting the MetaRouter is what removes its routes.
    store.delete('MetaRouter', 'shop', 'mr');
    routes.flush();
    const r3 = await s.next();
    assert.equal(routeOf(r3.resources, META_ROUTE)?.cluster, DEFAULT);
    s.close();
  });

  it('a held route keeps its previous version; a valid MetaRouter then replaces it', () => {
    serve([metaEntry]);
    const served = cache.snapshot().resources.get(META_ROUTE);
    assert.equal(routeOf(served ? [served] : [], META_ROUTE)?.cluster, DEFAULT);
    change([metaEntry, metaRouterRaw(false)]);
    assert.equal(cache.snapshot().resources.get(META_ROUTE), served, 'the previous version still served');
    change([metaEntry, metaRouterRaw(true)]);
    const now = cache.snapshot().resources.get(META_ROUTE);
    assert.equal(routeOf(now ? [now] : [], META_ROUTE)?.cluster, V1);
  });

  it('a MetaRouter bound to a Gateway: its gateway route stays on an open stream; after a restart, the default route', async (t) => {
    const GATEWAY_ROUTE = META_ROUTE; // the gateway proxy asks for <host>_<gateway port>
    serve([metaEntry, gatewayRaw, gatewayRouterRaw(true), otherEntry]);
    const s = await stream(t);
    s.send(sotwRequest([GATEWAY_ROUTE, OTHER_ROUTE]));
    const r1 = await s.next();
    assert.equal(routeOf(r1.resources, GATEWAY_ROUTE)?.cluster, DEFAULT);
    s.send(ackOf(r1, [GATEWAY_ROUTE, OTHER_ROUTE]));
    change([metaEntry, gatewayRaw, gatewayRouterRaw(false)]);
    const r2 = await s.next();
    assert.deepEqual(routeOf(r2.resources, GATEWAY_ROUTE), routeOf(r1.resources, GATEWAY_ROUTE));
    s.close();

    // Nothing of the invalid MetaRouter was ever served by this process: it holds no host, and the host gets the
    // route its ServiceEntry alone gives. The Gateway only it binds is held (its filter kept), from any namespace.
    for (const namespace of ['shop', ROOT]) {
      serve([metaEntry, gatewayRaw, gatewayRouterRaw(false, namespace)]);
      assert.equal(store.isGatewayHeld(ROOT, 'ingress'), true, namespace);
      const served = cache.snapshot().resources.get(GATEWAY_ROUTE);
      assert.equal(routeOf(served ? [served] : [], GATEWAY_ROUTE)?.cluster, DEFAULT, namespace);
    }
  });

  it('after a restart with only an invalid DestinationRule of its namespace, the route is withheld', () => {
    const routes = serve([metaEntry, destinationRuleRaw(false)]);
    assert.equal(cache.snapshot().resources.has(META_ROUTE), false);
    store.delete('DestinationRule', 'shop', 'dr');
    routes.flush();
    assert.equal(cache.snapshot().resources.has(META_ROUTE), true, 'served once the hold is released');
  });

  it('after a restart with only an invalid MetaRouter, the default route is served, and a valid version replaces it', () => {
    const routes = serve([metaEntry, metaRouterRaw(false)]);
    const served = cache.snapshot().resources.get(META_ROUTE);
    assert.equal(routeOf(served ? [served] : [], META_ROUTE)?.cluster, DEFAULT);
    assert.deepEqual(store.heldHosts(), []);
    change([metaEntry, metaRouterRaw(true)]);
    routes.flush();
    const now = cache.snapshot().resources.get(META_ROUTE);
    assert.equal(routeOf(now ? [now] : [], META_ROUTE)?.cluster, V1);
  });
});
