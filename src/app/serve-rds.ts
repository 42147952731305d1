/**
 * The RDS side of `aeraki serve`, on every replica: the snapshot cache, the gRPC server (bound as a part: a taken
 * port names `--rds-address`), and the route builder over the store. The builder publishes `routes` after a
 * rebuild; the proxies' answers are published on `acks` (the live view, again when where they stand moves).
 * The same listener serves ADS to our own waypoints from `ads` (filled by serve-waypoint.ts); with TLS, the server
 * verifies clients against the mesh root plus the waypoints' own CA (`trust.setExtraRoots`, serve-waypoint.ts).
 */
import type { Part } from '../kit/lifecycle.ts';
import { formatAddress } from '../util/address.ts';
import { systemClock } from '../util/clock.ts';
import { ExtraRootsProvider } from '../kit/certs/extra-roots.ts';
import { AdsCache } from '../xds-rds/ads-cache.ts';
import { routeAcksOf, RouteSource, type TrackedRouteAcks } from '../xds-rds/route-source.ts';
import { RdsServer } from '../xds-rds/server.ts';
import { SnapshotCache } from '../xds-rds/snapshot.ts';
import { rdsLimits, rdsPeers, type ServeOptions } from './options.ts';
import type { ServeBase } from './serve-base.ts';
import type { ServeInputs } from './serve-inputs.ts';
import { rdsPart } from './serve-parts.ts';

export interface ServeRds {
  readonly cache: SnapshotCache;
  readonly server: RdsServer;
  readonly routes: RouteSource;
  /** What our own waypoints are served (ADS, on the same listener). */
  readonly ads: AdsCache;
  /** The server's certificate provider with room for the waypoints' CA root; undefined without TLS. */
  readonly trust: ExtraRootsProvider | undefined;
  /** The host the server listens on (`0.0.0.0` for an empty `--rds-address` host). */
  readonly host: string;
  /** The bound port, once `part` started. */
  port(): number;
  readonly part: Part;
}

export function buildRds(o: ServeOptions, base: ServeBase, inputs: ServeInputs): ServeRds {
  const { logger, metrics, identity } = base;
  const { rds: r, mesh, handshake } = o;
  const cache = new SnapshotCache();
  const ads = new AdsCache(cache, logger.child({ component: 'ads' }));
  const host = r.address.host === '' ? '0.0.0.0' : r.address.host;
  const trust = 'provider' in identity.tls ? new ExtraRootsProvider(identity.tls.provider) : undefined;
  const server = new RdsServer(
    {
      host,
      port: r.address.port,
      tls: trust ? { provider: trust } : identity.tls,
      logger,
      peers: rdsPeers(r, mesh),
      limits: rdsLimits(r),
      handshake,
    },
    cache,
    ads,
  );
  server.acks.onAllAcked = (ms) => metrics.configToAck.observe(ms / 1000);
  const { topics } = inputs;
  let routeAcks: TrackedRouteAcks | undefined;
  const routes = new RouteSource(inputs.store, cache, {
    quietMs: r.debounceAfterMs,
    maxWaitMs: r.debounceMaxMs,
    onPushed: (ms) => metrics.configToPush.observe(ms / 1000),
    onRoutesChanged: (changed, at) => server.acks.noteChange(changed, at),
    // MetaRouters' Programmed follows the generations the routes carry and the proxies' answers.
    onRebuilt: (names) => {
      routeAcks?.noteChanged(names);
      topics.routes.publish({ routes: names });
    },
    now: () => systemClock.now(),
    logger,
  });
  const acks = (routeAcks = routeAcksOf(routes, server.acks));
  topics.acks.publish(acks);
  server.acks.onStateChange = (route) => {
    acks.noteChanged([route]);
    topics.acks.publish(acks);
  };
  let port = 0;
  const part = rdsPart(server, formatAddress(host, r.address.port), (p) => (port = p));
  return { cache, server, routes, ads, trust, host, port: () => port, part };
}
