// The RDS server with an AdsCache on loopback over real mTLS, and waypoint clients with their Gateway's SPIFFE
// certificate (test CA), for the ADS tests.
import { LISTENER_TYPE, type ServiceContribution } from '../../src/model/ambient/xds.ts';
import { silentLogger } from '../../src/util/logger.ts';
import type { PeerPolicy } from '../../src/util/peer-policy.ts';
import { AdsCache } from '../../src/xds-rds/ads-cache.ts';
import type { RouteConfigurationJson } from '../../src/xds-rds/route-json.ts';
import { RdsServer } from '../../src/xds-rds/server.ts';
import { SnapshotCache } from '../../src/xds-rds/snapshot.ts';
import { AdsTestClient, type AdsResourceJson } from '../fakes/ads-client.ts';
import { meshClient, testCa, writeCertDir, type CertDir } from '../fakes/test-ca.ts';
import { xdsProblems } from '../conformance/xds-check.ts';
import { gatewayServices, LISTENER_TEMPLATE, META_ROUTE_NAME } from './ads-shapes.ts';

export const GATEWAY = 'shop/wp';

/** The RDS server's route for the MetaProtocol service of gatewayServices (served to the waypoint over ADS). */
export function metaRoute(cluster: string): RouteConfigurationJson {
  return {
    name: META_ROUTE_NAME,
    virtualHosts: [
      { name: 'v', domains: ['*'], routes: [{ name: 'r', match: { prefix: '/' }, route: { cluster } }] },
    ],
  } as unknown as RouteConfigurationJson;
}

export interface AdsHarness {
  readonly server: RdsServer;
  readonly cache: AdsCache;
  readonly rds: SnapshotCache;
  readonly port: number;
  /** A client whose certificate is `spiffe://cluster.local/ns/<namespace>/sa/<sa>`. */
  client(namespace: string, sa: string): AdsTestClient;
  stop(): Promise<void>;
}

export async function startAds(
  services: Map<string, ServiceContribution> = gatewayServices(),
  peers?: PeerPolicy,
): Promise<AdsHarness> {
  const certs: CertDir = writeCertDir();
  const rds = new SnapshotCache();
  rds.setRoutes([metaRoute('outbound|8000||trpc.shop.svc.cluster.local')]);
  const cache = new AdsCache(rds);
  cache.apply([{ gateway: GATEWAY, listener: LISTENER_TEMPLATE, services }]);
  const server = new RdsServer(
    {
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger,
      tls: { ...certs, pollIntervalMs: 60_000 },
      ...(peers ? { peers } : {}),
    },
    rds,
    cache,
  );
  const port = await server.start();
  const clients: AdsTestClient[] = [];
  return {
    server,
    cache,
    rds,
    port,
    client(namespace, sa) {
      const c = meshClient([`spiffe://cluster.local/ns/${namespace}/sa/${sa}`], sa);
      const client = new AdsTestClient(port, { ca: testCa().ca, cert: c.cert, key: c.key });
      clients.push(client);
      return client;
    },
    async stop() {
      for (const c of clients) c.close();
      await server.stop();
      certs.remove();
    },
  };
}

/** Every problem of the resources against protos-2026 (xdsProblems), prefixed with their type and name. */
export function problemsOf(resources: readonly AdsResourceJson[]): string[] {
  return resources.flatMap((r) => xdsProblems(r.typeUrl, r.json).map((p) => `${r.typeUrl} ${r.name}: ${p}`));
}

export const LISTENER_NAME = String(LISTENER_TEMPLATE['name']);
export { LISTENER_TYPE };
